/**
 * Assembling and running a pipeline without Spring: {@link dev.etl.pipeline.Pipeline#builder}, {@link dev.etl.pipeline.PipelineConfig}, the {@link dev.etl.pipeline.PipelineRuntime} and its {@link dev.etl.pipeline.RunReport}. Public API; lanes are package-private.
 */
@NullMarked
package dev.etl.pipeline;

import org.jspecify.annotations.NullMarked;
