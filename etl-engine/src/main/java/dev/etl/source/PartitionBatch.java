package dev.etl.source;

import dev.etl.record.Payload;

/**
 * A cursor over the records of one partition in one poll, in offset order. Flyweight, reused by the
 * source for every batch; valid only during {@link BatchHandler#onBatch}.
 *
 * <pre>{@code
 * while (batch.next()) {
 *     handle(batch.offset(), batch.key(), batch.value());
 * }
 * }</pre>
 */
public interface PartitionBatch {
    /** Dense partition id. */
    int partition();

    /** Number of records in the batch. */
    int size();

    /**
     * The batch covers the source's positions up to {@code lastOffset() + 1}: usually the offset of its last
     * record, but a source may cover more than its records (a backfill ends a work item with its item's
     * last position), and a batch may have no record at all ({@link #size()} 0) to move the position on.
     * Strictly increasing from batch to batch of a partition.
     */
    long lastOffset();

    /** Advances to the next record; false when the batch is exhausted. */
    boolean next();

    long offset();

    /** Source timestamp in epoch milliseconds, or -1. */
    long timestampMs();

    /** The record key (absent when it has none); valid until {@link #next()}. */
    Payload key();

    /** The record value (absent for a tombstone); valid until {@link #next()}. */
    Payload value();

    /**
     * How many records the source knows to be waiting in the partition after this batch (Kafka: the
     * consumer's current lag, from its last fetch), or -1 when it does not know. A partition far behind
     * keeps its deterministic block open past the linger so that it fills (see
     * {@code etl.sink.clickhouse.batch.linger}); the default, -1, never does.
     */
    default long backlog() {
        return -1;
    }
}
