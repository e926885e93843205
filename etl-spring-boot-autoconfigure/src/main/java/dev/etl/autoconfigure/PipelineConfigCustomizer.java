package dev.etl.autoconfigure;

import dev.etl.pipeline.PipelineConfig;

/**
 * Callback to customize the engine settings after they were mapped from {@code etl.*} (e.g. to set
 * something computed at startup). Applied in {@link org.springframework.core.Ordered order}; the
 * last write wins, and {@link PipelineConfig}'s own checks run after all customizers.
 */
@FunctionalInterface
public interface PipelineConfigCustomizer {

    /**
     * Customizes the builder.
     * @param builder the builder, holding the values mapped from {@code etl.*}
     */
    void customize(PipelineConfig.Builder builder);
}
