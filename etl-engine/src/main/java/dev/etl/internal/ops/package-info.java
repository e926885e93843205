/**
 * Internal to the engine: not API, not exported by the module descriptor, and free to change in any release. The stages behind {@link dev.etl.ops.ChainBuilder} (one final class per verb, fused into direct calls), the chain head that deserializes, the stage contexts and their held acks, and topic routing. Connectors and applications use {@code dev.etl.ops}.
 */
package dev.etl.internal.ops;
