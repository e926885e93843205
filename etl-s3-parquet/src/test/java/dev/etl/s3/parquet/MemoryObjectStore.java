package dev.etl.s3.parquet;

import dev.etl.s3.ObjectInfo;
import dev.etl.s3.ObjectStore;
import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An in-memory object store for tests: objects by bucket and key, ranged reads honoured exactly, ETags
 * checked, every {@link #open} counted and recorded, and a failure switch for storage errors.
 */
final class MemoryObjectStore implements ObjectStore {
    private final Map<String, byte[]> objects = Collections.synchronizedMap(new TreeMap<>());
    private final Map<String, String> etags = Collections.synchronizedMap(new TreeMap<>());
    private final AtomicInteger opens = new AtomicInteger();
    private final List<long[]> ranges = Collections.synchronizedList(new ArrayList<>());
    private volatile long failReadsAtOrAfter = -1;
    private volatile boolean failOpens;

    ObjectInfo put(String bucket, String key, byte[] bytes) {
        String id = bucket + "/" + key;
        objects.put(id, bytes.clone());
        String etag = Integer.toHexString(Arrays.hashCode(bytes)) + "-" + bytes.length;
        etags.put(id, etag);
        return new ObjectInfo(bucket, key, bytes.length, etag);
    }

    /** Ranged opens so far. */
    int opens() {
        return opens.get();
    }

    /** The {@code [start, end)} of every open so far. */
    List<long[]> ranges() {
        synchronized (ranges) {
            return new ArrayList<>(ranges);
        }
    }

    void resetCounts() {
        opens.set(0);
        ranges.clear();
    }

    /** Every open fails from now on (or no longer). */
    void failOpens(boolean fail) {
        failOpens = fail;
    }

    /** A stream whose range holds this byte of an object fails when it reaches it (-1: never). */
    void failReadsAt(long position) {
        failReadsAtOrAfter = position;
    }

    @Override
    public List<ObjectInfo> list(String bucket, String prefix) {
        List<ObjectInfo> out = new ArrayList<>();
        synchronized (objects) {
            for (Map.Entry<String, byte[]> e : objects.entrySet()) {
                String key = e.getKey().substring(bucket.length() + 1);
                if (e.getKey().startsWith(bucket + "/") && key.startsWith(prefix)) {
                    out.add(new ObjectInfo(bucket, key, e.getValue().length, etags.get(e.getKey())));
                }
            }
        }
        return out;
    }

    @Override
    public ObjectInfo head(String bucket, String key) throws IOException {
        byte[] bytes = objects.get(bucket + "/" + key);
        if (bytes == null) {
            throw new IOException("no object s3://" + bucket + "/" + key);
        }
        return new ObjectInfo(bucket, key, bytes.length, etags.get(bucket + "/" + key));
    }

    @Override
    public InputStream open(String bucket, String key, String etag, long start, long end) throws IOException {
        opens.incrementAndGet();
        ranges.add(new long[] {start, end});
        if (failOpens) {
            throw new IOException("injected: connection refused");
        }
        String id = bucket + "/" + key;
        byte[] bytes = objects.get(id);
        if (bytes == null) {
            throw new IOException("no object s3://" + id);
        }
        if (!etag.isEmpty() && !etag.equals(etags.get(id))) {
            throw new IOException("s3://" + id + " changed: ETag " + etags.get(id) + ", planned " + etag);
        }
        long stop = end == -1 ? bytes.length : Math.min(end, bytes.length);
        if (start < 0 || start > stop) {
            throw new IOException("bad range [" + start + ", " + end + ") of s3://" + id);
        }
        long failAt = failReadsAtOrAfter;
        InputStream range = new ByteArrayInputStream(bytes, (int) start, (int) (stop - start));
        if (failAt < start || failAt >= stop) {
            return range;
        }
        return new FilterInputStream(range) {
            private long pos = start;

            @Override
            public int read() throws IOException {
                check(1);
                int b = super.read();
                pos += b < 0 ? 0 : 1;
                return b;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                check(len);
                int n = super.read(b, off, (int) Math.min(len, Math.max(1, failAt - pos)));
                pos += Math.max(n, 0);
                return n;
            }

            private void check(int len) throws IOException {
                if (len > 0 && pos >= failAt) {
                    throw new IOException("injected: connection reset at byte " + pos);
                }
            }
        };
    }

    @Override
    public String describe() {
        return "memory";
    }
}
