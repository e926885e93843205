package dev.etl.sink;

import dev.etl.error.SinkWriteException;

/**
 * Writes sealed batches to one shard: the SPI a sink connector implements (ClickHouse's writes a
 * RowBinary insert to one replica of the shard and rotates replicas across attempts).
 *
 * <p>Threading: one shard worker calls {@link #write} for its shard, one call at a time unless the
 * sink allows several in-flight batches per shard, in which case calls may overlap and the
 * implementation must be thread-safe.
 *
 * <p>Contract: return normally <em>only</em> when the batch is durable (for ClickHouse: the insert
 * completed with {@code wait_end_of_query=1}); the worker then acknowledges the batch's offsets.
 * Throw {@link SinkWriteException} otherwise, transient when a retry of the same bytes may succeed.
 * Any other exception is treated as transient. A write may be retried after it actually succeeded
 * (e.g. a timeout after the server committed), which is why batches carry a dedup token.
 */
public interface ShardWriter extends AutoCloseable {
    /** Writes the batch durably or throws. */
    void write(SealedBatch batch) throws SinkWriteException;

    /**
     * Whether the shard can currently be written (e.g. at least one replica's breaker is closed);
     * used by readiness. Defaults to true.
     */
    default boolean isHealthy() {
        return true;
    }

    @Override
    default void close() {}
}
