package dev.etl.autoconfigure;

import dev.etl.error.ErrorPolicy;
import dev.etl.ops.ChainFactory;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.sink.SinkDefinition;
import dev.etl.source.Source;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Auto-configuration of the pipeline: binds {@code etl.*} and assembles a {@link PipelineRuntime} from
 * the application's beans — one {@link Source}, one or more {@link SinkDefinition}s (the first, in
 * {@link org.springframework.core.annotation.Order order}, is the default sink) and one or more
 * {@link ChainFactory} beans (several are routed by topic, see {@link ChainFactory#routing}) — and
 * runs it with {@link EtlPipelineLifecycle}.
 *
 * <p>Connectors contribute the source and sinks from their own auto-configurations, ordered before
 * this one; this class only consumes beans, so tests and applications can supply them directly.
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusMetricsExportAutoConfiguration",
            "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration"
        })
@ConditionalOnBooleanProperty(name = "etl.pipeline.enabled", matchIfMissing = true)
@EnableConfigurationProperties({
    EtlPipelineProperties.class,
    EtlCheckpointProperties.class,
    EtlBackpressureProperties.class,
    EtlErrorsProperties.class
})
public final class EtlAutoConfiguration {

    private static final Duration DEFAULT_SHUTDOWN_PHASE_TIMEOUT = Duration.ofSeconds(30);

    /**
     * Refuses {@code etl.*} properties that bind to nothing, before any bean is created (a bean factory
     * post-processor), so a typo fails startup first and by name. See {@link EtlPropertyNames}.
     */
    @Bean
    static BeanFactoryPostProcessor etlPropertyNamesCheck(Environment environment) {
        return (beanFactory) -> EtlPropertyNames.check(
                environment,
                EtlPropertyNames.schema(
                        beanFactory,
                        (beanFactory.getBeanClassLoader() != null)
                                ? beanFactory.getBeanClassLoader()
                                : EtlPropertyNames.class.getClassLoader()));
    }

    @Bean
    @ConditionalOnMissingBean
    PipelineConfig etlPipelineConfig(
            EtlPipelineProperties pipeline,
            EtlCheckpointProperties checkpoint,
            EtlBackpressureProperties backpressure,
            EtlErrorsProperties errors,
            Environment environment,
            ObjectProvider<PipelineConfigCustomizer> customizers) {
        PipelineConfig.Builder builder =
                PipelineConfigMapping.builder(pipeline, checkpoint, backpressure, errors, environment);
        customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
        return builder.build();
    }

    @Bean
    @ConditionalOnMissingBean
    PipelineRuntime etlPipelineRuntime(
            PipelineConfig config,
            EtlErrorsProperties errors,
            ObjectProvider<Source> sources,
            ObjectProvider<SinkDefinition> sinks,
            ObjectProvider<ChainFactory> chainFactories,
            ObjectProvider<MeterRegistry> meterRegistries,
            ObjectProvider<EtlPipelineCustomizer> customizers,
            ObjectProvider<DeadLetterSinkDefinition> deadLetters,
            ListableBeanFactory beanFactory) {
        Pipeline.Builder builder = Pipeline.builder(config)
                .source(source(config, sources))
                .chains(chainFactory(config, chainFactories, beanFactory));
        sinks(config, sinks).forEach(builder::sink);
        DeadLetterSinkDefinition deadLetter = deadLetters.getIfUnique();
        if (deadLetter != null) {
            builder.deadLetter(deadLetter.definition());
        } else {
            requireNoDeadLetterPolicy(config, errors, org.springframework.aot.AotDetector.useGeneratedArtifacts());
        }
        // null (none, or several without a primary) lets the engine use a private registry; whether
        // etl.* meters are recorded at all is Boot's switch, management.metrics.enable.etl
        builder.meterRegistry(meterRegistries.getIfUnique());
        customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
        return builder.build();
    }

    @Bean
    @ConditionalOnMissingBean
    EtlPipelineLifecycle etlPipelineLifecycle(
            PipelineRuntime runtime,
            EtlPipelineProperties pipeline,
            ApplicationContext context,
            Environment environment) {
        Duration phaseTimeout = Binder.get(environment)
                .bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
                .orElse(DEFAULT_SHUTDOWN_PHASE_TIMEOUT);
        return new EtlPipelineLifecycle(
                runtime,
                context,
                pipeline.isCloseOnFailure(),
                pipeline.isExitOnFailure(),
                phaseTimeout,
                pipeline.isHandleSignals());
    }

    private static Source source(PipelineConfig config, ObjectProvider<Source> sources) {
        Source source = sources.getIfUnique();
        if (source != null) {
            return source;
        }
        List<String> found = sources.stream().map(Source::describe).toList();
        if (found.isEmpty()) {
            throw new PipelineAssemblyException(
                    "Pipeline '" + config.name() + "' has no source: there is no bean "
                            + "of type dev.etl.source.Source.",
                    "Configure the Kafka source (spring.kafka.bootstrap-servers and "
                            + "etl.source.kafka.topics or etl.source.kafka.pattern), or the load generator for a run "
                            + "without a broker (etl.source.datagen.*, artifact dev.etl:etl-datagen), or a backfill from "
                            + "object storage (etl.source.s3.*, artifact dev.etl:etl-s3), or define a Source "
                            + "bean. To run without a pipeline, set etl.pipeline.enabled=false.");
        }
        throw new PipelineAssemblyException(
                "Pipeline '" + config.name() + "' has " + found.size() + " sources " + found
                        + "; a pipeline reads from exactly one.",
                "Keep one Source bean, or mark the one to use @Primary.");
    }

