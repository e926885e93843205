package dev.etl.s3.parquet;

import dev.etl.s3.ObjectStore;
import org.apache.parquet.io.InputFile;

/**
 * One object as Parquet's {@link InputFile}: its length as planned (the work item's object size), and
 * streams of ranged reads ({@link RangedObjectStream}) that refuse the object if its ETag changed.
 */
final class ObjectInputFile implements InputFile {
    private final ObjectStore store;
    private final String bucket;
    private final String key;
    private final String etag;
    private final long length;

    ObjectInputFile(ObjectStore store, String bucket, String key, String etag, long length) {
        this.store = store;
        this.bucket = bucket;
        this.key = key;
        this.etag = etag;
        this.length = length;
    }

    @Override
    public long getLength() {
        return length;
    }

    @Override
    public RangedObjectStream newStream() {
        return new RangedObjectStream(store, bucket, key, etag, length);
    }

    @Override
    public String toString() {
        return "s3://" + bucket + "/" + key;
    }
}
