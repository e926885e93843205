package dev.etl.error;

/**
 * A {@link dev.etl.sink.ShardWriter} could not write a sealed batch. {@link #isTransient() Transient}
 * failures (connection refused, timeout, 5xx without a parse error) are retried with backoff on the
 * next replica; permanent ones (cannot parse, type mismatch, unknown table) are not.
 */
public class SinkWriteException extends EtlException {
    private static final long serialVersionUID = 1L;

    private final boolean transientFailure;

    public SinkWriteException(boolean transientFailure, String message, Throwable cause) {
        super(transientFailure ? ErrorClass.SINK_TRANSIENT : ErrorClass.SINK_PERMANENT, message, cause);
        this.transientFailure = transientFailure;
    }

    public static SinkWriteException transientFailure(String message, Throwable cause) {
        return new SinkWriteException(true, message, cause);
    }

    public static SinkWriteException permanentFailure(String message, Throwable cause) {
        return new SinkWriteException(false, message, cause);
    }

    /** Whether a retry (same bytes, same dedup token, possibly another replica) may succeed. */
    public boolean isTransient() {
        return transientFailure;
    }
}
