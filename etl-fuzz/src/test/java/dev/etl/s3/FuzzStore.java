package dev.etl.s3;

import java.io.ByteArrayInputStream;
import java.io.FileNotFoundException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** One object in memory, and the row outputs of the S3 fuzz targets. */
final class FuzzStore implements ObjectStore {
    static final String BUCKET = "fuzz";

    private final String key;
    private final byte[] data;

    FuzzStore(String key, byte[] data) {
        this.key = key;
        this.data = data;
    }

    ObjectInfo info() {
        return new ObjectInfo(BUCKET, key, data.length, "etag");
    }

    WorkItem whole(String format) {
        return new WorkItem(format, BUCKET, key, 0, -1, data.length, "etag");
    }

    @Override
    public List<ObjectInfo> list(String bucket, String prefix) {
        return List.of(info());
    }

    @Override
    public ObjectInfo head(String bucket, String key) throws FileNotFoundException {
        if (!this.key.equals(key)) {
            throw new FileNotFoundException(key);
        }
        return info();
    }

    @Override
    public InputStream open(String bucket, String key, String etag, long start, long end) throws FileNotFoundException {
        if (!this.key.equals(key)) {
            throw new FileNotFoundException(key);
        }
        int from = (int) Math.min(start, data.length);
        int to = end < 0 ? data.length : (int) Math.min(end, data.length);
        return new ByteArrayInputStream(data, from, Math.max(0, to - from));
    }

    @Override
    public String describe() {
        return "fuzz-store";
    }

    /**
     * Counts the rows and hashes them (length and bytes), allocating nothing per row: what the measured
     * read hands out. A {@link Copies} read of the same item gives the rows themselves.
     */
    static final class Digest implements RowOutput {
        private final MessageDigest sha;
        long rows;
        long bytesRead;

        Digest() {
            try {
                sha = MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void row(byte[] array, int offset, int length) {
            rows++;
            sha.update((byte) (length >>> 24));
            sha.update((byte) (length >>> 16));
            sha.update((byte) (length >>> 8));
            sha.update((byte) length);
            sha.update(array, offset, length);
        }

        @Override
        public void bytesRead(long bytes) {
            bytesRead += bytes;
        }

        byte[] digest() {
            return sha.digest();
        }

        static byte[] of(List<byte[]> rows) {
            Digest d = new Digest();
            for (byte[] row : rows) {
                d.row(row, 0, row.length);
            }
            return d.digest();
        }
    }

    /** Keeps copies of the rows. */
    static final class Copies implements RowOutput {
        final List<byte[]> rows = new ArrayList<>();

        @Override
        public void row(byte[] array, int offset, int length) {
            rows.add(Arrays.copyOfRange(array, offset, offset + length));
        }

        @Override
        public void bytesRead(long bytes) {}
    }
}
