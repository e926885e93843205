package dev.etl.pipeline;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import dev.etl.ops.ChainFactory;
import dev.etl.sink.SinkDefinition;
import dev.etl.source.Source;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * Assembles a pipeline: one source, one or more sinks, the chain factory, and a meter registry.
 *
 * <pre>{@code
 * PipelineRuntime runtime = Pipeline.builder(PipelineConfig.builder("orders").lanes(2).build())
 *         .source(source)
 *         .sink(SinkDefinition.of("clickhouse", 2, shard -> writers[shard]))
 *         .chains(ctx -> Chains.from(ctx, deserializer).map(...).sink(encoder, router, ChunkConfig.defaults()))
 *         .meterRegistry(registry)
 *         .build();
 * runtime.start();
 * ...
 * runtime.shutdownHandle().trigger();
 * RunReport report = runtime.awaitTermination();
 * }</pre>
 */
public final class Pipeline {
    private Pipeline() {
    }

    public static Builder builder(PipelineConfig config) {
        return new Builder(config);
    }

    /** Collects the parts; {@link #build()} validates them. Not thread-safe. */
    public static final class Builder {
        private final PipelineConfig config;
        private Source source;
        private final List<SinkDefinition> sinks = new ArrayList<>();
        private ChainFactory chainFactory;
        private MeterRegistry registry;

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
                    throw new IllegalArgumentException("pipeline '" + config.name() + "' already has a sink named '"
                            + sink.name() + "'");
                }
            }
            sinks.add(sink);
            return this;
        }

        public Builder chains(ChainFactory chainFactory) {
            this.chainFactory = chainFactory;
            return this;
        }

        public Builder meterRegistry(MeterRegistry registry) {
            this.registry = registry;
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
            return new PipelineRuntime(config, source, List.copyOf(sinks), chainFactory,
                    registry != null ? registry : new SimpleMeterRegistry());
        }
    }
}