    private static List<SinkDefinition> sinks(PipelineConfig config, ObjectProvider<SinkDefinition> sinks) {
        List<SinkDefinition> found = sinks.orderedStream().toList();
        if (found.isEmpty()) {
            throw new PipelineAssemblyException(
                    "Pipeline '" + config.name() + "' has no sink: there is no bean of "
                            + "type dev.etl.sink.SinkDefinition.",
                    "Configure the ClickHouse sink (etl.sink.clickhouse.table "
                            + "or named tables etl.sink.clickhouse.tables.<name>.table, and etl.sink.clickhouse.shards) "
                            + "or define a SinkDefinition bean.");
        }
        return found;
    }

    private static final String DEAD_LETTER_TOPIC = "etl.errors.dead-letter.topic";

    static void requireNoDeadLetterPolicy(PipelineConfig config, EtlErrorsProperties errors, boolean aot) {
        String deadLetterTopic = errors.getDeadLetter().getTopic();
        List<String> keys = new java.util.ArrayList<>();
        errors.getStages().forEach((stage, policy) -> {
            if (policy == ErrorPolicy.DEAD_LETTER) {
                keys.add("etl.errors.stages." + stage);
            }
        });
        errors.getTypes().forEach((type, policy) -> {
            if (policy == ErrorPolicy.DEAD_LETTER) {
                keys.add("etl.errors.types." + type.label().replace('_', '-'));
            }
        });
        if (keys.isEmpty()) {
            return;
        }
        String problem = "Pipeline '" + config.name() + "' sets error policy DEAD_LETTER (" + String.join(", ", keys)
                + ") but has no dead-letter sink: ";
        if (deadLetterTopic == null || deadLetterTopic.isBlank()) {
            throw new PipelineAssemblyException(
                    problem + DEAD_LETTER_TOPIC + " is not set.",
                    "Set " + DEAD_LETTER_TOPIC + " to the Kafka topic for failed records (or define a "
                            + "DeadLetterSinkDefinition bean), or choose SKIP or FAIL.");
        }
        if (aot) {
            throw new PipelineAssemblyException(
                    problem + DEAD_LETTER_TOPIC + " is set, but this application runs "
                            + "with Spring AOT (spring.aot.enabled=true), whose bean set was fixed when process-aot ran, "
                            + "and the topic was not set then.",
                    "Set " + DEAD_LETTER_TOPIC + " in the configuration the "
                            + "build's process-aot sees (application.yaml or the AOT profile) and rebuild, or start "
                            + "without -Dspring.aot.enabled=true.");
        }
        // etl-kafka missing is reported earlier (EtlPropertyNames); what is left is a condition that did not apply
        throw new PipelineAssemblyException(
                problem + DEAD_LETTER_TOPIC + " is set, but no dead-letter writer was "
                        + "created (KafkaDeadLetterAutoConfiguration did not apply: see the conditions report, --debug).",
                "Define a DeadLetterSinkDefinition bean, or find the condition that excluded the writer.");
    }

    private static ChainFactory chainFactory(
            PipelineConfig config, ObjectProvider<ChainFactory> chainFactories, ListableBeanFactory beanFactory) {
        List<ChainFactory> found = chainFactories.orderedStream().toList();
        if (found.isEmpty()) {
            throw new PipelineAssemblyException(
                    "Pipeline '" + config.name() + "' has no topology: there is no bean "
                            + "of type dev.etl.ops.ChainFactory.",
                    "Define a ChainFactory @Bean that builds the operator chain, "
                            + "e.g. ctx -> Chains.from(ctx, deserializer).map(...).sink(router) "
                            + "(the sink's encoder is its RowBinaryEncoder bean), or, for a pipeline whose table is "
                            + "the mapping, set etl.sink.clickhouse.from.topic (or etl.sink.clickhouse.tables.<name>"
                            + ".from.topic): its rows are then derived from the table's columns by name.");
        }
        if (found.size() == 1 && found.get(0).topics().isEmpty()) {
            return found.get(0);
        }
        try {
            return ChainFactory.routing(found);
        } catch (IllegalArgumentException ex) {
            throw new PipelineAssemblyException(
                    "Pipeline '" + config.name() + "' has " + found.size()
                            + " ChainFactory beans that cannot be routed by topic: " + ex.getMessage() + " ("
                            + beanNames(found, beanFactory) + ")",
                    "Give each ChainFactory its own topics with ChainFactory.forTopics(...); at most one may "
                            + "claim all remaining topics. A table's etl.sink.clickhouse[.tables.<name>].from.topic "
                            + "defines one for its topic (bean etlClickHouseTablePipeline.<topic>): leave that "
                            + "topic to it or to your own factory, not to both.");
        }
    }

    /** "#0 = bean 'orders', #1 = bean 'etlClickHouseTablePipeline.orders'": the factories in routing order. */
    private static String beanNames(List<ChainFactory> found, ListableBeanFactory beanFactory) {
        Map<String, ChainFactory> byName = beanFactory.getBeansOfType(ChainFactory.class);
        StringBuilder names = new StringBuilder();
        for (int i = 0; i < found.size(); i++) {
            String name = "?";
            for (Map.Entry<String, ChainFactory> e : byName.entrySet()) {
                if (e.getValue() == found.get(i)) {
                    name = e.getKey();
                }
            }
            names.append(i == 0 ? "" : ", ")
                    .append('#')
                    .append(i)
                    .append(" = bean '")
                    .append(name)
                    .append('\'');
        }
        return names.toString();
    }
}
