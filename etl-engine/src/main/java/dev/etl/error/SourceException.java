package dev.etl.error;

import org.jspecify.annotations.Nullable;

/** A source failed to poll, commit, or manage its assignment. */
public class SourceException extends EtlException {
    private static final long serialVersionUID = 1L;

    public SourceException(String message, @Nullable Throwable cause) {
        super(ErrorClass.SOURCE, message, cause);
    }
}
