package dev.etl.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.autoconfigure.clickhouse.ClickHouseSinkAutoConfiguration;
import dev.etl.autoconfigure.clickhouse.EtlClickHouseProperties;
import dev.etl.autoconfigure.kafka.KafkaSourceAutoConfiguration;
import dev.etl.error.ErrorClass;
import dev.etl.error.ErrorPolicy;
import dev.etl.ops.ChainFactory;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.PipelineState;
import dev.etl.sink.SinkDefinition;
import dev.etl.source.Source;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.memory.MemorySource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;

@ExtendWith(OutputCaptureExtension.class)
class EtlAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(EtlAutoConfiguration.class))
            .withPropertyValues(TestPipelines.FAST);

    private final ApplicationContextRunner complete =
            this.runner.withUserConfiguration(TestPipelines.SourceAndSink.class, TestPipelines.Chain.class);

    /** With the Kafka and ClickHouse auto-configurations, which bind and validate their own properties. */
    private final ApplicationContextRunner connectors = this.complete
            .withConfiguration(
                    AutoConfigurations.of(KafkaSourceAutoConfiguration.class, ClickHouseSinkAutoConfiguration.class))
            .withPropertyValues(
                    "etl.sink.clickhouse.table=t",
                    "etl.sink.clickhouse.shards[0].replicas[0]=http://127.0.0.1:9",
                    "etl.sink.clickhouse.validation=off");

    @Test
    void assemblesPipelineFromSourceSinkAndChainFactoryBeans() {
        this.complete.run((context) -> {
            assertThat(context)
                    .hasSingleBean(PipelineRuntime.class)
                    .hasSingleBean(PipelineConfig.class)
                    .hasSingleBean(EtlPipelineLifecycle.class);
            assertThat(context.getBean(PipelineRuntime.class).state()).isEqualTo(PipelineState.RUNNING);
        });
    }

    @Test
    void mapsPropertiesToPipelineConfig() {
        this.complete
                .withPropertyValues(
                        "etl.pipeline.name=orders",
                        "etl.pipeline.threads=3",
                        "etl.pipeline.io-threads=2",
                        "etl.checkpoint.interval=2s",
                        "etl.checkpoint.drain-timeout=20s",
                        "etl.checkpoint.stalled-fail-after=5m",
                        "etl.backpressure.max-in-flight-bytes=64MB",
                        "etl.backpressure.pause-above=0.8",
                        "etl.backpressure.resume-below=0.4",
                        "etl.backpressure.min-pause=25ms",
                        "etl.errors.stages.deserialize=skip",
                        "etl.errors.types.deserialization=skip",
                        "etl.errors.types.sink-permanent=fail")
                .run((context) -> {
                    PipelineConfig config = context.getBean(PipelineConfig.class);
                    assertThat(config.name()).isEqualTo("orders");
                    assertThat(config.lanes()).isEqualTo(3);
                    assertThat(config.ioThreads()).isEqualTo(2);
                    assertThat(config.checkpointInterval()).isEqualTo(Duration.ofSeconds(2));
                    assertThat(config.drainTimeout()).isEqualTo(Duration.ofSeconds(20));
                    assertThat(config.stalledFailAfter()).isEqualTo(Duration.ofMinutes(5));
                    assertThat(config.maxInFlightBytes()).isEqualTo(64L << 20);
                    assertThat(config.pauseAbove()).isEqualTo(0.8);
                    assertThat(config.resumeBelow()).isEqualTo(0.4);
                    assertThat(config.minPause()).isEqualTo(Duration.ofMillis(25));
                    assertThat(config.pollTimeout()).isEqualTo(Duration.ofMillis(20));
                    assertThat(config.stagePolicies()).isEqualTo(Map.of("deserialize", ErrorPolicy.SKIP));
                    assertThat(config.classPolicies())
                            .isEqualTo(Map.of(
                                    ErrorClass.DESERIALIZATION,
                                    ErrorPolicy.SKIP,
                                    ErrorClass.SINK_PERMANENT,
                                    ErrorPolicy.FAIL));
                });
    }

    @Test
    void skipBudgetIsOnByDefaultAndConfigurable() {
        this.complete.run(
                (context) -> assertThat(context.getBean(PipelineConfig.class).skipBudget())
                        .isEqualTo(dev.etl.error.SkipBudget.DEFAULT));
        this.complete
                .withPropertyValues(
                        "etl.errors.skip-budget.max-ratio=0.2",
                        "etl.errors.skip-budget.window=30s",
                        "etl.errors.skip-budget.min-records=1000")
                .run((context) -> assertThat(
                                context.getBean(PipelineConfig.class).skipBudget())
                        .isEqualTo(new dev.etl.error.SkipBudget(true, 0.2, Duration.ofSeconds(30), 1000)));
        this.complete
                .withPropertyValues("etl.errors.skip-budget.enabled=false")
                .run((context) -> assertThat(context.getBean(PipelineConfig.class)
                                .skipBudget()
                                .enabled())
                        .isFalse());
        this.complete
                .withPropertyValues("etl.errors.skip-budget.max-ratio=1")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining(
                                "etl.errors.skip-budget: skip-budget max-ratio must be in [0, 1), got 1.0"));
    }

    @Test
    void pipelineNameDefaultsToApplicationNameThenEtl() {
        this.complete
                .withPropertyValues("spring.application.name=billing")
                .run((context) ->
                        assertThat(context.getBean(PipelineConfig.class).name()).isEqualTo("billing"));
        this.complete.run((context) ->
                assertThat(context.getBean(PipelineConfig.class).name()).isEqualTo("etl"));
    }

    @Test
    void inFlightBudgetDefaultsToAQuarterOfTheHeapAndRejectsZero() {
        this.complete.run(
                (context) -> assertThat(context.getBean(PipelineConfig.class).maxInFlightBytes())
                        .isEqualTo(PipelineConfig.defaultMaxInFlightBytes(
                                Runtime.getRuntime().maxMemory())));
        this.complete
                .withPropertyValues("etl.backpressure.max-in-flight-bytes=0")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("etl.backpressure.max-in-flight-bytes must be > 0, got 0B"));
    }

    @Test
    void rejectsResumeBelowNotBelowPauseAboveNamingTheKey() {
        this.complete
                .withPropertyValues("etl.backpressure.pause-above=0.6", "etl.backpressure.resume-below=0.7")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("etl.backpressure.resume-below must be < pause-above (0.6), got 0.7"));
    }

    @Test
    void rejectsPauseAboveOutsideItsRange() {
        this.complete
                .withPropertyValues("etl.backpressure.pause-above=1.5")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("etl.backpressure.pause-above must be in (0, 1]"));
    }

    @Test
    void refusesClickHouseSettingsTheSinkOwnsNamingTheKey() {
        this.connectors
                .withPropertyValues("etl.sink.clickhouse.settings.wait_end_of_query=0")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining(
                                "etl.sink.clickhouse.settings.wait_end_of_query is set by the sink itself"));
        this.connectors
                .withPropertyValues("etl.sink.clickhouse.settings.insert_deduplication_token=x")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("etl.sink.clickhouse.settings.insert_deduplication_token"));
    }

    @Test
    void passesOtherClickHouseSettingsThrough() {
        this.complete
                .withPropertyValues("etl.sink.clickhouse.settings.insert_quorum=2")
                .run((context) -> assertThat(Binder.get(context.getEnvironment())
                                .bind("etl.sink.clickhouse", EtlClickHouseProperties.class)
                                .get()
                                .getSettings())
                        .containsEntry("insert_quorum", "2"));
    }

    @Test
    void refusesAutoCommitInKafkaProperties() {
        this.connectors
                .withPropertyValues(
                        "etl.source.kafka.topics=orders", "etl.source.kafka.properties[enable.auto.commit]=true")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("etl.source.kafka.properties[enable.auto.commit] must be false"));
    }

    @Test
    void refusesTopicsAndPatternTogether() {
        this.connectors
                .withPropertyValues("etl.source.kafka.topics=orders", "etl.source.kafka.pattern=orders-.*")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("etl.source.kafka.topics and etl.source.kafka.pattern are exclusive"));
    }

    @Test
    void rejectsUnknownValidationModeNamingTheKeyAndTheAllowedValues() {
        this.connectors
                .withPropertyValues("etl.sink.clickhouse.validation=strict")
                .run((context) -> {
                    BindException bind = findCause(context.getStartupFailure(), BindException.class);
                    assertThat(bind.getProperty().getName().toString()).isEqualTo("etl.sink.clickhouse.validation");
                    FailureAnalysis analysis = analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription()).contains("etl.sink.clickhouse.validation", "strict");
                    assertThat(analysis.getAction()).contains("OFF", "NAMES", "FULL");
                });
    }

    @Test
    void reportsSelfValidationFailuresWithTheKey() {
        this.complete.withPropertyValues("etl.pipeline.threads=0").run((context) -> {
            FailureAnalysis analysis = analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("etl.pipeline.threads", "must be >= 1, got 0");
        });
    }

    private static <T extends Throwable> T findCause(Throwable failure, Class<T> type) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " in " + failure);
    }

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

    @Test
    void failsWithoutChainFactoryExplainingWhatToDo() {
        this.runner.withUserConfiguration(TestPipelines.SourceAndSink.class).run((context) -> {
            assertThat(context)
                    .getFailure()
                    .rootCause()
                    .isInstanceOf(PipelineAssemblyException.class)
                    .hasMessageContaining("no bean of type dev.etl.ops.ChainFactory");
            FailureAnalysis analysis = new PipelineFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getAction()).contains("Define a ChainFactory @Bean", "etl.sink.clickhouse.from.topic");
        });
    }

    @Test
    void failsWithoutSource() {
        this.runner
                .withUserConfiguration(SinkOnly.class, TestPipelines.Chain.class)
                .run((context) -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(PipelineAssemblyException.class)
                        .hasMessageContaining("has no source"));
    }

    @Test
    void failsWithoutSink() {
        this.runner
                .withUserConfiguration(SourceOnly.class, TestPipelines.Chain.class)
                .run((context) -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(PipelineAssemblyException.class)
                        .hasMessageContaining("has no sink"));
    }

    @Test
    void failsWithTwoSources() {
        this.complete
                .withBean("secondSource", Source.class, MemorySource::create)
                .run((context) -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(PipelineAssemblyException.class)
                        .hasMessageContaining("has 2 sources"));
    }

    @Test
    void failsWhenTwoChainFactoriesClaimOneTopic() {
        this.runner
                .withUserConfiguration(TestPipelines.SourceAndSink.class, ClashingChains.class)
                .run((context) -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(PipelineAssemblyException.class)
                        .hasMessageContaining("cannot be routed by topic")
                        .hasMessageContaining("topic 'orders' is claimed by ChainFactory #0 and #1")
                        .hasMessageContaining("#0 = bean 'orders', #1 = bean 'ordersAgain'"));
    }

    @Test
    void routesSeveralChainFactoriesByTopic() {
        this.runner
                .withUserConfiguration(TestPipelines.SourceAndSink.class, RoutedChains.class)
                .run((context) -> assertThat(context).hasSingleBean(PipelineRuntime.class));
    }

    @Test
    void appliesCustomizersInOrder() {
        this.complete.withUserConfiguration(Customizers.class).run((context) -> {
            assertThat(context.getBean(PipelineConfig.class).lanes()).isEqualTo(2);
            PipelineRuntime runtime = context.getBean(PipelineRuntime.class);
            assertThat(runtime.meterRegistry()).isSameAs(context.getBean("customRegistry"));
        });
    }

    @Test
    void userPipelineConfigWins() {
        this.complete
                .withBean(
                        PipelineConfig.class,
                        () -> PipelineConfig.builder("mine").lanes(2).build())
                .run((context) -> assertThat(
                                context.getBean(PipelineRuntime.class).config().name())
                        .isEqualTo("mine"));
    }

    @Test
    void userLifecycleWins() {
        this.complete.withUserConfiguration(OwnLifecycle.class).run((context) -> {
            assertThat(context).hasSingleBean(EtlPipelineLifecycle.class);
            assertThat(context.getBean(PipelineRuntime.class).state()).isEqualTo(PipelineState.STARTING);
        });
    }

    @Test
    void createsNothingWhenDisabled() {
        this.complete
                .withPropertyValues("etl.pipeline.enabled=false")
                .run((context) -> assertThat(context)
                        .doesNotHaveBean(PipelineRuntime.class)
                        .doesNotHaveBean(EtlPipelineProperties.class));
    }

    @Test
    void registersEngineMetersWithTheApplicationRegistry() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        this.complete.withBean(SimpleMeterRegistry.class, () -> registry).run((context) -> {
            assertThat(context.getBean(PipelineRuntime.class).meterRegistry()).isSameAs(registry);
            assertThat(registry.find("etl.pipeline.state").gauge()).isNotNull();
        });
    }

    @Test
    void bootsOwnMetricSwitchTurnsTheEngineMetersOff() {
        ApplicationContextRunner withMetrics = this.complete.withConfiguration(AutoConfigurations.of(
                org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration.class,
                org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration.class,
                org.springframework.boot.micrometer.metrics.autoconfigure.export.simple
                        .SimpleMetricsExportAutoConfiguration.class));
        withMetrics.run((context) -> assertThat(context.getBean(io.micrometer.core.instrument.MeterRegistry.class)
                        .find("etl.pipeline.state")
                        .gauge())
                .as("recorded by default")
                .isNotNull());
        withMetrics
                .withPropertyValues("management.metrics.enable.etl=false")
                .run((context) -> assertThat(context.getBean(io.micrometer.core.instrument.MeterRegistry.class)
                                .find("etl.pipeline.state")
                                .gauge())
                        .as("management.metrics.enable.etl=false")
                        .isNull());
    }

    @Test
    void startsAfterRefreshAndDrainsOnClose() throws Exception {
        PipelineRuntime[] runtime = new PipelineRuntime[1];
        this.complete.run((context) -> {
            runtime[0] = context.getBean(PipelineRuntime.class);
            MemorySource source = context.getBean(MemorySource.class);
            CaptureSink sink = context.getBean(CaptureSink.class);
            EtlPipelineLifecycle lifecycle = context.getBean(EtlPipelineLifecycle.class);
            source.handle().assign(0, 0, 1);
            for (int i = 0; i < 100; i++) {
                source.handle().push(i % 2, null, TestPipelines.utf8("r" + i));
            }
            assertThat(source.handle().awaitCommitted(0, 50, TestPipelines.WAIT))
                    .isTrue();
            assertThat(source.handle().awaitCommitted(1, 50, TestPipelines.WAIT))
                    .isTrue();
            // more records right before close: whatever was polled is written and committed by the drain
            for (int i = 100; i < 200; i++) {
                source.handle().push(i % 2, null, TestPipelines.utf8("r" + i));
            }
            context.close();
            assertThat(runtime[0].state()).isEqualTo(PipelineState.STOPPED);
            long committed = source.handle().lastCommitted(0) + source.handle().lastCommitted(1);
            assertThat(committed).isBetween(100L, 200L);
            assertThat(sink.script().rows()).isEqualTo(committed);
            assertThat(lifecycle.getExitCode()).isZero();
        });
        assertThat(runtime[0].state()).isEqualTo(PipelineState.STOPPED);
    }

    @Test
    void failedPipelineClosesTheContextWithExitCodeOne() {
        this.complete.run((context) -> {
            MemorySource source = context.getBean(MemorySource.class);
            CaptureSink sink = context.getBean(CaptureSink.class);
            EtlPipelineLifecycle lifecycle = context.getBean(EtlPipelineLifecycle.class);
            sink.script().failNextPermanently(0, 1);
            source.handle().assign(0, 0);
            source.handle().push(0, null, TestPipelines.utf8("doomed"));
            PipelineRuntime runtime = context.getBean(PipelineRuntime.class);
            assertThat(TestPipelines.eventually(() -> !context.isActive())).isTrue();
            assertThat(runtime.state()).isEqualTo(PipelineState.FAILED);
            assertThat(lifecycle.getExitCode()).isEqualTo(1);
            assertThat(source.handle().lastCommitted(0)).isEqualTo(-1);
        });
    }

    @Test
    void failedPipelineKeepsTheContextWhenCloseOnFailureIsOff() {
        this.complete.withPropertyValues("etl.pipeline.close-on-failure=false").run((context) -> {
            MemorySource source = context.getBean(MemorySource.class);
            context.getBean(CaptureSink.class).script().failNextPermanently(0, 1);
            source.handle().assign(0, 0);
            source.handle().push(0, null, TestPipelines.utf8("doomed"));
            PipelineRuntime runtime = context.getBean(PipelineRuntime.class);
            assertThat(TestPipelines.eventually(() -> runtime.state() == PipelineState.FAILED))
                    .isTrue();
            Thread.sleep(200);
            assertThat(context.isActive()).isTrue();
            assertThat(context.getBean(EtlPipelineLifecycle.class).getExitCode())
                    .isEqualTo(1);
        });
    }

    @Test
    void warnsWhenShutdownPhaseTimeoutDoesNotCoverDrainTimeout(CapturedOutput output) {
        this.complete
                .withPropertyValues(
                        "spring.lifecycle.timeout-per-shutdown-phase=10s", "etl.checkpoint.drain-timeout=25s")
                .run((context) -> assertThat(output)
                        .contains(
                                "spring.lifecycle.timeout-per-shutdown-phase (PT10S) is "
                                        + "shorter than etl.checkpoint.drain-timeout (PT25S)",
                                "at least PT30S"));
    }

    @Test
    void doesNotWarnWithDefaultTimeouts(CapturedOutput output) {
        this.complete
                .withPropertyValues("etl.checkpoint.drain-timeout=25s")
                .run((context) -> assertThat(output).doesNotContain("timeout-per-shutdown-phase"));
    }

    @Configuration(proxyBeanMethods = false)
    static class SourceOnly {

        @Bean
        MemorySource memorySource() {
            return MemorySource.create();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class SinkOnly {

        @Bean
        SinkDefinition sink() {
            return CaptureSink.create("capture", 1).definition();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class RoutedChains {

        @Bean
        ChainFactory orders() {
            return ChainFactory.forTopics(Set.of("orders"), TestPipelines.strings());
        }

        @Bean
        ChainFactory everythingElse() {
            return TestPipelines.strings();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ClashingChains {

        @Bean
        ChainFactory orders() {
            return ChainFactory.forTopics(Set.of("orders"), TestPipelines.strings());
        }

        @Bean
        ChainFactory ordersAgain() {
            return ChainFactory.forTopics(Set.of("orders", "refunds"), TestPipelines.strings());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Customizers {

        @Bean
        SimpleMeterRegistry customRegistry() {
            return new SimpleMeterRegistry();
        }

        @Bean
        @Order(1)
        PipelineConfigCustomizer threeLanes() {
            return (builder) -> builder.lanes(3);
        }

        @Bean
        @Order(2)
        PipelineConfigCustomizer thenTwoLanes() {
            return (builder) -> builder.lanes(2);
        }

        @Bean
        EtlPipelineCustomizer ownRegistry(SimpleMeterRegistry customRegistry) {
            return (builder) -> builder.meterRegistry(customRegistry);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnLifecycle {

        @Bean
        EtlPipelineLifecycle myLifecycle(PipelineRuntime runtime, org.springframework.context.ApplicationContext ctx) {
            return new EtlPipelineLifecycle(runtime, ctx, false, false, Duration.ofSeconds(30)) {
                @Override
                public boolean isAutoStartup() {
                    return false;
                }
            };
        }
    }
}
