package dev.etl.autoconfigure.s3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.autoconfigure.BoundedRunCompletion;
import dev.etl.autoconfigure.EtlAutoConfiguration;
import dev.etl.autoconfigure.InvalidEtlConfigurationException;
import dev.etl.autoconfigure.actuate.EtlSecretsSanitizingFunction;
import dev.etl.autoconfigure.kafka.KafkaSourceAutoConfiguration;
import dev.etl.deser.Deserializer;
import dev.etl.kafka.KafkaSource;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.s3.BackfillPlanner;
import dev.etl.s3.ObjectInfo;
import dev.etl.s3.ObjectStore;
import dev.etl.s3.S3BackfillSource;
import dev.etl.s3.S3ObjectStore;
import dev.etl.sink.SinkDefinition;
import dev.etl.source.Source;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.capture.TestEncoders;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.actuate.context.properties.ConfigurationPropertiesReportEndpoint;
import org.springframework.boot.actuate.context.properties.ConfigurationPropertiesReportEndpoint.ConfigurationPropertiesBeanDescriptor;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.context.event.ApplicationFailedEvent;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.StandardEnvironment;

/**
 * The YAML path of the backfill: any {@code etl.source.s3.*} in place of the Kafka source, its defaults,
 * its validation, its secret, and the modes. No server is involved: the Kafka bootstrap address refuses
 * connections and the clients give up within a second, so what would talk to a broker (the planner, the
 * work list's extent when the pipeline starts) fails fast and says so. {@code StarterBackfillIT} runs the
 * same configuration against Kafka, S3Proxy and ClickHouse.
 */
@ExtendWith(OutputCaptureExtension.class)
class S3BackfillAutoConfigurationTest {

