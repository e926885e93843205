package dev.etl.s3.parquet;

import dev.etl.s3.ObjectStore;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Objects;
import org.apache.parquet.io.SeekableInputStream;

/**
 * A seekable view of one object made of ranged {@link ObjectStore#open} calls. Parquet reads a file as
 * a few small reads at the tail (the footer's length and magic, then the footer) and one large read per
 * row group (its column chunks, which lie next to each other); this stream turns those into about one
 * request each:
 *
 * <ul>
 *   <li>small reads are served from a read-ahead buffer, so a run of them is one request; a small read in
 *       the last {@link #BUFFER_BYTES} of the object fills the buffer with the whole tail, so the footer's
 *       length, magic and (when small) body arrive together;
 *   <li>reads inside the span set by {@link #expect} (a row group's bytes) request the rest of the span at
 *       once; elsewhere a request reaches at least {@link #READ_AHEAD_BYTES} past the read;
 *   <li>a forward seek of up to {@link #MAX_FORWARD_SKIP} inside the open range reads through; a backward
 *       or far seek closes the transfer (the store aborts it) and opens a new range.
 * </ul>
 *
 * <p>A failure of the store (opening or reading a range) is thrown as a {@link StorageFailure}, so the
 * caller tells it apart from data Parquet cannot decode. An object that ends before the length it was
 * planned with is an {@link EOFException}: its data is not what was planned. Not thread-safe: one
 * reader thread owns it.
 */
final class RangedObjectStream extends SeekableInputStream {
    /**
     * The read-ahead buffer: small reads, and the tail (so a footer up to about this size arrives with
     * the first request; a larger one takes a second).
     */
    static final int BUFFER_BYTES = 256 * 1024;
    /** The least a request asks for outside an expected span. */
    static final long READ_AHEAD_BYTES = 1024 * 1024;
    /** A forward seek up to this far inside the open range reads through instead of opening another. */
    static final long MAX_FORWARD_SKIP = 256 * 1024;

    private final ObjectStore store;
    private final String bucket;
    private final String key;
    private final String etag;
    private final long length;
    private final byte[] buffer = new byte[BUFFER_BYTES];

    private long bufferStart;
    private int bufferLength;
    private long pos;

    private InputStream in;
    private long inPos;
    private long inEnd;

    private long spanStart;
    private long spanEnd;

    private long bytesFetched;
    private int requests;

    RangedObjectStream(ObjectStore store, String bucket, String key, String etag, long length) {
        this.store = Objects.requireNonNull(store, "store");
        this.bucket = Objects.requireNonNull(bucket, "bucket");
        this.key = Objects.requireNonNull(key, "key");
        this.etag = etag == null ? "" : etag;
        if (length < 0) {
            throw new IllegalArgumentException("negative length " + length + " of " + describe());
        }
        this.length = length;
    }

    /**
     * The reader will next read {@code [start, end)} in order (a row group): a request opened inside it
     * asks for all of the rest.
     */
    void expect(long start, long end) {
        spanStart = start;
        spanEnd = end;
    }

    /** Bytes received from the store so far (including any read through on forward seeks). */
    long bytesFetched() {
        return bytesFetched;
    }

    /** Ranged requests made so far. */
    int requests() {
        return requests;
    }

    @Override
    public long getPos() {
        return pos;
    }

    @Override
    public void seek(long newPos) throws IOException {
        if (newPos < 0 || newPos > length) {
            throw new EOFException("seek to " + newPos + " outside " + describe() + " (" + length + " bytes)");
        }
        pos = newPos;
    }

