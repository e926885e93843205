package dev.etl.error;

import org.jspecify.annotations.Nullable;

/**
 * A {@link dev.etl.sink.ShardWriter} could not write a sealed batch. {@link #isTransient() Transient}
 * failures (connection refused, timeout, 5xx without a parse error) are retried with backoff on the
 * next replica; permanent ones (cannot parse, type mismatch, unknown table) are not.
 */
public class SinkWriteException extends EtlException {
    private static final long serialVersionUID = 1L;

    private static final int[] NO_ROWS = new int[0];

    private final boolean transientFailure;
    /** For {@link #rejectedRows(String, int[], Throwable)}: the rows refused, ascending; else empty. */
    private final int[] rejectedRows;

    public SinkWriteException(boolean transientFailure, String message, @Nullable Throwable cause) {
        this(transientFailure, message, cause, NO_ROWS);
    }

    private SinkWriteException(
            boolean transientFailure, String message, @Nullable Throwable cause, int[] rejectedRows) {
        super(transientFailure ? ErrorClass.SINK_TRANSIENT : ErrorClass.SINK_PERMANENT, message, cause);
        this.transientFailure = transientFailure;
        this.rejectedRows = rejectedRows;
    }

    /**
     * The server refused some rows of the batch for their content (a constraint, a {@code throwIf} in a
     * materialized column, a value its type cannot hold) and the writer <b>has written every other row of
     * the batch durably</b> (in pieces that deduplicate on a replay: the same pieces, the same tokens).
     * {@code rows} are the refused rows' indexes in the batch (0-based, ascending, not empty). A retry
     * cannot write them: the engine applies the sink's permanent-failure policy to these rows only — under
     * {@code SKIP} they are counted ({@code etl_sink_rejected_rows_total}) and logged with their source
     * partitions and offsets, and the batch's acks succeed; under {@code FAIL} the pipeline fails naming
     * them. Permanent.
     *
     * @throws IllegalArgumentException when {@code rows} is empty
     */
    public static SinkWriteException rejectedRows(String message, int[] rows, @Nullable Throwable cause) {
        if (rows == null || rows.length == 0) {
            throw new IllegalArgumentException("rejectedRows needs at least one row");
        }
        return new SinkWriteException(false, message, cause, rows.clone());
    }

    /** The rows a {@link #rejectedRows(String, int[], Throwable) rejection} names (a copy); empty otherwise. */
    public int[] rejectedRows() {
        return rejectedRows.clone();
    }

    /** Whether this is a {@link #rejectedRows(String, int[], Throwable) rejection of some rows}. */
    public boolean isRejection() {
        return rejectedRows.length > 0;
    }

    public static SinkWriteException transientFailure(String message, @Nullable Throwable cause) {
        return new SinkWriteException(true, message, cause);
    }

    public static SinkWriteException permanentFailure(String message, @Nullable Throwable cause) {
        return new SinkWriteException(false, message, cause);
    }

    /** Whether a retry (same bytes, same dedup token, possibly another replica) may succeed. */
    public boolean isTransient() {
        return transientFailure;
    }
}
