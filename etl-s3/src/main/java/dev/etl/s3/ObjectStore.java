package dev.etl.s3;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;

/**
 * The object storage a backfill reads: listing and ranged reads. {@link S3ObjectStore} is the AWS SDK v2
 * implementation; tests use an in-memory one. Thread-safe: reader threads share one instance.
 */
public interface ObjectStore extends AutoCloseable {
    /** Every object under {@code prefix} in {@code bucket}, in key order. */
    List<ObjectInfo> list(String bucket, String prefix) throws IOException;

    /** One object's size and ETag. */
    ObjectInfo head(String bucket, String key) throws IOException;

    /**
     * A stream of the object's bytes {@code [start, end)} ({@code end} -1: to the end of the object). The
     * caller closes it; closing early aborts the transfer.
     *
     * @param etag when not empty, the read fails if the object's ETag differs (it changed since planned)
     */
    InputStream open(String bucket, String key, String etag, long start, long end) throws IOException;

    /** A short description for logs, e.g. {@code s3[http://127.0.0.1:19300]}. */
    String describe();

    @Override
    default void close() {}
}