    @Override
    public int read() throws IOException {
        if (pos >= length) {
            return -1;
        }
        if (!buffered(pos)) {
            fill(1);
        }
        return buffer[(int) (pos++ - bufferStart)] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
            return 0;
        }
        if (pos >= length) {
            return -1;
        }
        return readSome(b, off, len);
    }

    @Override
    public void readFully(byte[] bytes) throws IOException {
        readFully(bytes, 0, bytes.length);
    }

    @Override
    public void readFully(byte[] bytes, int start, int len) throws IOException {
        Objects.checkFromIndexSize(start, len, bytes.length);
        int done = 0;
        while (done < len) {
            if (pos >= length) {
                throw eof(len - done);
            }
            done += readSome(bytes, start + done, len - done);
        }
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        if (!dst.hasRemaining()) {
            return 0;
        }
        if (pos >= length) {
            return -1;
        }
        if (dst.hasArray()) {
            int n = readSome(dst.array(), dst.arrayOffset() + dst.position(), dst.remaining());
            dst.position(dst.position() + n);
            return n;
        }
        // A direct buffer goes through the read-ahead buffer (at most its size per call).
        if (!buffered(pos)) {
            fill(Math.min(dst.remaining(), BUFFER_BYTES));
        }
        int offset = (int) (pos - bufferStart);
        int n = Math.min(dst.remaining(), bufferLength - offset);
        dst.put(buffer, offset, n);
        pos += n;
        return n;
    }

    @Override
    public void readFully(ByteBuffer dst) throws IOException {
        while (dst.hasRemaining()) {
            if (read(dst) < 0) {
                throw eof(dst.remaining());
            }
        }
    }

    @Override
    public void close() {
        closeTransfer();
        bufferLength = 0;
    }

    /** Reads between 1 and {@code len} bytes at {@code pos} ({@code pos < length}). */
    private int readSome(byte[] b, int off, int len) throws IOException {
        int n = (int) Math.min(len, length - pos);
        if (buffered(pos)) {
            int offset = (int) (pos - bufferStart);
            n = Math.min(n, bufferLength - offset);
            System.arraycopy(buffer, offset, b, off, n);
            pos += n;
            return n;
        }
        if (n >= BUFFER_BYTES) {
            // Large (a row group's chunks): straight from the transfer, no copy through the buffer.
            transferAt(pos, n, 1);
            n = (int) Math.min(n, inEnd - inPos);
            receive(b, off, n);
            pos += n;
            return n;
        }
        fill(n);
        int offset = (int) (pos - bufferStart);
        n = Math.min(n, bufferLength - offset);
        System.arraycopy(buffer, offset, b, off, n);
        pos += n;
        return n;
    }

    private boolean buffered(long position) {
        return position >= bufferStart && position < bufferStart + bufferLength;
    }

    /** Loads the buffer with bytes from {@code pos} on (or from before it, at the tail). */
    private void fill(int need) throws IOException {
        long start = pos;
        if (!transferReaches(pos) && length - pos < BUFFER_BYTES) {
            // The tail: the footer is read backwards from the end, so take all of the last buffer's worth.
            start = Math.max(0, length - BUFFER_BYTES);
        }
        bufferLength = 0;
        // The buffer must reach past pos: an open transfer that ends before it is not reused.
        transferAt(start, need + (pos - start), pos - start + 1);
        int want = (int) Math.min(BUFFER_BYTES, inEnd - inPos);
        receive(buffer, 0, want);
        bufferStart = start;
        bufferLength = want;
    }

    private boolean transferReaches(long position) {
        return in != null && position >= inPos && position < inEnd && position - inPos <= MAX_FORWARD_SKIP;
    }

    /**
     * Makes the open transfer's next byte the one at {@code position}, with at least {@code minimum} bytes
     * left in its range, opening a range (of about {@code need} bytes or more) if needed.
     */
    private void transferAt(long position, long need, long minimum) throws IOException {
        if (transferReaches(position) && inEnd - position >= minimum) {
            skipTransfer(position - inPos);
            return;
        }
        closeTransfer();
        long end;
        if (position >= spanStart && position < spanEnd) {
            end = Math.max(spanEnd, position + need);
        } else {
            end = position + Math.max(need, READ_AHEAD_BYTES);
        }
        end = Math.min(end, length);
        try {
            in = store.open(bucket, key, etag, position, end);
        } catch (IOException e) {
            throw new StorageFailure(e);
        }
        requests++;
        inPos = position;
        inEnd = end;
    }

    private void skipTransfer(long n) throws IOException {
        // The buffer is scratch space here: whatever it held is not needed, or fill() refills it.
        bufferLength = 0;
        long left = n;
        while (left > 0) {
            int chunk = (int) Math.min(left, BUFFER_BYTES);
            receive(buffer, 0, chunk);
            left -= chunk;
        }
    }

    /** Reads exactly {@code n} bytes of the open transfer into {@code b}. */
    private void receive(byte[] b, int off, int n) throws IOException {
        int done = 0;
        while (done < n) {
            int r;
            try {
                r = in.read(b, off + done, n - done);
            } catch (IOException e) {
                closeTransfer();
                throw new StorageFailure(e);
            }
            if (r < 0) {
                long at = inPos;
                closeTransfer();
                throw new EOFException(describe() + " ended at byte " + at + " of the " + length
                        + " it was planned with (the object is shorter than planned)");
            }
            done += r;
            inPos += r;
            bytesFetched += r;
        }
    }

    private void closeTransfer() {
        if (in != null) {
            InputStream open = in;
            in = null;
            try {
                open.close();
            } catch (IOException e) {
                // Closing early aborts the transfer; nothing read depends on it.
            }
        }
    }

    private EOFException eof(long missing) {
        return new EOFException("read past the end of " + describe() + " (" + length + " bytes, " + missing
                + " more wanted at " + pos + ")");
    }

    String describe() {
        return "s3://" + bucket + "/" + key;
    }

    @Override
    public String toString() {
        return describe();
    }
}
