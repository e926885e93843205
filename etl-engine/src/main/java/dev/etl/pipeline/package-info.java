/**
 * Assembling and running a pipeline without Spring: {@link dev.etl.pipeline.Pipeline#builder}, {@link dev.etl.pipeline.PipelineConfig}, the {@link dev.etl.pipeline.PipelineRuntime} with its {@link dev.etl.pipeline.PipelineState}, {@link dev.etl.pipeline.ShutdownHandle} and {@link dev.etl.pipeline.RunReport}, and the {@link dev.etl.pipeline.Scheduler} a simulation replaces. Public API, every type of it; the lanes and the controller behind the runtime are in the engine's internals.
 */
@NullMarked
package dev.etl.pipeline;

import org.jspecify.annotations.NullMarked;
