package dev.etl.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.autoconfigure.avro.SchemaRegistryAutoConfiguration;
import dev.etl.autoconfigure.avro.SchemaRegistryConnectionDetails;
import dev.etl.autoconfigure.avro.clickhouse.AvroTranscoderAutoConfiguration;
import dev.etl.autoconfigure.clickhouse.ClickHouseConnectionDetails;
import dev.etl.autoconfigure.clickhouse.ClickHouseSinkAutoConfiguration;
import dev.etl.autoconfigure.clickhouse.ClickHouseSinkConfigCustomizer;
import dev.etl.autoconfigure.datagen.DatagenSourceAutoConfiguration;
import dev.etl.autoconfigure.json.JsonDeserializerAutoConfiguration;
import dev.etl.autoconfigure.kafka.KafkaDeadLetterAutoConfiguration;
import dev.etl.autoconfigure.kafka.KafkaSourceAutoConfiguration;
import dev.etl.autoconfigure.s3.S3BackfillAutoConfiguration;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.ClickHouseType;
import dev.etl.clickhouse.InsertFormat;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.error.ErrorPolicy;
import dev.etl.kafka.KafkaDeadLetterWriter;
import dev.etl.kafka.KafkaSource;
import dev.etl.kafka.KafkaSourceConfig;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.sink.BatchConfig;
import dev.etl.sink.RowBuffer;
import dev.etl.sink.SinkDefinition;
import dev.etl.source.Source;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.memory.MemorySource;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.kafka.autoconfigure.KafkaConnectionDetails;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Connector auto-configurations: conditions and back-offs. The pipeline is not auto-started here
 * (no broker or ClickHouse server is needed); the beans are inspected as built.
 */
class ConnectorAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    KafkaAutoConfiguration.class,
                    KafkaSourceAutoConfiguration.class,
                    KafkaDeadLetterAutoConfiguration.class,
                    ClickHouseSinkAutoConfiguration.class,
                    SchemaRegistryAutoConfiguration.class,
                    EtlAutoConfiguration.class))
            .withPropertyValues("etl.pipeline.exit-on-failure=false")
            .withUserConfiguration(TestPipelines.Chain.class, NotStarted.class);

    // Module boundaries: an application with only the connectors it uses

    @Test
    void kafkaToACustomSinkRunsWithoutTheClickHouseAndAvroModules() {
        this.runner
                .withClassLoader(new FilteredClassLoader(
                        dev.etl.clickhouse.ClickHouseSink.class,
                        dev.etl.avro.AvroDeserializer.class,
                        dev.etl.avro.SchemaRegistryClient.class))
                .withUserConfiguration(CaptureSinkOnly.class)
                .withPropertyValues("etl.source.kafka.topics=orders", "spring.kafka.bootstrap-servers=127.0.0.1:19092")
                .run((context) -> {
                    assertThat(context).hasNotFailed().hasSingleBean(KafkaSource.class);
                    assertThat(context)
                            .doesNotHaveBean(ClickHouseSinkAutoConfiguration.class)
                            .doesNotHaveBean(SchemaRegistryAutoConfiguration.class);
                    assertThat(context.getBean(PipelineRuntime.class)).isNotNull();
                });
    }

    @Test
    void theStarterAloneRunsKafkaAvroToClickHouseAndTheOptInConnectorsBackOff() {
        // The starter's class path: every auto-configuration the starter's jar lists, without etl-datagen,
        // etl-s3 (and so the AWS SDK) and etl-json, which an application adds when it uses them.
        this.runner
                .withConfiguration(AutoConfigurations.of(
                        DatagenSourceAutoConfiguration.class,
                        S3BackfillAutoConfiguration.class,
                        JsonDeserializerAutoConfiguration.class,
                        AvroTranscoderAutoConfiguration.class))
                .withClassLoader(new FilteredClassLoader(
                        dev.etl.datagen.DatagenSource.class,
                        dev.etl.s3.S3BackfillSource.class,
                        dev.etl.json.JsonDeserializer.class))
                .withUserConfiguration(Encoder.class)
                .withPropertyValues(
                        "etl.source.kafka.topics=orders",
                        "spring.kafka.bootstrap-servers=127.0.0.1:19092",
                        "etl.avro.registry.url=http://127.0.0.1:18081",
                        "etl.avro.registry.check-on-startup=false",
                        "etl.sink.clickhouse.table=orders",
                        "etl.sink.clickhouse.shards[0].replicas=http://127.0.0.1:18123")
                .run((context) -> {
                    assertThat(context)
                            .hasNotFailed()
                            .hasSingleBean(KafkaSource.class)
                            .hasSingleBean(SchemaRegistryClient.class)
                            .hasBean("etlClickHouseSink")
                            .doesNotHaveBean(DatagenSourceAutoConfiguration.class)
                            .doesNotHaveBean(S3BackfillAutoConfiguration.class)
                            .doesNotHaveBean(JsonDeserializerAutoConfiguration.class);
                    assertThat(context.getBean(PipelineRuntime.class)).isNotNull();
                });
    }

    @Test
    void aSettingOfAConnectorThatIsNotOnTheClassPathFailsNamingTheMissingArtifact() {
        this.runner
                .withClassLoader(new FilteredClassLoader(dev.etl.clickhouse.ClickHouseSink.class))
                .withUserConfiguration(CaptureSinkOnly.class)
                .withPropertyValues(
                        "etl.source.kafka.topics=orders",
                        "spring.kafka.bootstrap-servers=127.0.0.1:19092",
                        "etl.sink.clickhouse.table=orders")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .isInstanceOf(InvalidEtlConfigurationException.class)
                        .hasMessageContaining("etl.sink.clickhouse.table")
                        .hasMessageContaining("etl-clickhouse is not on the class path"));
    }

    // Kafka

    @Test
    void kafkaSourceLayersSpringKafkaThenConnectionDetailsThenEtlProperties() {
        this.runner
                .withUserConfiguration(CaptureSinkOnly.class)
                .withPropertyValues(
                        "etl.pipeline.name=orders",
                        "etl.source.kafka.topics=orders,refunds",
                        "spring.kafka.bootstrap-servers=127.0.0.1:19092",
                        "spring.kafka.consumer.max-poll-records=77",
                        "spring.kafka.consumer.auto-offset-reset=earliest",
                        "spring.kafka.properties[sasl.mechanism]=PLAIN",
                        "spring.kafka.security.protocol=SASL_SSL",
                        "etl.source.kafka.properties[max.poll.records]=500")
                .run((context) -> {
                    assertThat(context).hasSingleBean(KafkaSource.class);
                    assertThat(context.getBean(PipelineRuntime.class)).isNotNull();
                    KafkaSourceConfig config = context.getBean(KafkaSourceConfig.class);
                    Map<String, Object> consumer = config.consumerProperties();
                    assertThat(consumer)
                            .containsEntry("bootstrap.servers", "127.0.0.1:19092")
                            .containsEntry("max.poll.records", "500")
                            .containsEntry("auto.offset.reset", "earliest")
                            .containsEntry("sasl.mechanism", "PLAIN")
                            .containsEntry("security.protocol", "SASL_SSL")
                            .containsEntry("group.id", "orders")
                            .containsEntry("enable.auto.commit", false);
                    assertThat(String.valueOf(consumer.get("value.deserializer")))
                            .endsWith("ByteArrayDeserializer");
                    assertThat(config.topics()).containsExactly("orders", "refunds");
                });
    }

    @Test
    void kafkaSourceShipsThroughputDefaultsThatSpringKafkaPropertiesOverride() {
        this.runner
                .withUserConfiguration(CaptureSinkOnly.class)
                .withPropertyValues("etl.source.kafka.topics=orders", "spring.kafka.bootstrap-servers=127.0.0.1:19092")
                .run((context) -> assertThat(
                                context.getBean(KafkaSourceConfig.class).consumerProperties())
                        .containsEntry("max.poll.records", 5000)
                        .containsEntry("fetch.min.bytes", 65536)
                        .containsEntry("max.partition.fetch.bytes", 2097152));
        this.runner
                .withUserConfiguration(CaptureSinkOnly.class)
                .withPropertyValues(
                        "etl.source.kafka.topics=orders",
                        "spring.kafka.bootstrap-servers=127.0.0.1:19092",
                        "spring.kafka.consumer.max-poll-records=77",
                        "spring.kafka.consumer.fetch-min-size=1KB")
                .run((context) -> assertThat(
                                context.getBean(KafkaSourceConfig.class).consumerProperties())
                        .containsEntry("max.poll.records", 77)
                        .containsEntry("fetch.min.bytes", 1024)
                        .containsEntry("max.partition.fetch.bytes", 2097152));
    }

    @Test
    void kafkaSourceUsesTheGroupIdAndPatternWhenGiven() {
        this.runner
                .withUserConfiguration(CaptureSinkOnly.class)
                .withPropertyValues("etl.source.kafka.pattern=orders-.*", "spring.kafka.consumer.group-id=billing")
                .run((context) -> {
                    KafkaSourceConfig config = context.getBean(KafkaSourceConfig.class);
                    assertThat(config.groupId()).isEqualTo("billing");
                    assertThat(config.topicPattern().pattern()).isEqualTo("orders-.*");
                });
    }

    @Test
    void kafkaConnectionDetailsBeanWinsOverSpringKafkaProperties() {
        this.runner
                .withUserConfiguration(CaptureSinkOnly.class)
                .withPropertyValues("etl.source.kafka.topics=orders", "spring.kafka.bootstrap-servers=127.0.0.1:19092")
                .withBean(KafkaConnectionDetails.class, () -> () -> List.of("broker-a:9092", "broker-b:9092"))
                .run((context) -> assertThat(
                                context.getBean(KafkaSourceConfig.class).consumerProperties())
                        .containsEntry("bootstrap.servers", "broker-a:9092,broker-b:9092"));
    }

    @Test
    void kafkaSourceBacksOffWithoutTopicsOrPattern() {
        this.runner
                .withUserConfiguration(TestPipelines.SourceAndSink.class)
                .run((context) -> assertThat(context)
                        .doesNotHaveBean(KafkaSource.class)
                        .doesNotHaveBean(KafkaSourceConfig.class)
                        .hasSingleBean(MemorySource.class));
    }

    @Test
    void userSourceWinsOverKafkaSource() {
        this.runner
                .withUserConfiguration(TestPipelines.SourceAndSink.class)
                .withPropertyValues("etl.source.kafka.topics=orders")
                .run((context) -> {
                    assertThat(context).doesNotHaveBean(KafkaSource.class);
                    assertThat(context.getBean(Source.class)).isInstanceOf(MemorySource.class);
                });
    }

    // Kafka dead-letter topic

    @Test
    void deadLetterTopicCreatesTheDeadLetterSinkLayeringSpringKafkaThenEtlProperties() {
        this.runner
                .withUserConfiguration(TestPipelines.SourceAndSink.class)
                .withPropertyValues(
                        "etl.errors.dead-letter.topic=orders-dlq",
                        "etl.errors.stages.parse=dead-letter",
                        "etl.errors.dead-letter.send-timeout=7s",
                        "spring.kafka.bootstrap-servers=127.0.0.1:19092",
                        "spring.kafka.producer.compression-type=lz4",
                        "spring.kafka.security.protocol=SASL_SSL",
                        "etl.errors.dead-letter.properties[linger.ms]=5",
                        "etl.errors.dead-letter.check-topic=false",
                        "etl.errors.dead-letter.max-record-size=200KB")
                .run((context) -> {
                    assertThat(context).hasNotFailed().hasSingleBean(DeadLetterSinkDefinition.class);
                    SinkDefinition definition =
                            context.getBean(DeadLetterSinkDefinition.class).definition();
                    assertThat(definition.name()).isEqualTo("dead-letter");
                    assertThat(definition.shardCount()).isEqualTo(1);
                    try (KafkaDeadLetterWriter writer =
                            (KafkaDeadLetterWriter) definition.writers().apply(0)) {
                        assertThat(writer.topic()).isEqualTo("orders-dlq");
                        assertThat(writer.maxRecordBytes()).isEqualTo(200 * 1024);
                        assertThat(writer.producerProperties())
                                .containsEntry("bootstrap.servers", "127.0.0.1:19092")
                                .containsEntry("compression.type", "lz4")
                                .containsEntry("security.protocol", "SASL_SSL")
                                .containsEntry("linger.ms", "5")
                                .containsEntry("acks", "all")
                                .containsEntry("enable.idempotence", "true")
                                .containsEntry("max.block.ms", "7000");
                        assertThat(String.valueOf(writer.producerProperties().get("value.serializer")))
                                .endsWith("ByteArraySerializer");
                    }
                    assertThat(context.getBean(PipelineRuntime.class)).isNotNull();
                });
    }

    @Test
    void deadLetterProducerSettingsThatBreakTheGuaranteeAreRefusedNamingTheKey() {
        this.runner
                .withUserConfiguration(TestPipelines.SourceAndSink.class)
                .withPropertyValues(
                        "etl.errors.dead-letter.topic=orders-dlq",
                        "spring.kafka.bootstrap-servers=127.0.0.1:1",
                        "spring.kafka.producer.acks=1")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("dead-letter producer setting 'acks'"));
    }

    @Test
    void deadLetterPolicyWithoutTopicFailsStartupNamingTheKey() {
        this.runner
                .withUserConfiguration(TestPipelines.SourceAndSink.class)
                .withPropertyValues("etl.errors.stages.parse=dead-letter", "etl.errors.types.encode=DEAD_LETTER")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(PipelineAssemblyException.class)
                        .hasMessageContaining("etl.errors.stages.parse")
                        .hasMessageContaining("etl.errors.types.encode")
                        .hasMessageContaining("etl.errors.dead-letter.topic is not set"));
    }

    @Test
    void deadLetterDefaultsAreTheWritersOwn() {
        // etl.errors.dead-letter is bound in the core, which cannot see etl-kafka's constants
        EtlErrorsProperties.DeadLetter deadLetter = new EtlErrorsProperties().getDeadLetter();
        assertThat(deadLetter.getSendTimeout()).isEqualTo(dev.etl.kafka.KafkaDeadLetterWriter.DEFAULT_SEND_TIMEOUT);
        assertThat(deadLetter.getMaxRecordSize().toBytes())
                .isEqualTo(dev.etl.kafka.KafkaDeadLetterWriter.DEFAULT_MAX_RECORD_BYTES);
    }

    @Test
    void deadLetterPolicyUnderAotNamesTheFrozenCondition() {
        EtlErrorsProperties errors = new EtlErrorsProperties();
        errors.getStages().put("parse", ErrorPolicy.DEAD_LETTER);
        errors.getDeadLetter().setTopic("orders-dlq");
        PipelineConfig config = PipelineConfig.builder("orders").build();
        assertThatThrownBy(() -> EtlAutoConfiguration.requireNoDeadLetterPolicy(config, errors, true))
                .isInstanceOf(PipelineAssemblyException.class)
                .hasMessageContaining("Pipeline 'orders'")
                .hasMessageContaining("Spring AOT (spring.aot.enabled=true)")
                .hasMessageContaining("process-aot")
                .hasMessageNotContaining("is not set");
        errors.getDeadLetter().setTopic(null);
        assertThatThrownBy(() -> EtlAutoConfiguration.requireNoDeadLetterPolicy(config, errors, true))
                .hasMessageContaining("etl.errors.dead-letter.topic is not set");
        errors.getDeadLetter().setTopic("orders-dlq");
        assertThatThrownBy(() -> EtlAutoConfiguration.requireNoDeadLetterPolicy(config, errors, false))
                .hasMessageContaining("etl.errors.dead-letter.topic is set, but no dead-letter writer was created")
                .hasMessageNotContaining("is not set");
        errors.getStages().clear();
        EtlAutoConfiguration.requireNoDeadLetterPolicy(config, errors, true);
    }

    @Test
    void deadLetterIsRefusedForSinkAndSourceErrorTypes() {
        this.runner
                .withUserConfiguration(TestPipelines.SourceAndSink.class)
                .withPropertyValues(
                        "etl.errors.dead-letter.topic=orders-dlq",
                        "spring.kafka.bootstrap-servers=127.0.0.1:1",
                        "etl.errors.types.sink-permanent=dead-letter")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining("etl.errors.types.sink-permanent cannot be DEAD_LETTER"));
    }

    // ClickHouse

    @Test
    void clickHouseSinkFromProperties() {
        this.runner
                .withUserConfiguration(MemorySourceOnly.class, Encoder.class)
                .withPropertyValues(
                        "etl.sink.clickhouse.database=shop",
                        "etl.sink.clickhouse.table=orders_local",
                        "etl.sink.clickhouse.shards[0].replicas=http://127.0.0.1:18123,http://127.0.0.1:18124",
                        "etl.sink.clickhouse.shards[1].replicas=http://127.0.0.1:18125",
                        "etl.sink.clickhouse.username=etl",
                        "etl.sink.clickhouse.password=secret",
                        "etl.sink.clickhouse.queue-capacity=128",
                        "etl.sink.clickhouse.settings.insert_quorum=2",
                        "etl.sink.clickhouse.batch.max-rows=5000",
                        "etl.sink.clickhouse.retry.max-attempts=7",
                        "etl.sink.clickhouse.rejection-codes=1001,36",
                        "etl.sink.clickhouse.transport=http")
                .run((context) -> {
                    SinkDefinition sink = context.getBean("etlClickHouseSink", SinkDefinition.class);
                    assertThat(sink.name()).isEqualTo("clickhouse");
                    assertThat(sink.shardCount()).isEqualTo(2);
                    assertThat(sink.queueCapacity()).isEqualTo(128);
                    assertThat(sink.batch().maxRows()).isEqualTo(5000);
                    assertThat(sink.retry().maxAttempts()).isEqualTo(7);
                    ClickHouseSinkConfig config = context.getBean(ClickHouseSinkConfig.class);
                    assertThat(config.qualifiedTable()).isEqualTo("shop.orders_local");
                    assertThat(config.shards()).hasSize(2);
                    assertThat(config.user()).isEqualTo("etl");
                    assertThat(config.settings()).containsEntry("insert_quorum", "2");
                    assertThat(config.transport()).isEqualTo(ClickHouseSinkConfig.Transport.HTTP);
                    assertThat(config.rejectionCodes()).containsExactly(36, 1001);
                    assertThat(context).hasSingleBean(ClickHouseConnectionDetails.class);
                });
    }

    @Test
    void clickHouseSinkWithoutBatchSettingsGetsTheFastDefaults() {
        this.runner
                .withUserConfiguration(MemorySourceOnly.class, Encoder.class)
                .withPropertyValues(
                        "etl.sink.clickhouse.table=orders_local",
                        "etl.sink.clickhouse.shards[0].replicas=http://127.0.0.1:18123")
                .run((context) -> {
                    SinkDefinition sink = context.getBean("etlClickHouseSink", SinkDefinition.class);
                    // a million rows: under the server's max_insert_block_size (1,048,576), so a backlog's
                    // block is sized by the lane's memory share and the bytes, not by a row count
                    assertThat(sink.batch().maxRows()).isEqualTo(1_000_000).isLessThan(1_048_576);
                    assertThat(sink.batch()).isEqualTo(BatchConfig.DEFAULTS);
                    assertThat(context.getBean(ClickHouseSinkConfig.class).batch())
                            .isEqualTo(BatchConfig.DEFAULTS);
                });
    }

    @Test
    void clickHouseConnectionDetailsBeanWins() {
        this.runner
                .withUserConfiguration(MemorySourceOnly.class, Encoder.class)
                .withPropertyValues(
                        "etl.sink.clickhouse.table=orders_local",
                        "etl.sink.clickhouse.shards[0].replicas=http://127.0.0.1:18123")
                .withBean(ClickHouseConnectionDetails.class, () -> new ClickHouseConnectionDetails() {
                    @Override
                    public List<List<URI>> getShards() {
                        return List.of(
                                List.of(URI.create("http://ch-a:8123")),
                                List.of(URI.create("http://ch-b:8123")),
                                List.of(URI.create("http://ch-c:8123")));
                    }
                })
                .run((context) -> {
                    assertThat(context.getBean(ClickHouseSinkConfig.class).shards())
                            .hasSize(3);
                    assertThat(context.getBean("etlClickHouseSink", SinkDefinition.class)
                                    .shardCount())
                            .isEqualTo(3);
                });
    }

    @Test
    void clickHouseSinkConfigCustomizerIsApplied() {
        this.runner
                .withUserConfiguration(MemorySourceOnly.class, Encoder.class)
                .withPropertyValues(
                        "etl.sink.clickhouse.table=orders_local",
                        "etl.sink.clickhouse.shards[0].replicas=http://127.0.0.1:18123")
                .withBean(
                        ClickHouseSinkConfigCustomizer.class,
                        () -> (builder) -> builder.socketTimeout(Duration.ofSeconds(7)))
                .run((context) -> assertThat(
                                context.getBean(ClickHouseSinkConfig.class).socketTimeout())
                        .isEqualTo(Duration.ofSeconds(7)));
    }

    @Test
    void clickHouseValidationWithoutEncoderBeanFailsWithAction() {
        this.runner
                .withUserConfiguration(MemorySourceOnly.class)
                .withPropertyValues(
                        "etl.sink.clickhouse.table=orders_local",
                        "etl.sink.clickhouse.shards[0].replicas=http://127.0.0.1:18123")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(PipelineAssemblyException.class)
                        .hasMessageContaining("there is no RowBinaryEncoder bean"));
        this.runner
                .withUserConfiguration(MemorySourceOnly.class)
                .withPropertyValues(
                        "etl.sink.clickhouse.table=orders_local",
                        "etl.sink.clickhouse.validation=off",
                        "etl.sink.clickhouse.shards[0].replicas=http://127.0.0.1:18123")
                .run((context) -> assertThat(context).hasBean("etlClickHouseSink"));
    }

    @Test
    void clickHouseInsertFormatIsRowBinaryByDefaultAndNativeFromProperties() {
        this.runner
                .withUserConfiguration(MemorySourceOnly.class, Encoder.class)
                .withPropertyValues(
                        "etl.sink.clickhouse.table=orders_local",
                        "etl.sink.clickhouse.shards[0].replicas=http://127.0.0.1:18123")
                .run((context) -> assertThat(
                                context.getBean(ClickHouseSinkConfig.class).format())
                        .isEqualTo(ClickHouseSinkConfig.DEFAULT_FORMAT));
        this.runner
                .withUserConfiguration(MemorySourceOnly.class, Encoder.class)
                .withPropertyValues(
                        "etl.sink.clickhouse.table=orders_local",
                        "etl.sink.clickhouse.format=native",
                        "etl.sink.clickhouse.shards[0].replicas=http://127.0.0.1:18123")
                .run((context) -> {
                    assertThat(context.getBean(ClickHouseSinkConfig.class).format())
                            .isEqualTo(InsertFormat.NATIVE);
                    assertThat(context).hasBean("etlClickHouseSink");
                });
    }

    @Test
    void clickHouseNativeFormatRefusesAColumnItCannotSendNamingTheColumnAndTheProperty() {
        this.runner
                .withUserConfiguration(MemorySourceOnly.class)
                .withBean(
                        RowBinaryEncoder.class,
                        () -> RowBinaryEncoder.<String>builder()
                                .string("id", (s) -> s)
                                .column("state", new AggregateState(), (s) -> 1L)
                                .build())
                .withPropertyValues(
                        "etl.sink.clickhouse.table=orders_local",
                        "etl.sink.clickhouse.format=native",
                        "etl.sink.clickhouse.shards[0].replicas=http://127.0.0.1:18123")
                .run((context) -> {
                    assertThat(context)
                            .getFailure()
                            .rootCause()
                            .isInstanceOf(PipelineAssemblyException.class)
                            .hasMessageContaining("etl.sink.clickhouse.format=native")
                            .hasMessageContaining("column 'state' (AggregateFunction(uniq, UInt64)) cannot be sent");
                    PipelineAssemblyException ex =
                            (PipelineAssemblyException) findRootCause(context.getStartupFailure());
                    assertThat(ex.getAction()).contains("etl.sink.clickhouse.format=row-binary", "column 'state'");
                });
    }

    @Test
    void clickHouseNativeFormatWithoutEncoderBeanFailsWithAction() {
        this.runner
                .withUserConfiguration(MemorySourceOnly.class)
                .withPropertyValues(
                        "etl.sink.clickhouse.table=orders_local",
                        "etl.sink.clickhouse.validation=off",
                        "etl.sink.clickhouse.format=native",
                        "etl.sink.clickhouse.shards[0].replicas=http://127.0.0.1:18123")
                .run((context) -> {
                    assertThat(context)
                            .getFailure()
                            .rootCause()
                            .isInstanceOf(PipelineAssemblyException.class)
                            .hasMessageContaining("etl.sink.clickhouse.format=native")
                            .hasMessageContaining("needs the sink's columns");
                    PipelineAssemblyException ex =
                            (PipelineAssemblyException) findRootCause(context.getStartupFailure());
                    assertThat(ex.getAction())
                            .contains("RowBinaryEncoder as a @Bean", "etl.sink.clickhouse.format=row-binary");
                });
    }

    @Test
    void clickHouseUnknownInsertFormatFailsNamingTheProperty() {
        this.runner
                .withUserConfiguration(MemorySourceOnly.class, Encoder.class)
                .withPropertyValues(
                        "etl.sink.clickhouse.table=orders_local",
                        "etl.sink.clickhouse.format=parquet",
                        "etl.sink.clickhouse.shards[0].replicas=http://127.0.0.1:18123")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining("etl.sink.clickhouse.format")
                        .hasStackTraceContaining("parquet"));
    }

    @Test
    void clickHouseTransientRejectionCodeFailsNamingTheProperty() {
        this.runner
                .withUserConfiguration(MemorySourceOnly.class, Encoder.class)
                .withPropertyValues(
                        "etl.sink.clickhouse.table=orders_local",
                        "etl.sink.clickhouse.rejection-codes=395,252",
                        "etl.sink.clickhouse.shards[0].replicas=http://127.0.0.1:18123")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining("etl.sink.clickhouse.rejection-codes lists 252, a transient code"));
    }

    private static Throwable findRootCause(Throwable t) {
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t;
    }

    /** A user's own type that the Native path has no layout for. */
    static final class AggregateState implements ClickHouseType<Long> {

        @Override
        public String name() {
            return "AggregateFunction(uniq, UInt64)";
        }

        @Override
        public void write(Long value, RowBuffer out) {
            out.writeLongLE(value);
        }
    }

    @Test
    void clickHouseSinkBacksOffWithoutTable() {
        this.runner
                .withUserConfiguration(TestPipelines.SourceAndSink.class)
                .run((context) -> assertThat(context)
                        .doesNotHaveBean("etlClickHouseSink")
                        .doesNotHaveBean(ClickHouseConnectionDetails.class));
    }

    // Schema registry

    @Test
    void schemaRegistryClientFromProperties() {
        this.runner
                .withUserConfiguration(TestPipelines.SourceAndSink.class)
                .withPropertyValues(
                        "etl.avro.registry.url=http://127.0.0.1:18081/apis/ccompat/v7",
                        "etl.avro.registry.check-on-startup=false",
                        "etl.avro.registry.username=u",
                        "etl.avro.registry.password=p",
                        "etl.avro.reader-schema=classpath:order.avsc")
                .run((context) -> {
                    assertThat(context.getBean(SchemaRegistryClient.class).baseUrl())
                            .startsWith("http://127.0.0.1:18081/apis/ccompat/v7");
                    assertThat(context.getBean(SchemaRegistryConnectionDetails.class)
                                    .getUsername())
                            .isEqualTo("u");
                    assertThat(context.getBean("etlAvroReaderSchema", Schema.class)
                                    .getFullName())
                            .isEqualTo("com.example.Order");
                });
    }

    @Test
    void schemaRegistryConnectionDetailsBeanWins() {
        this.runner
                .withUserConfiguration(TestPipelines.SourceAndSink.class)
                .withPropertyValues(
                        "etl.avro.registry.url=http://127.0.0.1:18081", "etl.avro.registry.check-on-startup=false")
                .withBean(SchemaRegistryConnectionDetails.class, () -> () -> "http://registry.internal:8081")
                .run((context) -> assertThat(
                                context.getBean(SchemaRegistryClient.class).baseUrl())
                        .startsWith("http://registry.internal:8081"));
    }

    @Test
    void noSchemaRegistryClientWithoutUrl() {
        this.runner
                .withUserConfiguration(TestPipelines.SourceAndSink.class)
                .run((context) -> assertThat(context)
                        .doesNotHaveBean(SchemaRegistryClient.class)
                        .doesNotHaveBean(SchemaRegistryConnectionDetails.class));
    }

    @Configuration(proxyBeanMethods = false)
    static class NotStarted {

        @Bean
        EtlPipelineLifecycle notStartedLifecycle(PipelineRuntime runtime, ApplicationContext context) {
            return new EtlPipelineLifecycle(runtime, context, false, false, Duration.ofSeconds(30)) {
                @Override
                public boolean isAutoStartup() {
                    return false;
                }
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class CaptureSinkOnly {

        @Bean
        SinkDefinition capture() {
            return CaptureSink.create("capture", 1).definition();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class MemorySourceOnly {

        @Bean
        MemorySource memorySource() {
            return MemorySource.create();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Encoder {

        @Bean
        RowBinaryEncoder<String> rowEncoder() {
            return RowBinaryEncoder.<String>builder().string("value", (s) -> s).build();
        }
    }
}
