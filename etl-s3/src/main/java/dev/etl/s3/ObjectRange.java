package dev.etl.s3;

import java.io.IOException;
import java.io.InputStream;

/**
 * Sequential reads of one object from a position, through ranged reads of the store: the first covers
 * {@code [start, firstEnd)} (a split's own range), later ones extend it in growing steps (a split reads
 * past its end to finish its last block or line, usually a little). Reports every byte read to
 * {@link RowOutput#bytesRead} and remembers a failure of the store, so that a decompressor's
 * {@code IOException} can be told apart from corrupt data ({@link #storeFailure()}). One reader thread.
 */
final class ObjectRange extends InputStream {
    private static final int MIN_EXTENSION = 64 * 1024;
    private static final int MAX_EXTENSION = 8 << 20;
    /** A forward skip longer than this reopens the range instead of reading the bytes. */
    private static final long REOPEN_SKIP = 1 << 20;

    private final ObjectStore store;
    private final String bucket;
    private final String key;
    private final String etag;
    /** The object's size, or -1 when unknown (then every read goes to the end of the object). */
    private long objectEnd;

    private final RowOutput progress;
    private InputStream in;
    private long pos;
    /** The end of the current window (exclusive), or -1 for the end of the object. */
    private long windowEnd;

    private long nextExtension = MIN_EXTENSION;
    private IOException failure;

    /**
     * @param objectSize the object's size, or -1 when unknown
     * @param firstEnd   the end of the first window, or -1 for the end of the object
     */
    ObjectRange(
            ObjectStore store,
            String bucket,
            String key,
            String etag,
            long objectSize,
            long start,
            long firstEnd,
            RowOutput progress) {
        this.store = store;
        this.bucket = bucket;
        this.key = key;
        this.etag = etag;
        this.objectEnd = objectSize;
        this.pos = start;
        this.windowEnd = objectSize < 0 ? -1 : (firstEnd < 0 ? objectSize : Math.min(firstEnd, objectSize));
        this.progress = progress;
    }

    static ObjectRange of(ObjectStore store, WorkItem item, long start, long firstEnd, RowOutput progress) {
        return new ObjectRange(
                store, item.bucket(), item.key(), item.etag(), item.objectSize(), start, firstEnd, progress);
    }

    /** The object position of the next byte. */
    long position() {
        return pos;
    }

    /** The failure of the store that ended a read, or null when the store has not failed. */
    IOException storeFailure() {
        return failure;
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
        for (; ; ) {
            if (in != null && (windowEnd < 0 || pos < windowEnd)) {
                int want = windowEnd < 0 ? len : (int) Math.min(len, windowEnd - pos);
                int n;
                try {
                    n = in.read(b, off, want);
                } catch (IOException e) {
                    failure = e;
                    throw e;
                }
                if (n > 0) {
                    pos += n;
                    progress.bytesRead(n);
                    return n;
                }
                if (n < 0) {
                    // The object ends here (before its planned size: its ETag check passed, so it is
                    // the format's business to notice the truncation).
                    closeStream();
                    objectEnd = pos;
                    windowEnd = pos;
                    return -1;
                }
                continue;
            }
            closeStream();
            if (objectEnd >= 0 && pos >= objectEnd) {
                return -1;
            }
            if (windowEnd >= 0 && pos >= windowEnd) {
                long step = Math.max(nextExtension, len);
                nextExtension = Math.min(nextExtension * 2, MAX_EXTENSION);
                windowEnd = objectEnd < 0 ? -1 : Math.min(objectEnd, pos + step);
            }
            try {
                in = store.open(bucket, key, etag, pos, windowEnd);
            } catch (IOException e) {
                failure = e;
                throw e;
            }
        }
    }

    @Override
    public long skip(long n) throws IOException {
        if (n <= 0) {
            return 0;
        }
        long target = objectEnd >= 0 ? Math.min(objectEnd, pos + n) : pos + n;
        if (target - pos > REOPEN_SKIP && objectEnd >= 0) {
            closeStream();
            long skipped = target - pos;
            pos = target;
            return skipped;
        }
        byte[] scratch = new byte[(int) Math.min(64 * 1024, target - pos)];
        long start = pos;
        while (pos < target) {
            int r = read(scratch, 0, (int) Math.min(scratch.length, target - pos));
            if (r < 0) {
                break;
            }
        }
        return pos - start;
    }

    @Override
    public void close() {
        closeStream();
    }

    private void closeStream() {
        if (in != null) {
            InputStream stream = in;
            in = null;
            try {
                stream.close();
            } catch (IOException | RuntimeException e) {
                // Done with these bytes: a failure to release the connection loses no data.
            }
        }
    }
}
