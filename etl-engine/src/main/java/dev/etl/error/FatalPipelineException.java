package dev.etl.error;

import org.jspecify.annotations.Nullable;

/**
 * An unrecoverable failure: a FAIL-policy stage tripped, a sink write failed permanently under FAIL,
 * a partition stalled past {@code stalled-fail-after}, or an invariant was violated. The pipeline
 * goes to {@code FAILED}; watermarks stop advancing; the run report's exit code is non-zero.
 */
public class FatalPipelineException extends EtlException {
    private static final long serialVersionUID = 1L;

    public FatalPipelineException(ErrorClass errorClass, String message, @Nullable Throwable cause) {
        super(errorClass, message, cause);
    }
}
