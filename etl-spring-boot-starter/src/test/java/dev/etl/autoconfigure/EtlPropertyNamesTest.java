package dev.etl.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.autoconfigure.clickhouse.EtlClickHouseProperties;
import dev.etl.autoconfigure.kafka.EtlKafkaProperties;
import dev.etl.autoconfigure.kafka.KafkaSourceAutoConfiguration;
import dev.etl.error.ErrorClass;
import dev.etl.error.ErrorPolicy;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.PipelineState;
import dev.etl.pipeline.RunReport;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;

/**
 * Unknown {@code etl.*} properties fail startup by name with the closest valid name (issue 12 item 4);
 * every relaxed form of a valid name, and free map keys, are accepted.
 */
@ExtendWith(OutputCaptureExtension.class)
class EtlPropertyNamesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(EtlAutoConfiguration.class))
            .withPropertyValues(TestPipelines.FAST)
            .withUserConfiguration(TestPipelines.SourceAndSink.class, TestPipelines.Chain.class);

    @Test
    void aTypoFailsStartupNamingTheKeyWhereItWasSetAndTheClosestValidOne() {
        this.runner.withPropertyValues("etl.pipeline.threadz=4").run((context) -> {
            assertThat(invalid(context.getStartupFailure()))
                    .hasMessageContaining("etl.pipeline.threadz")
                    .hasMessageContaining("did you mean etl.pipeline.threads?")
                    .hasMessageContaining("from \"etl.pipeline.threadz\" from property source");
            FailureAnalysis analysis = analyze(context.getStartupFailure());
            assertThat(analysis.getDescription())
                    .contains("etl.pipeline.threadz")
                    .contains("did you mean etl.pipeline.threads?");
            assertThat(analysis.getAction())
                    .contains("Correct or remove it")
                    .contains("docs/reference/configuration.md");
        });
    }

    @Test
    void everyUnknownKeyIsReportedWithItsOwnSuggestion() {
        this.runner
                .withPropertyValues(
                        "etl.sink.clickhouse.tabel=events",
                        "etl.errors.types.deserialisation=skip",
                        "etl.sink.clickhouse.shards[0].replica[0]=http://127.0.0.1:8123",
                        "etl.checkpoint.intervall=1s")
                .run((context) -> assertThat(invalid(context.getStartupFailure()))
                        .hasMessageContaining("etl.sink.clickhouse.tabel")
                        .hasMessageContaining("did you mean etl.sink.clickhouse.table?")
                        .hasMessageContaining("etl.errors.types.deserialisation")
                        .hasMessageContaining("did you mean etl.errors.types.deserialization?")
                        .hasMessageContaining("etl.sink.clickhouse.shards[0].replica[0]")
                        .hasMessageContaining("did you mean etl.sink.clickhouse.shards[].replicas?")
                        .hasMessageContaining("etl.checkpoint.intervall")
                        .hasMessageContaining("did you mean etl.checkpoint.interval?"));
    }

    @Test
    void relaxedFormsListsAndFreeMapKeysAreAccepted() {
        this.runner
                .withPropertyValues(
                        "etl.pipeline.ioThreads=2",
                        "etl.checkpoint.stalled_fail_after=7s",
                        "etl.backpressure.max-in-flight-bytes=64MB",
                        "etl.source.kafka.topics[0]=orders",
                        "etl.source.kafka.properties.max.poll.records=5",
                        "etl.source.kafka.properties[fetch.min.bytes]=1",
                        "etl.sink.clickhouse.settings.max_insert_threads=2",
                        "etl.metrics.tags.env=prod",
                        "etl.sink.clickhouse.shards[0].replicas[0]=http://127.0.0.1:8123",
                        "etl.errors.types.sink-permanent=skip",
                        "etl.errors.types[SINK_TRANSIENT]=fail",
                        "etl.errors.types.deserialization=skip",
                        "etl.errors.stages.deserialize=skip",
                        "etl.errors.dead-letter.properties.linger.ms=5")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(EtlPipelineProperties.class).getIoThreads())
                            .isEqualTo(2);
                    assertThat(context.getBean(EtlCheckpointProperties.class).getStalledFailAfter())
                            .isEqualTo(Duration.ofSeconds(7));
                    EtlErrorsProperties errors = context.getBean(EtlErrorsProperties.class);
                    Binder binder = Binder.get(context.getEnvironment());
                    EtlKafkaProperties kafka = binder.bind("etl.source.kafka", EtlKafkaProperties.class)
                            .get();
                    EtlClickHouseProperties clickHouse = binder.bind(
                                    "etl.sink.clickhouse", EtlClickHouseProperties.class)
                            .get();
                    assertThat(kafka.getProperties())
                            .containsEntry("max.poll.records", "5")
                            .containsEntry("fetch.min.bytes", "1");
                    assertThat(clickHouse.getSettings()).containsEntry("max_insert_threads", "2");
                    assertThat(clickHouse.getShards()).hasSize(1);
                    assertThat(errors.getTypes())
                            .containsEntry(ErrorClass.SINK_PERMANENT, ErrorPolicy.SKIP)
                            .containsEntry(ErrorClass.SINK_TRANSIENT, ErrorPolicy.FAIL);
                    assertThat(errors.getStages()).containsEntry("deserialize", ErrorPolicy.SKIP);
                    assertThat(errors.getDeadLetter().getProperties()).containsEntry("linger.ms", "5");
                });
    }

    @Test
    void environmentVariablesAreAcceptedInTheirFormAndANearMissFails(CapturedOutput output) {
        Map<String, Object> variables = new HashMap<>(System.getenv());
        variables.put("ETL_PIPELINE_IOTHREADS", "3");
        variables.put("ETL_SOURCE_KAFKA_TOPICS_0", "orders");
        variables.put("ETL_SINK_CLICKHOUSE_SHARDS_0_REPLICAS_0", "http://127.0.0.1:8123");
        variables.put("ETL_SERVICE_PORT", "8080"); // what Kubernetes adds for a service named "etl"
        this.runner
                .withInitializer((context) -> replaceEnvironment(context, variables))
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(EtlPipelineProperties.class).getIoThreads())
                            .isEqualTo(3);
                    Binder binder = Binder.get(context.getEnvironment());
                    assertThat(binder.bind("etl.source.kafka", EtlKafkaProperties.class)
                                    .get()
                                    .getTopics())
                            .containsExactly("orders");
                    assertThat(binder.bind("etl.sink.clickhouse", EtlClickHouseProperties.class)
                                    .get()
                                    .getShards()
                                    .get(0)
                                    .getReplicas())
                            .hasSize(1);
                });
        assertThat(output)
                .contains(
                        "Ignoring an environment variable or system property that binds to no etl.* property: etl.service.port");

        variables.put("ETL_PIPELINE_THREDS", "4");
        this.runner
                .withInitializer((context) -> replaceEnvironment(context, variables))
                .run((context) -> assertThat(invalid(context.getStartupFailure()))
                        .hasMessageContaining("etl.pipeline.threds")
                        .hasMessageContaining("ETL_PIPELINE_THREDS")
                        .hasMessageContaining("did you mean etl.pipeline.threads? (as an environment variable: "
                                + "ETL_PIPELINE_THREADS)"));
    }

    @Test
    void anEnvironmentVariableTheConfigurationReadsAsAPlaceholderIsTheApplicationsOwn(CapturedOutput output) {
        Map<String, Object> variables = new HashMap<>(System.getenv());
        variables.put("ETL_THREADS", "3"); // the sample's: threads: ${ETL_THREADS:2}
        variables.put("ETL_PIPELINE_THREDS", "4"); // a near miss of etl.pipeline.threads, but read on purpose
        this.runner
                .withPropertyValues(
                        "etl.pipeline.threads=${ETL_THREADS:2}", "etl.pipeline.io-threads=${ETL_PIPELINE_THREDS}")
                .withInitializer((context) -> replaceEnvironment(context, variables))
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    EtlPipelineProperties pipeline = context.getBean(EtlPipelineProperties.class);
                    assertThat(pipeline.getThreads()).isEqualTo(3);
                    assertThat(pipeline.getIoThreads()).isEqualTo(4);
                });
        assertThat(output).doesNotContain("etl.threads").doesNotContain("etl.pipeline.threds");
    }

    @Test
    void aSystemPropertyOfSomeOtherToolIsOnlyWarnedAbout(CapturedOutput output) {
        this.runner
                .withSystemProperties("etl.infra.dir=/tmp/elsewhere")
                .run((context) -> assertThat(context).hasNotFailed());
        assertThat(output).contains("binds to no etl.* property: etl.infra.dir");
        this.runner
                .withSystemProperties("etl.pipeline.thread=2")
                .run((context) -> assertThat(invalid(context.getStartupFailure()))
                        .hasMessageContaining("did you mean etl.pipeline.threads?"));
    }

    @Test
    void everyPropertyOfTheEtlPropertiesClassesIsAValidName() {
        // derived from the auto-configurations on the class path: no list of connectors
        EtlPropertyNames.Schema schema =
                EtlPropertyNames.schema(new DefaultListableBeanFactory(), EtlPropertyNames.class.getClassLoader());
        assertThat(schema.missing()).isEmpty();
        assertThat(EtlPropertyNames.validNames(schema.root()))
                .contains(
                        "etl.pipeline.threads",
                        "etl.pipeline.io-threads",
                        "etl.sink.clickhouse.shards[].replicas",
                        "etl.sink.clickhouse.chunk.max-rows",
                        "etl.errors.types.sink-permanent",
                        "etl.errors.stages",
                        "etl.source.kafka.properties",
                        "etl.errors.dead-letter.send-timeout",
                        "etl.metrics.tags",
                        "etl.checkpoint.drain-timeout",
                        "etl.backpressure.pause-above",
                        "etl.avro.registry.url",
                        "etl.json.fail-on-unknown-properties",
                        "etl.source.datagen.when-done",
                        "etl.source.s3.when-done");
    }

    @Test
    void aMisspeltFirstSegmentIsCaught() {
        this.runner
                .withPropertyValues("etl.pipline.threads=4")
                .run((context) -> assertThat(invalid(context.getStartupFailure()))
                        .hasMessageContaining("etl.pipline.threads")
                        .hasMessageContaining("did you mean etl.pipeline.threads?"));
    }

    @Test
    void aPropertiesClassOfTheApplicationUnderEtlIsAccepted() {
        this.runner
                .withUserConfiguration(OwnProperties.class)
                .withPropertyValues("etl.own.greeting=hello")
                .run((context) -> assertThat(context).hasNotFailed());
        this.runner
                .withUserConfiguration(OwnProperties.class)
                .withPropertyValues("etl.own.greting=hello")
                .run((context) -> assertThat(invalid(context.getStartupFailure()))
                        .hasMessageContaining("did you mean etl.own.greeting?"));
    }

    @org.springframework.boot.context.properties.EnableConfigurationProperties(Own.class)
    static class OwnProperties {}

    /**
     * {@code @ConfigurationProperties("etl.own")} through a composed annotation, which the configuration
     * metadata processor does not see: the module's metadata (the configuration reference) stays the
     * product's own.
     */
    @java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
    @java.lang.annotation.Target(java.lang.annotation.ElementType.TYPE)
    @org.springframework.boot.context.properties.ConfigurationProperties("etl.own")
    @interface OwnPrefix {}

    @OwnPrefix
    static class Own {

        private String greeting;

        public String getGreeting() {
            return this.greeting;
        }

        public void setGreeting(String greeting) {
            this.greeting = greeting;
        }
    }

    @Test
    void anUnknownStageNameFailsThePipelineNamingTheKnownStages() {
        this.runner
                .withPropertyValues("etl.pipeline.close-on-failure=false", "etl.errors.stages.deserialise=skip")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    RunReport report = context.getBean(PipelineRuntime.class).awaitTermination(Duration.ofSeconds(20));
                    assertThat(report).as("the pipeline ended").isNotNull();
                    assertThat(report.state()).isEqualTo(PipelineState.FAILED);
                    assertThat(report.failure())
                            .hasMessageContaining("etl.errors.stages.deserialise")
                            .hasMessageContaining("did you mean 'deserialize'?")
                            .hasMessageContaining("stages with an error policy are [deserialize");
                });
    }

    @Test
    void kafkaAutoCommitIsRefusedNotSilentlyOverridden() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        KafkaAutoConfiguration.class, KafkaSourceAutoConfiguration.class, EtlAutoConfiguration.class))
                .withPropertyValues(TestPipelines.FAST)
                .withPropertyValues(
                        "etl.source.kafka.topics=orders",
                        "spring.kafka.bootstrap-servers=127.0.0.1:1",
                        "spring.kafka.consumer.enable-auto-commit=true")
                .withUserConfiguration(TestPipelines.Chain.class, ConnectorAutoConfigurationTest.CaptureSinkOnly.class)
                .run((context) -> {
                    assertThat(invalid(context.getStartupFailure()))
                            .hasMessageContaining("spring.kafka.consumer.enable-auto-commit")
                            .hasMessageContaining("is true");
                    assertThat(analyze(context.getStartupFailure()).getAction()).contains("enable.auto.commit=false");
                });
    }

    /** The startup failure's InvalidEtlConfigurationException (the failure itself or a cause). */
    private static InvalidEtlConfigurationException invalid(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof InvalidEtlConfigurationException invalid) {
                return invalid;
            }
        }
        throw new AssertionError("startup did not fail with InvalidEtlConfigurationException: " + failure, failure);
    }

    private static void replaceEnvironment(ConfigurableApplicationContext context, Map<String, Object> variables) {
        context.getEnvironment()
                .getPropertySources()
                .replace(
                        StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                        new SystemEnvironmentPropertySource(
                                StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, variables));
    }

    /** Through the analyzers registered in META-INF/spring.factories, as Spring Boot finds them. */
    private static FailureAnalysis analyze(Throwable failure) {
        ArgumentResolver arguments = ArgumentResolver.of(Environment.class, new StandardEnvironment());
        for (FailureAnalyzer analyzer : SpringFactoriesLoader.forDefaultResourceLocation()
                .load(
                        FailureAnalyzer.class,
                        arguments,
                        SpringFactoriesLoader.FailureHandler.handleMessage((message, ex) -> {}))) {
            FailureAnalysis analysis = analyzer.analyze(failure);
            if (analysis != null) {
                return analysis;
            }
        }
        throw new AssertionError("no failure analysis for " + failure);
    }
}
