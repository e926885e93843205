/**
 * The sink SPI: {@link dev.etl.sink.SinkDefinition} (one {@link dev.etl.sink.ShardWriter} per shard), {@link dev.etl.sink.RowEncoder} and {@link dev.etl.sink.RowBuffer} for encoding rows, {@link dev.etl.sink.Router}s, batching and retry settings, and the dead-letter framing. Public API; the runtime that batches and writes is {@code dev.etl.internal.sink}.
 */
@NullMarked
package dev.etl.sink;

import org.jspecify.annotations.NullMarked;
