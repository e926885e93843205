/**
 * Internal to the engine: not API, not exported by the module descriptor, and free to change in any release. The running pipeline behind {@link dev.etl.pipeline.PipelineRuntime}: its lanes (poll, chain, hand-off, commit), their assignments, stalled partitions and deterministic blocks, the controller that ends a run, and the wiring that builds them. Connectors and applications use {@code dev.etl.pipeline}.
 */
package dev.etl.internal.pipeline;
