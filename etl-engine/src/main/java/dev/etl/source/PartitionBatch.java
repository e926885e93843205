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

    /** Offset of the last record in the batch (the batch covers up to {@code lastOffset() + 1}). */
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
}