    /** Fast timings, no System.exit, no signal handlers; a broker address nothing listens on. */
    private static final String[] BASE = {
        "spring.application.name=orders",
        "spring.kafka.bootstrap-servers=127.0.0.1:1",
        "etl.source.kafka.properties.request.timeout.ms=500",
        "etl.source.kafka.properties.default.api.timeout.ms=1000",
        "etl.checkpoint.interval=50ms",
        "etl.pipeline.poll-timeout=20ms",
        "etl.checkpoint.drain-timeout=5s",
        "etl.pipeline.exit-on-failure=false",
        "etl.pipeline.close-on-failure=false",
        "etl.pipeline.handle-signals=false"
    };

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    KafkaAutoConfiguration.class,
                    KafkaSourceAutoConfiguration.class,
                    S3BackfillAutoConfiguration.class,
                    EtlAutoConfiguration.class))
            .withPropertyValues(BASE)
            .withUserConfiguration(Pipeline.class);

    @Test
    void anyS3PropertyReplacesTheKafkaSourceWithTheBackfill() {
        this.runner
                .withPropertyValues(
                        "etl.source.kafka.topics=orders",
                        "etl.source.s3.bucket=archive",
                        "etl.source.s3.when-done=close")
                .run((context) -> {
                    assertThat(context)
                            .hasNotFailed()
                            .doesNotHaveBean(KafkaSource.class)
                            .hasSingleBean(S3ObjectStore.class)
                            .hasSingleBean(BackfillPlanner.class)
                            .hasSingleBean(BoundedRunCompletion.class)
                            .doesNotHaveBean(ApplicationRunner.class);
                    S3BackfillSource source = context.getBean(S3BackfillSource.class);
                    assertThat(context.getBean(Source.class)).isSameAs(source);
                    assertThat(context.getBean(PipelineRuntime.class)).isNotNull();
                });
    }

    @Test
    void withoutS3PropertiesItBacksOff() {
        this.runner
                .withPropertyValues("etl.source.kafka.topics=orders")
                .run((context) -> assertThat(context)
                        .hasNotFailed()
                        .hasSingleBean(KafkaSource.class)
                        .doesNotHaveBean(S3BackfillSource.class)
                        .doesNotHaveBean(BackfillPlanner.class)
                        .doesNotHaveBean(ObjectStore.class)
                        .doesNotHaveBean(EtlS3Properties.class));
    }

    @Test
    void workTopicAndGroupDefaultToThePipelineAndTheRowsReportTheOnlyKafkaTopic() {
        this.runner
                .withPropertyValues("etl.source.kafka.topics=orders-v2", "etl.source.s3.bucket=archive")
                .run((context) -> assertThat(
                                context.getBean(S3BackfillSource.class).describe())
                        .contains("work=orders-backfill-work ", "group=orders-backfill ", "topic=orders-v2]"));
        this.runner
                .withPropertyValues(
                        "etl.pipeline.name=shop",
                        "etl.source.kafka.topics=orders-v2",
                        "etl.source.s3.bucket=archive",
                        "etl.source.s3.work-topic=replay-2026",
                        "etl.source.s3.group-id=replayers",
                        "etl.source.s3.topic=orders-v1")
                .run((context) -> assertThat(
                                context.getBean(S3BackfillSource.class).describe())
                        .contains("work=replay-2026 ", "group=replayers ", "topic=orders-v1]"));
        this.runner
                .withPropertyValues("etl.pipeline.name=shop", "etl.source.s3.bucket=archive")
                .run((context) -> assertThat(
                                context.getBean(S3BackfillSource.class).describe())
                        .as("no Kafka topic: the rows report the work topic")
                        .contains("work=shop-backfill-work ", "group=shop-backfill ", "topic=shop-backfill-work]"));
    }

    @Test
    void withSeveralKafkaTopicsTheRowsReportTheWorkTopicUnlessATopicIsNamed() {
        this.runner
                .withPropertyValues("etl.source.kafka.topics=orders,refunds", "etl.source.s3.bucket=archive")
                .run((context) -> assertThat(
                                context.getBean(S3BackfillSource.class).describe())
                        .contains("topic=orders-backfill-work]"));
    }

    @Test
    void theGroupIsTheBackfillsEvenWhenSpringKafkaNamesOne() {
        this.runner
                .withPropertyValues(
                        "spring.kafka.consumer.group-id=orders-etl",
                        "etl.source.kafka.topics=orders",
                        "etl.source.s3.bucket=archive")
                .run((context) -> assertThat(
                                context.getBean(S3BackfillSource.class).describe())
                        .contains("group=orders-backfill "));
    }

    @Test
    void aMissingBucketFailsNamingTheProperty() {
        this.runner
                .withPropertyValues("etl.source.s3.prefix=orders/")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining("etl.source.s3.bucket is required for a backfill"));
    }

    @Test
    void anAccessKeyWithoutASecretKeyFailsNamingBoth() {
        this.runner
                .withPropertyValues("etl.source.s3.bucket=archive", "etl.source.s3.access-key=etl-local")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining("etl.source.s3.access-key and etl.source.s3.secret-key go together"));
    }

    @Test
    void keysAndAPrefixAreExclusive() {
        this.runner
                .withPropertyValues(
                        "etl.source.s3.bucket=archive",
                        "etl.source.s3.prefix=orders/",
                        "etl.source.s3.keys=orders/a.avro,orders/b.avro")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining("etl.source.s3.keys and etl.source.s3.prefix are exclusive"));
    }

    @Test
    void aReadAheadSmallerThanASegmentFails() {
        this.runner
                .withPropertyValues(
                        "etl.source.s3.bucket=archive",
                        "etl.source.s3.read-ahead=512KB",
                        "etl.source.s3.segment-size=1MB")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining(
                                "etl.source.s3.read-ahead must be at least etl.source.s3.segment-size"));
    }

    @Test
    void aCorruptRatioOutsideZeroToOneFails() {
        for (String ratio : List.of("1.5", "-0.1", "NaN")) {
            this.runner
                    .withPropertyValues("etl.source.s3.bucket=archive", "etl.source.s3.max-corrupt-ratio=" + ratio)
                    .run((context) -> assertThat(context)
                            .as(ratio)
                            .getFailure()
                            .hasStackTraceContaining("etl.source.s3.max-corrupt-ratio must be in [0, 1]"));
        }
    }

    @Test
    void nonPositiveSizesFailNamingTheProperties() {
        this.runner
                .withPropertyValues("etl.source.s3.bucket=archive", "etl.source.s3.work-topic-partitions=0")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining("etl.source.s3.work-topic-partitions"));
        this.runner
                .withPropertyValues("etl.source.s3.bucket=archive", "etl.source.s3.split-size=0B")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining("etl.source.s3.split-size must be positive"));
    }

    @Test
    void anUnknownFormatFailsNamingTheKnownOnes() {
        this.runner
                .withPropertyValues("etl.source.s3.bucket=archive", "etl.source.s3.format=orc")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(InvalidEtlConfigurationException.class)
                        .hasMessageContaining("etl.source.s3.format is 'orc', but no backfill format has that name")
                        .hasMessageContaining("avro")
                        .hasMessageContaining("ndjson"));
        this.runner
                .withPropertyValues("etl.source.s3.bucket=archive", "etl.source.s3.format=ndjson")
                .run((context) -> assertThat(context).hasNotFailed().hasSingleBean(BackfillPlanner.class));
    }

    @Test
    void aMistypedS3PropertyFailsWithTheClosestName() {
        this.runner
                .withPropertyValues("etl.source.s3.bucket=archive", "etl.source.s3.read-ahaed=8MB")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .hasMessageContaining("did you mean etl.source.s3.read-ahead?"));
    }

    @Test
    void anS3SettingWithoutEtlS3NamesTheMissingArtifact() {
        this.runner
                .withClassLoader(new FilteredClassLoader(S3BackfillSource.class))
                .withPropertyValues("etl.source.kafka.topics=orders", "etl.source.s3.bucket=archive")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .isInstanceOf(InvalidEtlConfigurationException.class)
                        .hasMessageContaining("etl-s3 is not on the class path"));
    }

    @Test
    void theSecretKeyIsInNoLogDescriptionOrConfigpropsValue(CapturedOutput output) {
        this.runner
                .withPropertyValues(
                        "etl.source.kafka.topics=orders",
                        "etl.source.s3.bucket=archive",
                        "etl.source.s3.endpoint=http://127.0.0.1:1",
                        "etl.source.s3.path-style=true",
                        "etl.source.s3.access-key=etl-local",
                        "etl.source.s3.secret-key=s3-hunter2")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    S3BackfillSource source = context.getBean(S3BackfillSource.class);
                    // the pipeline starts, and fails: the work list's extent cannot be read
                    assertThat(eventually(() -> output.getAll().contains("cannot read the work topic")))
                            .as("the pipeline tried the work topic")
                            .isTrue();
                    assertThat(source.describe()).contains("s3[").doesNotContain("hunter2");
                    assertThat(context.getBean(EtlS3Properties.class).toString())
                            .contains("s3://archive/")
                            .doesNotContain("hunter2");
                    assertThat(context.getBean(S3ObjectStore.class).describe()).doesNotContain("hunter2");
                    assertThat(context.toString()).doesNotContain("hunter2");

                    ConfigurationPropertiesReportEndpoint endpoint = new ConfigurationPropertiesReportEndpoint(
                            List.of(new EtlSecretsSanitizingFunction()), Show.ALWAYS);
                    endpoint.setApplicationContext(context);
                    ConfigurationPropertiesBeanDescriptor s3 = endpoint.configurationPropertiesWithPrefix(
                                    "etl.source.s3")
                            .getContexts()
                            .values()
                            .iterator()
                            .next()
                            .getBeans()
                            .values()
                            .iterator()
                            .next();
                    assertThat(s3.getPrefix()).isEqualTo("etl.source.s3");
                    assertThat(s3.getProperties())
                            .containsEntry("secretKey", "******")
                            .containsEntry("accessKey", "etl-local")
                            .containsEntry("bucket", "archive");
                    assertThat(String.valueOf(s3.getInputs()))
                            .contains("******")
                            .doesNotContain("hunter2");
                });
        assertThat(output.getAll()).contains("etl.source.s3 is set").doesNotContain("hunter2");
    }

    @Test
    void anApplicationsOwnObjectStoreIsUsedInsteadOfS3() {
        this.runner
                .withUserConfiguration(OwnStore.class)
                .withPropertyValues("etl.source.kafka.topics=orders", "etl.source.s3.bucket=archive")
                .run((context) -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(S3ObjectStore.class);
                    assertThat(context.getBean(ObjectStore.class)).isInstanceOf(FixedStore.class);
                    assertThat(context.getBean(S3BackfillSource.class).describe())
                            .contains("store=fixed-store ");
                });
    }

    @Test
    void modeRunReadsWithoutPlanningAndFailsNamingTheWorkTopicWhenItCannotBeRead(CapturedOutput output) {
        this.runner
                .withUserConfiguration(OwnStore.class)
                .withPropertyValues("etl.source.kafka.topics=orders", "etl.source.s3.bucket=archive")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertThat(eventually(
                                    () -> output.getAll().contains("cannot read the work topic orders-backfill-work")))
                            .isTrue();
                    assertThat(context.getBean(FixedStore.class).listed)
                            .as("mode run lists nothing")
                            .isEmpty();
                });
        assertThat(output.getAll()).doesNotContain("backfill planner");
    }

    @Test
    void modePlanAndRunPlansWhenTheSourceIsCreatedBeforeThePipelineStarts() {
        this.runner
                .withUserConfiguration(OwnStore.class)
                .withPropertyValues(
                        "etl.source.kafka.topics=orders",
                        "etl.source.s3.bucket=archive",
                        "etl.source.s3.mode=plan-and-run")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining("etlS3BackfillSource")
                        .hasStackTraceContaining("cannot read the work topic orders-backfill-work"));
    }

    @Test
    void modePlanTurnsThePipelineAndTheWebServerOff() {
        StandardEnvironment environment = new StandardEnvironment();
        new BackfillPlanModePostProcessor().postProcessEnvironment(environment, new SpringApplication());
        assertThat(environment.getProperty("etl.pipeline.enabled"))
                .as("without mode plan")
                .isNull();

        for (String mode : List.of("plan", "PLAN", " plan ")) {
            StandardEnvironment planning = new StandardEnvironment();
            planning.getPropertySources()
                    .addLast(new org.springframework.core.env.MapPropertySource(
                            "test", Map.of("etl.source.s3.mode", mode, "etl.pipeline.enabled", "true")));
            new BackfillPlanModePostProcessor().postProcessEnvironment(planning, new SpringApplication());
            assertThat(planning.getProperty("etl.pipeline.enabled")).as(mode).isEqualTo("false");
            assertThat(planning.getProperty("spring.main.web-application-type")).isEqualTo("none");
        }
        StandardEnvironment running = new StandardEnvironment();
        running.getPropertySources()
                .addLast(new org.springframework.core.env.MapPropertySource(
                        "test", Map.of("etl.source.s3.mode", "plan-and-run")));
        new BackfillPlanModePostProcessor().postProcessEnvironment(running, new SpringApplication());
        assertThat(running.getProperty("etl.pipeline.enabled")).isNull();
    }

    @Test
    void modePlanRegistersThePlanRunnerAndNoPipeline() {
        // as BackfillPlanModePostProcessor leaves the environment (the runner does not apply it)
        this.runner
                .withPropertyValues(
                        "etl.source.kafka.topics=orders",
                        "etl.source.s3.bucket=archive",
                        "etl.source.s3.mode=plan",
                        "etl.pipeline.enabled=false")
                .run((context) -> assertThat(context)
                        .hasNotFailed()
                        .hasBean("etlBackfillPlanRunner")
                        .hasSingleBean(BackfillPlanner.class)
                        .doesNotHaveBean(S3BackfillSource.class)
                        .doesNotHaveBean(BoundedRunCompletion.class)
                        .doesNotHaveBean(KafkaSource.class)
                        .doesNotHaveBean(PipelineRuntime.class));
    }

    @Test
    void modePlanIsACommandThatRunsThePlannerWithoutAPipeline() {
        SpringApplication application = new SpringApplication(PlanApplication.class);
        AtomicReference<ConfigurableApplicationContext> failed = new AtomicReference<>();
        application.addListeners((ApplicationFailedEvent event) -> failed.set(event.getApplicationContext()));
        List<String> args = new ArrayList<>();
        for (String property : BASE) {
            args.add("--" + property);
        }
        args.add("--etl.source.kafka.topics=orders");
        args.add("--etl.source.s3.bucket=archive");
        args.add("--etl.source.s3.mode=plan");
        Throwable failure = null;
        try (ConfigurableApplicationContext ignored = application.run(args.toArray(String[]::new))) {
            // no broker: cannot succeed
        } catch (RuntimeException ex) {
            failure = ex;
        }
        // the runner ran (a pipeline would have failed before it: there is no sink), and failed on Kafka
        assertThat(failure)
                .isNotNull()
                .hasMessageContaining("cannot read the work topic orders-backfill-work")
                .hasStackTraceContaining("etlBackfillPlanRunner")
                .hasStackTraceContaining("SpringApplication.callRunner");
        ConfigurableApplicationContext context = failed.get();
        assertThat(context).isNotNull();
        assertThat(context.getEnvironment().getProperty("etl.pipeline.enabled")).isEqualTo("false");
        assertThat(application.getWebApplicationType()).isEqualTo(WebApplicationType.NONE);
    }

    private static boolean eventually(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.sleep(10);
        }
        return condition.getAsBoolean();
    }

    /** A chain and a sink: the pipeline the backfill's rows would go through. */
    @Configuration(proxyBeanMethods = false)
    static class Pipeline {

        @Bean
        ChainFactory chain() {
            return (ctx) -> Chains.from(ctx, Deserializer.payload()).sink(TestEncoders.payload(), (v, m, s) -> 0);
        }

        @Bean
        SinkDefinition capture() {
            return CaptureSink.create("capture", 1).definition();
        }
    }

    /** An application with a chain and no sink: it cannot assemble a pipeline. */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({
        KafkaAutoConfiguration.class,
        KafkaSourceAutoConfiguration.class,
        S3BackfillAutoConfiguration.class,
        EtlAutoConfiguration.class
    })
    static class PlanApplication {

        @Bean
        ChainFactory chain() {
            return (ctx) -> Chains.from(ctx, Deserializer.payload()).sink(TestEncoders.payload(), (v, m, s) -> 0);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnStore {

        @Bean
        FixedStore fixedStore() {
            return new FixedStore();
        }
    }

    /** An object store of the application's own, which records what it was asked. */
    static final class FixedStore implements ObjectStore {

        final List<String> listed = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public List<ObjectInfo> list(String bucket, String prefix) {
            this.listed.add(bucket + "/" + prefix);
            return List.of();
        }

        @Override
        public ObjectInfo head(String bucket, String key) throws IOException {
            throw new java.io.FileNotFoundException(key);
        }

        @Override
        public InputStream open(String bucket, String key, String etag, long start, long end) throws IOException {
            throw new java.io.FileNotFoundException(key);
        }

        @Override
        public String describe() {
            return "fixed-store";
        }
    }
}
