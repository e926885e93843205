package dev.etl.s3.parquet;

import java.io.IOException;

/**
 * Marks an {@link IOException} of the object store as it passes through Parquet's reader, so the format
 * can tell a storage failure (retried: rethrown as the store's own exception) from data Parquet cannot
 * decode (a corrupt split), whatever Parquet wraps it in.
 */
final class StorageFailure extends IOException {
    private static final long serialVersionUID = 1L;

    StorageFailure(IOException cause) {
        super(cause.getMessage(), cause);
    }

    /** The store's exception. */
    IOException storeException() {
        return (IOException) getCause();
    }

    /** The store's exception somewhere in {@code failure}'s causes, or null when there is none. */
    static IOException find(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof StorageFailure storage) {
                return storage.storeException();
            }
            for (Throwable suppressed : t.getSuppressed()) {
                if (suppressed instanceof StorageFailure storage) {
                    return storage.storeException();
                }
            }
        }
        return null;
    }
}
