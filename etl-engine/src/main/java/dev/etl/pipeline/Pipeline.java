package dev.etl.pipeline;

import dev.etl.error.ErrorClass;
import dev.etl.error.ErrorPolicy;
import dev.etl.internal.pipeline.PipelineRun;
import dev.etl.ops.ChainFactory;
import dev.etl.sink.SinkDefinition;
import dev.etl.source.Source;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Assembles a pipeline: one source, one or more sinks, the chain factory, and a meter registry.
 *
 * <pre>{@code
 * PipelineRuntime runtime = Pipeline.builder(PipelineConfig.builder("orders").lanes(2).build())
 *         .source(source)
 *         .sink(SinkDefinition.builder("clickhouse", 2, shard -> writers[shard]).build())
 *         .chains(ctx -> Chains.from(ctx, deserializer).map(...).sink(encoder, router))
 *         .meterRegistry(registry)
 *         .build();
 * runtime.start();
 * ...
 * runtime.shutdownHandle().trigger();
 * RunReport report = runtime.awaitTermination();
 * }</pre>
 */
public final class Pipeline {
    private Pipeline() {}

    public static Builder builder(PipelineConfig config) {
        return new Builder(config);
    }

    /** Collects the parts; {@link #build()} validates them. Not thread-safe. */
    public static final class Builder {
        private final PipelineConfig config;
        private Source source;
        private final List<SinkDefinition> sinks = new ArrayList<>();
        private SinkDefinition deadLetter;
        private ChainFactory chainFactory;
        private MeterRegistry registry;
        private Scheduler scheduler = Scheduler.system();

        private Builder(PipelineConfig config) {
            this.config = Objects.requireNonNull(config, "config");
        }

        public Builder source(Source source) {
            this.source = source;
            return this;
        }

        /** Adds a sink; chains address it by name (the first one is the default). */
        public Builder sink(SinkDefinition sink) {
            for (SinkDefinition existing : sinks) {
                if (existing.name().equals(sink.name())) {
                    throw new IllegalArgumentException(
                            "pipeline '" + config.name() + "' already has a sink named '" + sink.name() + "'");
                }
            }
            sinks.add(sink);
            return this;
        }

        /**
         * Sets the dead-letter sink: where records that fail a stage under
         * {@link dev.etl.error.ErrorPolicy#DEAD_LETTER} go, framed by {@link dev.etl.sink.DeadLetterEncoder}
         * (for Kafka, {@code dev.etl.kafka.KafkaDeadLetterWriter}). An ordinary sink (batching,
         * retries, acks, metrics with its own {@code sink} label) that chains cannot address; a
         * dead-lettered record's offset commits only after this sink wrote it. Must have one shard.
         */
        public Builder deadLetter(SinkDefinition deadLetter) {
            Objects.requireNonNull(deadLetter, "deadLetter");
            if (deadLetter.shardCount() != 1) {
                throw new IllegalArgumentException("dead-letter sink '" + deadLetter.name() + "' of pipeline '"
                        + config.name() + "' must have exactly one shard, got " + deadLetter.shardCount());
            }
            this.deadLetter = deadLetter;
            return this;
        }

        public Builder chains(ChainFactory chainFactory) {
            this.chainFactory = chainFactory;
            return this;
        }

        public Builder meterRegistry(@Nullable MeterRegistry registry) {
            this.registry = registry;
            return this;
        }

        /**
         * Where the pipeline's clock and threads come from (default {@link Scheduler#system()}): a
         * deterministic simulation or test passes its own.
         */
        public Builder scheduler(Scheduler scheduler) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            return this;
        }

        public PipelineRuntime build() {
            if (source == null) {
                throw new IllegalStateException("pipeline '" + config.name() + "' has no source");
            }
            if (sinks.isEmpty()) {
                throw new IllegalStateException("pipeline '" + config.name() + "' has no sink");
            }
            if (chainFactory == null) {
                throw new IllegalStateException("pipeline '" + config.name() + "' has no chain factory");
            }
            if (deadLetter != null) {
                for (SinkDefinition sink : sinks) {
                    if (sink.name().equals(deadLetter.name())) {
                        throw new IllegalStateException("pipeline '" + config.name() + "' has a sink and a dead-letter "
                                + "sink both named '" + sink.name() + "'; sink names must be unique");
                    }
                }
            } else {
                requireNoDeadLetterPolicy();
            }
            return new PipelineRuntime(new PipelineRun(
                    config,
                    source,
                    List.copyOf(sinks),
                    deadLetter,
                    chainFactory,
                    registry != null ? registry : new SimpleMeterRegistry(),
                    scheduler));
        }

        private void requireNoDeadLetterPolicy() {
            for (Map.Entry<String, ErrorPolicy> e : config.stagePolicies().entrySet()) {
                if (e.getValue() == ErrorPolicy.DEAD_LETTER) {
                    throw new IllegalStateException("pipeline '" + config.name() + "' configures stage '" + e.getKey()
                            + "' with error policy DEAD_LETTER but has no dead-letter sink: add one with "
                            + "Pipeline.builder(..).deadLetter(sink) (Spring Boot: etl.errors.dead-letter.topic)");
                }
            }
            for (Map.Entry<ErrorClass, ErrorPolicy> e : config.classPolicies().entrySet()) {
                if (e.getValue() == ErrorPolicy.DEAD_LETTER) {
                    throw new IllegalStateException(
                            "pipeline '" + config.name() + "' configures error type '"
                                    + e.getKey().label()
                                    + "' with error policy DEAD_LETTER but has no dead-letter sink: add "
                                    + "one with Pipeline.builder(..).deadLetter(sink) (Spring Boot: etl.errors.dead-letter.topic)");
                }
            }
        }
    }
}
