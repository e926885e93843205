package dev.etl.it.s3;

import dev.etl.s3.ObjectInfo;
import dev.etl.s3.ObjectStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;

/** An in-memory object store for the backfill lane ITs (one bucket namespace per instance). */
final class MemoryObjectStore implements ObjectStore {
    private final Map<String, byte[]> objects = new ConcurrentSkipListMap<>();
    /** Fail this many opens with an IOException (storage hiccups the reader retries). */
    final AtomicInteger failOpens = new AtomicInteger();

    void put(String bucket, String key, byte[] bytes) {
        objects.put(bucket + "/" + key, bytes);
    }

    @Override
    public List<ObjectInfo> list(String bucket, String prefix) {
        List<ObjectInfo> out = new ArrayList<>();
        objects.forEach((k, v) -> {
            if (k.startsWith(bucket + "/" + prefix)) {
                out.add(new ObjectInfo(bucket, k.substring(bucket.length() + 1), v.length, ""));
            }
        });
        return out;
    }

    @Override
    public ObjectInfo head(String bucket, String key) throws IOException {
        byte[] bytes = objects.get(bucket + "/" + key);
        if (bytes == null) {
            throw new IOException("no object s3://" + bucket + "/" + key);
        }
        return new ObjectInfo(bucket, key, bytes.length, "");
    }

    @Override
    public InputStream open(String bucket, String key, String etag, long start, long end) throws IOException {
        if (failOpens.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw new IOException("injected storage failure");
        }
        byte[] bytes = objects.get(bucket + "/" + key);
        if (bytes == null) {
            throw new IOException("no object s3://" + bucket + "/" + key);
        }
        int to = end < 0 ? bytes.length : (int) Math.min(end, bytes.length);
        return new ByteArrayInputStream(bytes, (int) start, to - (int) start);
    }

    @Override
    public String describe() {
        return "memory";
    }
}
