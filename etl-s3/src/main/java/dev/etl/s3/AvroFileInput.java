package dev.etl.s3;

import java.io.IOException;

/**
 * Buffered reads of an Avro object container file over an {@link ObjectRange}: varints, whole byte
 * runs (a block's data goes straight into the caller's array), skips and the sync-marker scan a split
 * starts with. Truncation and malformed varints raise {@link CorruptSplitException} naming the object
 * and the byte position; failures of the store stay {@link IOException}s. One reader thread.
 */
final class AvroFileInput implements AutoCloseable {
    private static final int BUFFER = 64 * 1024;

    private final ObjectRange range;
    private final String where;
    private final byte[] buf = new byte[BUFFER];
    private int bpos;
    private int blim;
    /** The object position of {@code buf[0]}. */
    private long bufStart;

    AvroFileInput(ObjectRange range, String where) {
        this.range = range;
        this.where = where;
        this.bufStart = range.position();
    }

    /** The object position of the next byte. */
    long position() {
        return bufStart + bpos;
    }

    /** Whether the object has no more bytes. */
    boolean atEnd() throws IOException {
        return bpos == blim && fill() <= 0;
    }

    long readLong(String what) throws IOException, CorruptSplitException {
        long at = position();
        long value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (bpos == blim && fill() <= 0) {
                throw corrupt("the object ends inside " + what + " at byte " + at, null);
            }
            int b = buf[bpos++];
            value |= (long) (b & 0x7f) << shift;
            if (b >= 0) {
                return (value >>> 1) ^ -(value & 1);
            }
        }
        throw corrupt("malformed varint (" + what + ") at byte " + at, null);
    }

    /** Reads exactly {@code len} bytes into {@code dst}. */
    void readFully(byte[] dst, int off, int len, String what) throws IOException, CorruptSplitException {
        long at = position();
        int buffered = Math.min(len, blim - bpos);
        System.arraycopy(buf, bpos, dst, off, buffered);
        bpos += buffered;
        int done = buffered;
        // The rest straight from the store, past the buffer: a block's data is copied once.
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
            int n = range.read(dst, off + done, len - done);
            if (n < 0) {
                throw truncated(what, at, len, done);
            }
            bufStart += n;
            done += n;
        }
    }

    /** Skips exactly {@code n} bytes. */
    void skipFully(long n, String what) throws IOException, CorruptSplitException {
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
        long skipped = range.skip(left);
        bufStart += skipped;
        if (skipped < left) {
            throw truncated(what, at, n, n - left + skipped);
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
        int n = range.read(buf, blim, buf.length - blim);
        if (n > 0) {
            blim += n;
        }
        return n;
    }

    CorruptSplitException corrupt(String what, Throwable cause) {
        return new CorruptSplitException(where + ": " + what, cause);
    }

    private CorruptSplitException truncated(String what, long at, long wanted, long got) {
        return corrupt(
                "the object ends inside " + what + " at byte " + at + " (" + got + " of " + wanted + " bytes)", null);
    }

    @Override
    public void close() {
        range.close();
    }
}
