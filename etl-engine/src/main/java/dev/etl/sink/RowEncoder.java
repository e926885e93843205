package dev.etl.sink;

import dev.etl.record.RecordMeta;

/**
 * Writes one value as one row of ClickHouse RowBinary (or the sink's row format) into a reusable
 * buffer. Called on the lane thread, once per row, so it must not allocate, block or lock.
 *
 * <p>Column order is the wire contract: it must match the target table (startup validation checks
 * it). On failure, throw; the sink stage cuts the partial row back out of the buffer and applies the
 * encode stage's {@link dev.etl.error.ErrorPolicy}.
 *
 * @param <T> the value type arriving at the sink
 */
@FunctionalInterface
public interface RowEncoder<T> {
    /**
     * Appends the row for {@code value} to {@code out}.
     *
     * @param meta source metadata of the record the value came from (valid during this call only)
     */
    void encode(T value, RecordMeta meta, RowBuffer out) throws Exception;
}
