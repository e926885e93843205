package dev.etl.s3;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An {@link ObjectStore} in memory for tests: objects by bucket and key with an MD5 ETag, ranged reads
 * with the ETag check, and injectable failures (the n-th open fails, or a stream fails after some
 * bytes). Counts opens and bytes served, so tests can check that reads stay bounded.
 */
final class InMemoryObjectStore implements ObjectStore {
    private final Map<String, ConcurrentSkipListMap<String, byte[]>> buckets = new ConcurrentHashMap<>();
    /** ETags by array identity: an MD5 per open would dominate the tests' time. */
    private final Map<byte[], String> etags = java.util.Collections.synchronizedMap(new java.util.IdentityHashMap<>());

    private final AtomicInteger opens = new AtomicInteger();
    private final AtomicLong bytesServed = new AtomicLong();
    private volatile long failStreamAfterBytes = -1;
    private volatile int failOpenNumber = -1;

    ObjectInfo put(String bucket, String key, byte[] data) {
        byte[] copy = data.clone();
        etags.put(copy, md5(copy));
        buckets.computeIfAbsent(bucket, b -> new ConcurrentSkipListMap<>()).put(key, copy);
        return info(bucket, key, copy);
    }

    /** The next streams fail with an IOException after this many bytes in total (-1: never). */
    void failStreamsAfter(long bytes) {
        failStreamAfterBytes = bytes;
    }

    /** The open with this number (1-based, counted from now on) fails. */
    void failOpen(int number) {
        failOpenNumber = opens.get() + number;
    }

    int opens() {
        return opens.get();
    }

    long bytesServed() {
        return bytesServed.get();
    }

    @Override
    public List<ObjectInfo> list(String bucket, String prefix) {
        List<ObjectInfo> out = new ArrayList<>();
        ConcurrentSkipListMap<String, byte[]> objects = buckets.getOrDefault(bucket, new ConcurrentSkipListMap<>());
        for (Map.Entry<String, byte[]> e : objects.tailMap(prefix).entrySet()) {
            if (!e.getKey().startsWith(prefix)) {
                break;
            }
            out.add(info(bucket, e.getKey(), e.getValue()));
        }
        return out;
    }

    @Override
    public ObjectInfo head(String bucket, String key) throws IOException {
        return info(bucket, key, get(bucket, key));
    }

    @Override
    public InputStream open(String bucket, String key, String etag, long start, long end) throws IOException {
        int number = opens.incrementAndGet();
        if (number == failOpenNumber) {
            throw new IOException("injected open failure of s3://" + bucket + "/" + key);
        }
        byte[] data = get(bucket, key);
        if (etag != null && !etag.isEmpty() && !etag.equals(etags.get(data))) {
            throw new IOException("s3://" + bucket + "/" + key + " changed since the backfill was planned");
        }
        int from = (int) Math.min(start, data.length);
        int to = (int) (end < 0 ? data.length : Math.min(end, data.length));
        return new RangeStream(data, from, Math.max(from, to));
    }

    @Override
    public String describe() {
        return "memory";
    }

    private byte[] get(String bucket, String key) throws FileNotFoundException {
        byte[] data =
                buckets.getOrDefault(bucket, new ConcurrentSkipListMap<>()).get(key);
        if (data == null) {
            throw new FileNotFoundException("s3://" + bucket + "/" + key + " not found");
        }
        return data;
    }

    private ObjectInfo info(String bucket, String key, byte[] data) {
        return new ObjectInfo(bucket, key, data.length, etags.get(data));
    }

    static String md5(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(data));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private final class RangeStream extends InputStream {
        private final byte[] data;
        private int pos;
        private final int end;

        RangeStream(byte[] data, int pos, int end) {
            this.data = data;
            this.pos = pos;
            this.end = end;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            if (pos >= end) {
                return -1;
            }
            int n = Math.min(len, end - pos);
            long limit = failStreamAfterBytes;
            long served = bytesServed.addAndGet(n);
            if (limit >= 0 && served > limit) {
                throw new IOException("injected read failure");
            }
            System.arraycopy(data, pos, b, off, n);
            pos += n;
            return n;
        }
    }
}
