package dev.etl.autoconfigure;

import dev.etl.pipeline.Pipeline;

/**
 * Callback to customize the {@link Pipeline.Builder} after the auto-configuration has set the source,
 * sinks, chains and meter registry, and before the pipeline is built (e.g. to add a sink defined in
 * code, or to wrap the chain factory). Applied in {@link org.springframework.core.Ordered order}.
 */
@FunctionalInterface
public interface EtlPipelineCustomizer {

    /**
     * Customizes the builder. Called once, on the thread creating the pipeline bean.
     * @param builder the builder, already holding the source, sinks, chains and registry
     */
    void customize(Pipeline.Builder builder);
}
