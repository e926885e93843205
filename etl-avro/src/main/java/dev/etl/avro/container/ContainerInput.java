package dev.etl.avro.container;

import dev.etl.avro.binary.AvroCursor;
import dev.etl.avro.binary.MalformedAvroException;
import java.io.IOException;
import java.io.InputStream;

/**
 * Buffered reads of an Avro object container file over an {@link InputStream}: varints (decoded by the
 * shared {@link AvroCursor} over the buffer, so the codebase has one varint implementation), whole byte
 * runs (a block's data goes straight into the caller's array), skips and the sync-marker scan a split
 * starts with. Truncation and malformed varints raise {@link MalformedAvroException} naming the byte
 * position in the file; failures of the stream stay {@link IOException}s. One reader thread.
 */
final class ContainerInput {
    private static final int BUFFER = 64 * 1024;
    /** The longest varint (a long): with this many bytes buffered, the cursor needs no more. */
    private static final int MAX_VARINT = 10;

    private final InputStream in;
    private final byte[] buf = new byte[BUFFER];
    private final AvroCursor cursor = new AvroCursor();
    private int bpos;
    private int blim;
    /** The file position of {@code buf[0]}. */
    private long bufStart;

    /** @param position the file position of the stream's next byte */
    ContainerInput(InputStream in, long position) {
        this.in = in;
        this.bufStart = position;
    }

    /** The file position of the next byte. */
    long position() {
        return bufStart + bpos;
    }

    /** Whether the file has no more bytes. */
    boolean atEnd() throws IOException {
        return bpos == blim && fill() <= 0;
    }

    /** Reads a zig-zag varint long ({@code what} names it in errors). */
    long readLong(String what) throws IOException {
        long at = position();
        while (blim - bpos < MAX_VARINT && fill() > 0) {
            // buffer the longest varint, or up to the end of the file
        }
        int available = blim - bpos;
        cursor.wrap(buf, bpos, available);
        try {
            long value = cursor.readLong();
            bpos = cursor.mark();
            return value;
        } catch (MalformedAvroException e) {
            // Fewer than MAX_VARINT bytes buffered means the file ended: the cursor ran out of bytes.
            throw available < MAX_VARINT
                    ? new MalformedAvroException("the object ends inside " + what + " at byte " + at)
                    : new MalformedAvroException("malformed varint (" + what + ") at byte " + at);
        }
    }

    /** Reads exactly {@code len} bytes into {@code dst}. */
    void readFully(byte[] dst, int off, int len, String what) throws IOException {
        long at = position();
        int buffered = Math.min(len, blim - bpos);
        System.arraycopy(buf, bpos, dst, off, buffered);
        bpos += buffered;
        int done = buffered;
        // The rest straight from the stream, past the buffer: a block's data is copied once.
        while (done < len) {
            if (len - done < BUFFER / 2) {
                if (fill() <= 0) {
                    throw truncated(what, at, len, done);
                }
                int n = Math.min(len - done, blim - bpos);
                System.arraycopy(buf, bpos, dst, off + done, n);
                bpos += n;
                done += n;
                continue;
            }
            bufStart += blim;
            bpos = 0;
            blim = 0;
            int n = in.read(dst, off + done, len - done);
            if (n < 0) {
                throw truncated(what, at, len, done);
            }
            bufStart += n;
            done += n;
        }
    }

    /** Skips exactly {@code n} bytes. */
    void skipFully(long n, String what) throws IOException {
        long at = position();
        int buffered = (int) Math.min(n, blim - bpos);
        bpos += buffered;
        long left = n - buffered;
        if (left == 0) {
            return;
        }
        bufStart += blim;
        bpos = 0;
        blim = 0;
        while (left > 0) {
            long skipped = in.skip(left);
            if (skipped <= 0) {
                // InputStream.skip may skip nothing before the end: one read tells the end apart.
                if (in.read() < 0) {
                    throw truncated(what, at, n, n - left);
                }
                skipped = 1;
            }
            bufStart += skipped;
            left -= skipped;
        }
    }

    /**
     * Scans for {@code sync} from the current position and stops just after it.
     *
     * @param stopAt a marker must begin before this position
     * @return whether a marker was found
     */
    boolean skipPastSync(byte[] sync, long stopAt) throws IOException {
        byte first = sync[0];
        for (; ; ) {
            int last = blim - sync.length;
            for (int i = bpos; i <= last; i++) {
                if (bufStart + i >= stopAt) {
                    bpos = i;
                    return false;
                }
                if (buf[i] == first && matches(i, sync)) {
                    bpos = i + sync.length;
                    return true;
                }
            }
            // Keep the last sync.length - 1 bytes: a marker may straddle the refill.
            bpos = Math.max(bpos, blim - sync.length + 1);
            if (bufStart + bpos >= stopAt || fill() <= 0) {
                return false;
            }
        }
    }

    private boolean matches(int at, byte[] sync) {
        for (int j = 1; j < sync.length; j++) {
            if (buf[at + j] != sync[j]) {
                return false;
            }
        }
        return true;
    }

    /** Moves the unread bytes to the front and reads more; the number read, or -1 at the end. */
    private int fill() throws IOException {
        if (bpos > 0) {
            int left = blim - bpos;
            System.arraycopy(buf, bpos, buf, 0, left);
            bufStart += bpos;
            bpos = 0;
            blim = left;
        }
        if (blim == buf.length) {
            return 0;
        }
        int n = in.read(buf, blim, buf.length - blim);
        if (n > 0) {
            blim += n;
        }
        return n;
    }

    private static MalformedAvroException truncated(String what, long at, long wanted, long got) {
        return new MalformedAvroException(
                "the object ends inside " + what + " at byte " + at + " (" + got + " of " + wanted + " bytes)");
    }

    void close() throws IOException {
        in.close();
    }
}
