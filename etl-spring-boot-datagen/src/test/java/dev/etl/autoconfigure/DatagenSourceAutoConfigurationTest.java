package dev.etl.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.autoconfigure.avro.SchemaRegistryAutoConfiguration;
import dev.etl.autoconfigure.datagen.DatagenSourceAutoConfiguration;
import dev.etl.autoconfigure.kafka.KafkaSourceAutoConfiguration;
import dev.etl.datagen.AvroRecordGenerator;
import dev.etl.datagen.DatagenSource;
import dev.etl.datagen.RecordGenerator;
import dev.etl.kafka.KafkaSource;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.sink.SinkDefinition;
import dev.etl.source.Source;
import dev.etl.test.avro.StubSchemaRegistry;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.memory.MemorySource;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The YAML path of the load generator: etl.source.datagen.* in place of Kafka. */
class DatagenSourceAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    KafkaAutoConfiguration.class,
                    KafkaSourceAutoConfiguration.class,
                    DatagenSourceAutoConfiguration.class,
                    SchemaRegistryAutoConfiguration.class,
                    EtlAutoConfiguration.class))
            .withPropertyValues(TestPipelines.FAST)
            .withUserConfiguration(TestPipelines.Chain.class);

    @Test
    void datagenReplacesKafkaWithoutABrokerAndABoundedRunEndsWhenEverythingIsCommitted() {
        this.runner
                .withUserConfiguration(Capture.class, Generator.class)
                .withPropertyValues(
                        "etl.source.kafka.topics=orders",
                        "spring.kafka.bootstrap-servers=127.0.0.1:1",
                        "etl.pipeline.threads=3",
                        "etl.source.datagen.partitions=6",
                        "etl.source.datagen.records=3000",
                        "etl.source.datagen.when-done=close")
                .run((context) -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(KafkaSource.class);
                    DatagenSource source = context.getBean(DatagenSource.class);
                    assertThat(context.getBean(Source.class)).isSameAs(source);
                    CaptureSink sink = context.getBean(CaptureSink.class);
                    BoundedRunCompletion completion = context.getBean(BoundedRunCompletion.class);
                    ConfigurableApplicationContext real =
                            context.getSourceApplicationContext(ConfigurableApplicationContext.class);

                    assertThat(TestPipelines.eventually(() -> !real.isActive()))
                            .as("context closed when done")
                            .isTrue();
                    assertThat(source.isDone()).isTrue();
                    assertThat(TestPipelines.eventually(() -> completion.getExitCode() != null))
                            .isTrue();
                    assertThat(completion.getExitCode()).isZero();
                    assertThat(sink.script().rows()).isEqualTo(3000);
                    for (int p = 0; p < 6; p++) {
                        assertThat(source.committedOffset(p)).isEqualTo(500);
                    }
                });
    }

    @Test
    void anAvroSchemaWithARegistryIsRegisteredAndConfluentFramed() throws Exception {
        try (StubSchemaRegistry registry = StubSchemaRegistry.start()) {
            this.runner
                    .withUserConfiguration(Capture.class)
                    .withPropertyValues(
                            "etl.source.datagen.schema=classpath:order.avsc",
                            "etl.source.datagen.records=100",
                            "etl.source.datagen.topic=orders",
                            "etl.source.datagen.when-done=keep-running",
                            "etl.avro.registry.url=" + registry.url())
                    .run((context) -> {
                        assertThat(context).hasNotFailed();
                        DatagenSource source = context.getBean(DatagenSource.class);
                        assertThat(source.describe()).contains("avro[").contains("confluent id");
                        assertThat(TestPipelines.eventually(source::isDone)).isTrue();
                        byte[] first = firstValue(context.getBean(CaptureSink.class));
                        assertThat(first[0]).as("Confluent magic byte").isZero();
                        int id = ByteBuffer.wrap(first, 1, 4).getInt();
                        assertThat(registry.register(
                                        "orders-value",
                                        new org.apache.avro.Schema.Parser()
                                                .parse(getClass().getResourceAsStream("/order.avsc"))))
                                .as("registered under orders-value")
                                .isEqualTo(id);
                    });
        }
    }

    /** The first captured row's bytes: TestPipelines.Chain writes the value as one String column. */
    private static byte[] firstValue(CaptureSink sink) {
        byte[] row = sink.script().writes().get(0).bytes();
        int length = 0;
        int shift = 0;
        int p = 0;
        byte b;
        do {
            b = row[p++];
            length |= (b & 0x7F) << shift;
            shift += 7;
        } while ((b & 0x80) != 0);
        return java.util.Arrays.copyOfRange(row, p, p + length);
    }

    @Test
    void anAvroSchemaWithoutARegistryIsRawUnlessAnIdIsGiven() {
        this.runner
                .withUserConfiguration(Capture.class)
                .withPropertyValues(
                        "etl.source.datagen.schema=classpath:order.avsc",
                        "etl.source.datagen.seed=9",
                        "etl.source.datagen.when-done=keep-running",
                        "etl.source.datagen.key=none")
                .run((context) -> assertThat(
                                context.getBean(DatagenSource.class).describe())
                        .contains(", raw]")
                        .contains("seed 9")
                        .contains("unbounded"));
        this.runner
                .withUserConfiguration(Capture.class)
                .withPropertyValues(
                        "etl.source.datagen.schema=classpath:order.avsc",
                        "etl.source.datagen.schema-id=42",
                        "etl.source.datagen.when-done=keep-running")
                .run((context) -> assertThat(
                                context.getBean(DatagenSource.class).describe())
                        .contains("confluent id 42"));
    }

    @Test
    void confluentWithoutRegistryOrIdFailsNamingWhatToSet() {
        this.runner
                .withUserConfiguration(Capture.class)
                .withPropertyValues(
                        "etl.source.datagen.schema=classpath:order.avsc", "etl.source.datagen.encoding=confluent")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(InvalidEtlConfigurationException.class)
                        .hasMessageContaining("etl.source.datagen.encoding is confluent, but there is no schema id")
                        .hasMessageContaining("etl.avro.registry.url"));
    }

    @Test
    void nothingToGenerateFailsNamingTheProperties() {
        this.runner
                .withUserConfiguration(Capture.class)
                .withPropertyValues("etl.source.datagen.records=10")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("etl.source.datagen is configured but says nothing to generate")
                        .hasMessageContaining("etl.source.datagen.schema")
                        .hasMessageContaining("etl.source.datagen.generator"));
    }

    @Test
    void aGeneratorNamedByPropertyMustExist() {
        this.runner
                .withUserConfiguration(Capture.class, Generator.class)
                .withPropertyValues("etl.source.datagen.generator=missing")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining(
                                "etl.source.datagen.generator is 'missing', but there is no RecordGenerator bean"));
        this.runner
                .withUserConfiguration(Capture.class, Generator.class)
                .withPropertyValues("etl.source.datagen.generator=orders", "etl.source.datagen.when-done=keep-running")
                .run((context) -> assertThat(context).hasNotFailed().hasSingleBean(DatagenSource.class));
    }

    @Test
    void badValuesFailWhenBoundNamingTheProperty() {
        this.runner
                .withUserConfiguration(Capture.class, Generator.class)
                .withPropertyValues("etl.source.datagen.records=0")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining("etl.source.datagen.records must be >= 1"));
        this.runner
                .withUserConfiguration(Capture.class, Generator.class)
                .withPropertyValues(
                        "etl.source.datagen.schema=classpath:order.avsc", "etl.source.datagen.generator=orders")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining(
                                "etl.source.datagen.schema and etl.source.datagen.generator are exclusive"));
    }

    @Test
    void aMistypedDatagenPropertyFailsWithTheClosestName() {
        this.runner
                .withUserConfiguration(Capture.class, Generator.class)
                .withPropertyValues("etl.source.datagen.recrods=10")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .hasMessageContaining("did you mean etl.source.datagen.records?"));
    }

    @Test
    void aDatagenSettingWithoutEtlDatagenNamesTheMissingArtifact() {
        this.runner
                .withClassLoader(new FilteredClassLoader(DatagenSource.class))
                .withUserConfiguration(TestPipelines.SourceAndSink.class)
                .withPropertyValues("etl.source.datagen.records=10")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .isInstanceOf(InvalidEtlConfigurationException.class)
                        .hasMessageContaining("etl-datagen is not on the class path"));
    }

    @Test
    void aGeneratorBeanNeedsNoAvroAndASchemaWithoutAvroSaysWhatIsMissing() {
        this.runner
                .withClassLoader(new FilteredClassLoader(org.apache.avro.Schema.class))
                .withUserConfiguration(Capture.class, Generator.class)
                .withPropertyValues("etl.source.datagen.records=10", "etl.source.datagen.when-done=keep-running")
                .run((context) -> assertThat(context).hasNotFailed().hasSingleBean(DatagenSource.class));
        this.runner
                .withClassLoader(new FilteredClassLoader(org.apache.avro.Schema.class))
                .withUserConfiguration(Capture.class)
                .withPropertyValues("etl.source.datagen.schema=classpath:order.avsc")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("etl.source.datagen.schema is set, but Avro is not on the class path"));
    }

    @Test
    void withNeitherKafkaNorDatagenTheErrorNamesBoth() {
        this.runner.withUserConfiguration(Capture.class).run((context) -> {
            Throwable failure = assertThat(context).getFailure().rootCause().actual();
            assertThat(failure).isInstanceOf(PipelineAssemblyException.class).hasMessageContaining("has no source");
            assertThat(((PipelineAssemblyException) failure).getAction())
                    .contains("etl.source.kafka.topics")
                    .contains("etl.source.datagen.*");
        });
    }

    @Test
    void withoutDatagenPropertiesItBacksOff() {
        this.runner
                .withUserConfiguration(TestPipelines.SourceAndSink.class, Generator.class)
                .run((context) -> assertThat(context)
                        .hasNotFailed()
                        .doesNotHaveBean(DatagenSource.class)
                        .hasSingleBean(MemorySource.class));
    }

    @Test
    void aSourceOfTheApplicationsOwnWins() {
        this.runner
                .withUserConfiguration(TestPipelines.SourceAndSink.class, Generator.class)
                .withPropertyValues("etl.source.datagen.records=10")
                .run((context) -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(DatagenSource.class);
                    assertThat(context.getBean(Source.class)).isInstanceOf(MemorySource.class);
                    assertThat(context.getBean(PipelineRuntime.class)).isNotNull();
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class Capture {

        @Bean
        CaptureSink captureSink() {
            return CaptureSink.create("capture", 2);
        }

        @Bean
        SinkDefinition captureSinkDefinition(CaptureSink sink) {
            return sink.definition();
        }
    }

    // tag::generator-bean[]
    @Configuration(proxyBeanMethods = false)
    static class Generator {

        /** Used when etl.source.datagen.* is set without a schema (or named by etl.source.datagen.generator=orders). */
        @Bean
        RecordGenerator orders() {
            return (partition, sequence, random, out) -> {
                out.key().writeLongBE(out.id());
                out.value().writeUtf8("order-").writeUtf8(Long.toString(out.id()));
            };
        }
    }
    // end::generator-bean[]

    static {
        // AvroRecordGenerator is on this module's test class path (etl-datagen brings Avro optionally; etl-avro here)
        assertThat(AvroRecordGenerator.Encoding.values()).hasSize(3);
    }
}
