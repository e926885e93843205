package dev.etl.sink;

import dev.etl.record.RecordMeta;

/**
 * A {@link RowEncoder} that writes any number of rows for one value, zero included: a value that
 * fans out into several rows (an order into its lines), or one the encoder itself filters out. The
 * sink stage calls {@link #encodeRows} and counts the rows it returns; all of them belong to the
 * value's record, so they are acknowledged together, and a failure cuts them all back out of the
 * buffer before the encode stage's {@link dev.etl.error.ErrorPolicy} applies to the record.
 *
 * <p>Called on the lane thread, once per value: it must not allocate, block or lock.
 *
 * @param <T> the value type arriving at the sink
 */
public interface MultiRowEncoder<T> extends RowEncoder<T> {
    /**
     * Appends the rows for {@code value} to {@code out}, one after the other.
     *
     * @param meta source metadata of the record the value came from (valid during this call only)
     * @return how many rows were appended (0 when the value has none)
     */
    int encodeRows(T value, RecordMeta meta, RowBuffer out) throws Exception;

    /**
     * Appends the value's single row.
     *
     * @throws IllegalStateException when the value has no row or more than one (their bytes are
     *         left in {@code out}; callers that accept any count call {@link #encodeRows})
     */
    @Override
    default void encode(T value, RecordMeta meta, RowBuffer out) throws Exception {
        int rows = encodeRows(value, meta, out);
        if (rows != 1) {
            throw new IllegalStateException(
                    this + " wrote " + rows + " rows for one value where exactly one was expected: call encodeRows");
        }
    }
}
