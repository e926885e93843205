package dev.etl.error;

import org.jspecify.annotations.Nullable;

/** Base of every failure the engine reports; carries its {@link ErrorClass}. */
public abstract class EtlException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final ErrorClass errorClass;

    protected EtlException(ErrorClass errorClass, String message, @Nullable Throwable cause) {
        super(message, cause);
        this.errorClass = errorClass;
    }

    public ErrorClass errorClass() {
        return errorClass;
    }
}
