package dev.etl.autoconfigure.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.autoconfigure.EtlAutoConfiguration;
import dev.etl.deser.Deserializer;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.PipelineState;
import dev.etl.sink.SinkDefinition;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.capture.TestEncoders;
import dev.etl.test.memory.MemorySource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class EtlHealthContributorAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(EtlAutoConfiguration.class, EtlHealthContributorAutoConfiguration.class))
            .withPropertyValues(
                    "etl.checkpoint.interval=50ms",
                    "etl.pipeline.poll-timeout=20ms",
                    "etl.pipeline.exit-on-failure=false",
                    "etl.pipeline.close-on-failure=false")
            .withUserConfiguration(HealthTestBeans.class);

    @Test
    void registersEtlContributorWithLivenessAndReadinessMembers() {
        this.runner.run((context) -> {
            assertThat(context).hasBean("etlHealthContributor").hasSingleBean(EtlProbeGroupsPostProcessor.class);
            CompositeHealthContributor etl = context.getBean("etlHealthContributor", CompositeHealthContributor.class);
            assertThat(etl.getContributor("liveness")).isInstanceOf(EtlHealthIndicator.class);
            assertThat(etl.getContributor("readiness")).isInstanceOf(EtlHealthIndicator.class);
        });
    }

    @Test
    void backsOffWhenDisabled() {
        this.runner
                .withPropertyValues("management.health.etl.enabled=false")
                .run((context) -> assertThat(context)
                        .doesNotHaveBean("etlHealthContributor")
                        .doesNotHaveBean(EtlProbeGroupsPostProcessor.class));
    }

    @Test
    void backsOffWithoutPipeline() {
        this.runner
                .withPropertyValues("etl.pipeline.enabled=false")
                .run((context) -> assertThat(context).doesNotHaveBean("etlHealthContributor"));
    }

    @Test
    void userContributorWins() {
        this.runner
                .withBean("etlHealthContributor", HealthIndicator.class, () -> () -> null)
                .run((context) -> assertThat(context.getBean("etlHealthContributor"))
                        .isNotInstanceOf(CompositeHealthContributor.class));
    }

    @Test
    void readinessGoesUpWhenRunningAndBothGoDownWhenFailed() {
        this.runner.run((context) -> {
            CompositeHealthContributor etl = context.getBean("etlHealthContributor", CompositeHealthContributor.class);
            HealthIndicator liveness = (HealthIndicator) etl.getContributor("liveness");
            HealthIndicator readiness = (HealthIndicator) etl.getContributor("readiness");
            PipelineRuntime runtime = context.getBean(PipelineRuntime.class);
            assertThat(HealthTestBeans.eventually(
                            () -> readiness.health().getStatus().equals(Status.UP)))
                    .isTrue();
            assertThat(liveness.health().getStatus()).isEqualTo(Status.UP);
            assertThat(readiness.health().getDetails())
                    .containsEntry("state", "RUNNING")
                    .containsKeys("lanes", "watermarkAgeSeconds", "heldPartitions", "sinks", "inFlightBytes");

            context.getBean(CaptureSink.class).script().failNextPermanently(0, 1);
            MemorySource source = context.getBean(MemorySource.class);
            source.handle().assign(0, 0);
            source.handle().push(0, null, new byte[] {'x'});
            assertThat(HealthTestBeans.eventually(() -> runtime.state() == PipelineState.FAILED))
                    .isTrue();
            assertThat(liveness.health().getStatus()).isEqualTo(Status.DOWN);
            assertThat(readiness.health().getStatus()).isEqualTo(Status.DOWN);
            assertThat(liveness.health().getDetails())
                    .containsEntry("state", "FAILED")
                    .hasEntrySatisfying(
                            "failure",
                            (message) -> assertThat(message.toString()).contains("permanent write failure"));
        });
    }

    @Test
    void theFailureDetailCarriesNoSecret() {
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(EtlAutoConfiguration.class, EtlHealthContributorAutoConfiguration.class))
                .withPropertyValues(
                        "etl.checkpoint.interval=50ms",
                        "etl.pipeline.poll-timeout=20ms",
                        "etl.pipeline.exit-on-failure=false",
                        "etl.pipeline.close-on-failure=false")
                .withBean(MemorySource.class, MemorySource::create)
                .withBean(
                        "captureSinkDefinition",
                        SinkDefinition.class,
                        () -> CaptureSink.create("capture", 1).definition())
                .withBean(
                        ChainFactory.class,
                        () -> (ctx) -> Chains.from(ctx, Deserializer.bytes())
                                .<byte[]>map("lookup", (value) -> {
                                    throw new IllegalStateException(
                                            "lookup at https://svc:hunter2@customers.internal/v1 refused "
                                                    + "(password=hunter2)");
                                })
                                .sink(TestEncoders.bytes(), (value, meta, shards) -> 0))
                .run((context) -> {
                    CompositeHealthContributor etl =
                            context.getBean("etlHealthContributor", CompositeHealthContributor.class);
                    PipelineRuntime runtime = context.getBean(PipelineRuntime.class);
                    MemorySource source = context.getBean(MemorySource.class);
                    assertThat(HealthTestBeans.eventually(() -> runtime.state() == PipelineState.RUNNING))
                            .isTrue();
                    source.handle().assign(0, 0);
                    source.handle().push(0, null, new byte[] {'x'});
                    assertThat(HealthTestBeans.eventually(() -> runtime.state() == PipelineState.FAILED))
                            .isTrue();
                    Object failure = ((HealthIndicator) etl.getContributor("liveness"))
                            .health()
                            .getDetails()
                            .get("failure");
                    assertThat(String.valueOf(failure))
                            .doesNotContain("hunter2")
                            .contains("https://svc:******@customers.internal/v1", "password=******");
                });
    }

    @Test
    void drainingIsAliveButNotReady() {
        this.runner.run((context) -> {
            CompositeHealthContributor etl = context.getBean("etlHealthContributor", CompositeHealthContributor.class);
            PipelineRuntime runtime = context.getBean(PipelineRuntime.class);
            runtime.shutdown();
            assertThat(runtime.awaitTermination(java.time.Duration.ofSeconds(10)))
                    .isNotNull();
            assertThat(((HealthIndicator) etl.getContributor("liveness"))
                            .health()
                            .getStatus())
                    .isEqualTo(Status.UP);
            assertThat(((HealthIndicator) etl.getContributor("readiness"))
                            .health()
                            .getStatus())
                    .isEqualTo(Status.OUT_OF_SERVICE);
        });
    }
}
