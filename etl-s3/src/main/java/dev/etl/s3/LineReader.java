package dev.etl.s3;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Splits a byte stream into lines ({@code \n} or {@code \r\n}; the last line may lack one) and hands the
 * non-blank ones to a {@link RowOutput} straight from its buffer. A line that fits the buffer costs no
 * copy; the buffer grows for a longer line, up to the line limit, and a longer line is a
 * {@link CorruptSplitException} naming where it starts: memory stays bounded whatever the input. Blank
 * lines (empty or JSON whitespace only) are not rows. Positions are in the stream's coordinates plus
 * the {@code base} given (object bytes for a plain object, decompressed bytes for a compressed one).
 */
final class LineReader {
    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final long NEWLINES = 0x0A0A0A0A0A0A0A0AL;
    private static final int INITIAL_BUFFER = 64 * 1024;

    private final InputStream in;
    private final int maxLineBytes;
    private final String where;
    private final String unit;

    private byte[] buf;
    private int pos;
    private int lim;
    /** Where the search for the current line's {@code \n} resumes (all before it was searched). */
    private int scan;
    /** The stream position of {@code buf[0]}. */
    private long base;

    private boolean eof;
    /** Where the first line starts when a byte-order mark was skipped before it, else -1. */
    private long markedLineStart = -1;
    /** The line {@link #nextLine} found: {@code [lineStart, lineEnd)}, without its {@code \n}. */
    private int lineStart;

    private int lineEnd;

    /**
     * @param base the stream position of the first byte {@code in} gives
     * @param unit how positions are described in errors ({@code "byte"}, {@code "decompressed byte"})
     */
    LineReader(InputStream in, long base, int maxLineBytes, String where, String unit) {
        this.in = in;
        this.base = base;
        this.maxLineBytes = maxLineBytes;
        this.where = where;
        this.unit = unit;
        this.buf = new byte[(int) Math.min(INITIAL_BUFFER, (long) maxLineBytes + 2)];
    }

    /** The position of the next line's first byte. */
    long position() {
        return base + pos;
    }

    /** Skips a UTF-8 byte-order mark at the current position (the start of an object). */
    void skipByteOrderMark() throws IOException {
        while (lim - pos < 3 && !eof) {
            fill();
        }
        if (lim - pos >= 3 && buf[pos] == (byte) 0xEF && buf[pos + 1] == (byte) 0xBB && buf[pos + 2] == (byte) 0xBF) {
            // The line still starts where the mark does: that decides which split owns it.
            markedLineStart = base + pos;
            pos += 3;
            scan = pos;
        }
    }

    /**
     * Skips to just after the next {@code \n}, without keeping the bytes.
     *
     * @return false when the stream ended first
     */
    boolean skipPastNewline() throws IOException {
        for (; ; ) {
            int nl = indexOfNewline(buf, pos, lim);
            if (nl >= 0) {
                pos = nl + 1;
                scan = pos;
                return true;
            }
            pos = lim;
            scan = lim;
            if (eof) {
                return false;
            }
            fill();
        }
    }

    /**
     * Hands the non-blank lines that start before {@code end} to {@code out}, after skipping
     * {@code skipRows} of them.
     */
    void deliver(long end, long skipRows, RowOutput out) throws IOException, CorruptSplitException {
        long skip = skipRows;
        for (; ; ) {
            long at = markedLineStart >= 0 ? markedLineStart : base + pos;
            markedLineStart = -1;
            if (at >= end || !nextLine()) {
                return;
            }
            int start = lineStart;
            int stop = lineEnd;
            if (stop > start && buf[stop - 1] == '\r') {
                stop--;
            }
            if (blank(buf, start, stop)) {
                continue;
            }
            if (skip > 0) {
                skip--;
                continue;
            }
            out.row(buf, start, stop - start);
        }
    }

    /** Finds the next line: {@code [lineStart, lineEnd)} without its {@code \n}; false at the end. */
    private boolean nextLine() throws IOException, CorruptSplitException {
        for (; ; ) {
            int nl = indexOfNewline(buf, scan, lim);
            if (nl >= 0) {
                checkLength(nl - pos - (nl > pos && buf[nl - 1] == '\r' ? 1 : 0));
                lineStart = pos;
                lineEnd = nl;
                pos = nl + 1;
                scan = pos;
                return true;
            }
            scan = lim;
            if (lim - pos > maxLineBytes + 1) {
                throw tooLong();
            }
            if (eof) {
                if (pos == lim) {
                    return false;
                }
                checkLength(lim - pos);
                lineStart = pos;
                lineEnd = lim;
                pos = lim;
                scan = lim;
                return true;
            }
            fill();
        }
    }

    private void checkLength(int length) throws CorruptSplitException {
        if (length > maxLineBytes) {
            throw tooLong();
        }
    }

    private CorruptSplitException tooLong() {
        return new CorruptSplitException(
                where + ": the line starting at " + unit + " " + (base + pos) + " is longer than the limit of "
                        + maxLineBytes + " bytes",
                null);
    }

    /** Makes room (moving the current line to the front, or growing up to the limit) and reads more. */
    private void fill() throws IOException {
        if (pos > 0) {
            int left = lim - pos;
            System.arraycopy(buf, pos, buf, 0, left);
            base += pos;
            scan -= pos;
            pos = 0;
            lim = left;
        }
        if (lim == buf.length) {
            int cap = (int) Math.min((long) maxLineBytes + 2, 2L * buf.length);
            if (cap <= buf.length) {
                return; // full at the limit: the caller sees the line is too long
            }
            buf = Arrays.copyOf(buf, cap);
        }
        int n = in.read(buf, lim, buf.length - lim);
        if (n < 0) {
            eof = true;
        } else {
            lim += n;
        }
    }

    private static boolean blank(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            byte c = b[i];
            if (c != ' ' && c != '\t' && c != '\r') {
                return false;
            }
        }
        return true;
    }

    /** The first {@code \n} in {@code [from, to)}, eight bytes at a time, or -1. */
    static int indexOfNewline(byte[] b, int from, int to) {
        int i = from;
        for (; i + 8 <= to; i += 8) {
            long x = (long) LONG_LE.get(b, i) ^ NEWLINES;
            long found = (x - ONES) & ~x & HIGHS;
            if (found != 0) {
                return i + (Long.numberOfTrailingZeros(found) >>> 3);
            }
        }
        for (; i < to; i++) {
            if (b[i] == '\n') {
                return i;
            }
        }
        return -1;
    }
}
