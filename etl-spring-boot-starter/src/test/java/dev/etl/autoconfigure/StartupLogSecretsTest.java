package dev.etl.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.autoconfigure.clickhouse.ClickHouseSinkAutoConfiguration;
import dev.etl.autoconfigure.kafka.KafkaSourceAutoConfiguration;
import dev.etl.deser.Deserializer;
import dev.etl.kafka.KafkaSourceConfig;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.PipelineState;
import dev.etl.sink.SinkDefinition;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.capture.TestEncoders;
import dev.etl.test.memory.MemorySource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * What the pipeline logs while it starts and when it fails carries no password: the Kafka client's
 * {@code ConsumerConfig values}, the pipeline's start line, the source's settings, a ClickHouse sink
 * with a password that cannot start, and a failure whose exception quotes a URL with user info.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupLogSecretsTest {

    private static final String[] KAFKA = {
        "etl.source.kafka.topics=orders",
        "spring.kafka.bootstrap-servers=127.0.0.1:1",
        "spring.kafka.security.protocol=SASL_PLAINTEXT",
        "spring.kafka.properties[sasl.mechanism]=SCRAM-SHA-512",
        "spring.kafka.properties[sasl.jaas.config]=org.apache.kafka.common.security.scram.ScramLoginModule "
                + "required username=\"etl\" password=\"scram-hunter2\";",
        "spring.kafka.properties[ssl.truststore.password]=truststore-hunter2"
    };

    private static final String[] CLICKHOUSE = {
        "etl.sink.clickhouse.table=orders",
        "etl.sink.clickhouse.shards[0].replicas[0]=http://127.0.0.1:9",
        "etl.sink.clickhouse.validation=off",
        "etl.sink.clickhouse.username=etl",
        "etl.sink.clickhouse.password=ch-hunter2"
    };

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    KafkaAutoConfiguration.class,
                    KafkaSourceAutoConfiguration.class,
                    ClickHouseSinkAutoConfiguration.class,
                    EtlAutoConfiguration.class))
            .withPropertyValues(TestPipelines.FAST)
            .withPropertyValues("etl.pipeline.close-on-failure=false");

    @Test
    void theKafkaSourceStartsAndLogsItsConfigurationWithoutASecret(CapturedOutput output) {
        this.runner
                .withUserConfiguration(TestPipelines.Chain.class)
                .withBean(
                        "capture",
                        SinkDefinition.class,
                        () -> CaptureSink.create("capture", 1).definition())
                .withPropertyValues(KAFKA)
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    PipelineRuntime runtime = context.getBean(PipelineRuntime.class);
                    assertThat(TestPipelines.eventually(() -> runtime.state() == PipelineState.RUNNING
                                    && output.getAll().contains("ConsumerConfig values")))
                            .isTrue();
                    assertThat(context.getBean(KafkaSourceConfig.class).toString())
                            .doesNotContain("hunter2")
                            .contains("sasl.mechanism=SCRAM-SHA-512", "sasl.jaas.config=[redacted]");
                });
        assertThat(output.getAll())
                .contains("sasl.jaas.config = [hidden]", "pipeline=etl started")
                .doesNotContain("hunter2");
    }

    @Test
    void aClickHouseSinkThatCannotStartLogsNoPassword(CapturedOutput output) {
        this.runner
                .withUserConfiguration(TestPipelines.Chain.class)
                .withBean(MemorySource.class, MemorySource::create)
                .withPropertyValues(CLICKHOUSE)
                .run((context) -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining("ClickHouse shard 0")
                        .hasStackTraceContaining("127.0.0.1:9"));
        assertThat(output.getAll())
                .contains("ClickHouse shard 0", "127.0.0.1:9")
                .doesNotContain("hunter2");
    }

    @Test
    void aFailureQuotingAUrlWithUserInfoIsLoggedMasked(CapturedOutput output) {
        ChainFactory failing = (ctx) -> Chains.from(ctx, Deserializer.bytes())
                .<byte[]>map("lookup", (value) -> {
                    throw new IllegalStateException("lookup at https://svc:url-hunter2@customers.internal/v1 refused");
                })
                .sink(TestEncoders.bytes(), (value, meta, shards) -> 0);
        this.runner
                .withBean(MemorySource.class, MemorySource::create)
                .withBean(
                        "capture",
                        SinkDefinition.class,
                        () -> CaptureSink.create("capture", 1).definition())
                .withBean(ChainFactory.class, () -> failing)
                .run((context) -> {
                    PipelineRuntime runtime = context.getBean(PipelineRuntime.class);
                    MemorySource source = context.getBean(MemorySource.class);
                    assertThat(TestPipelines.eventually(() -> runtime.state() == PipelineState.RUNNING))
                            .isTrue();
                    source.handle().assign(0, 0);
                    source.handle().push(0, null, new byte[] {'x'});
                    assertThat(TestPipelines.eventually(() -> runtime.state() == PipelineState.FAILED))
                            .isTrue();
                });
        assertThat(output.getAll())
                .contains(
                        "https://svc:******@customers.internal/v1", "java.lang.IllegalStateException: lookup at", "at ")
                .doesNotContain("hunter2");
    }
}
