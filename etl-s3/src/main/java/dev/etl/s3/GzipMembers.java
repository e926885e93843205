package dev.etl.s3;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;
import java.util.zip.ZipException;

/**
 * A gzip stream (RFC 1952) of one or more members, decompressed: each member's header is parsed, its
 * data inflated and its CRC-32 and length checked (and the header's CRC-16, when it has one), then the next
 * member follows until the input ends.
 * Unlike {@link java.util.zip.GZIPInputStream}, which decides whether another member follows by
 * {@code available()} (so a network stream that pauses at a member boundary loses the rest silently),
 * this reads on until the input says end of stream. Truncation, a bad header or trailer, and bytes after
 * the last member that are not a member are {@link ZipException}s or {@link EOFException}s; the
 * caller tells them apart from failures of the store. One reader thread.
 */
final class GzipMembers extends InputStream {
    private static final int FHCRC = 2;
    private static final int FEXTRA = 4;
    private static final int FNAME = 8;
    private static final int FCOMMENT = 16;

    private final InputStream in;
    private final byte[] input = new byte[64 * 1024];
    private int inPos;
    private int inLim;
    /** The input position of {@code input[0]} (for error messages). */
    private long inBase;

    private final Inflater inflater = new Inflater(true);
    private final CRC32 crc = new CRC32();
    /** The CRC-32 of the member's header so far, for its CRC-16 (FHCRC). */
    private final CRC32 header = new CRC32();
    /** Whether the bytes read ({@link #byteAt}) are a header's, before its CRC-16. */
    private boolean inHeader;

    private long memberStart;
    private boolean inMember;
    private boolean done;

    GzipMembers(InputStream in) {
        this.in = in;
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
            if (done) {
                return -1;
            }
            if (!inMember) {
                startMember();
                continue;
            }
            int n;
            try {
                n = inflater.inflate(b, off, len);
            } catch (DataFormatException e) {
                throw new ZipException(
                        "the gzip member at byte " + memberStart + " does not inflate: " + e.getMessage());
            }
            if (n > 0) {
                crc.update(b, off, n);
                return n;
            }
            if (inflater.finished()) {
                inPos = inLim - inflater.getRemaining();
                endMember();
            } else if (inflater.needsDictionary()) {
                throw new ZipException("the gzip member at byte " + memberStart + " asks for a preset dictionary");
            } else if (inflater.needsInput()) {
                inPos = inLim;
                if (!refill()) {
                    throw new EOFException("the gzip stream ends inside the member at byte " + memberStart);
                }
                inflater.setInput(input, inPos, inLim - inPos);
            }
        }
    }

    private void startMember() throws IOException {
        memberStart = inBase + inPos;
        if (memberStart == 0 && !available(1)) {
            throw new EOFException("the gzip stream is empty");
        }
        header.reset();
        inHeader = true;
        if (byteAt() != 0x1f || byteAt() != 0x8b) {
            throw new ZipException("no gzip member at byte " + memberStart + " (bad magic)");
        }
        if (byteAt() != 8) {
            throw new ZipException("the gzip member at byte " + memberStart + " is not deflate");
        }
        int flags = byteAt();
        if ((flags & 0xe0) != 0) {
            throw new ZipException("the gzip member at byte " + memberStart + " has reserved flags set");
        }
        skip(6); // mtime, extra flags, OS
        if ((flags & FEXTRA) != 0) {
            skip(byteAt() | (byteAt() << 8));
        }
        if ((flags & FNAME) != 0) {
            skipZeroTerminated();
        }
        if ((flags & FCOMMENT) != 0) {
            skipZeroTerminated();
        }
        inHeader = false;
        if ((flags & FHCRC) != 0) {
            // RFC 1952: the low 16 bits of the CRC-32 of the header bytes before it. GZIPInputStream checks it
            // and fails before any data; so do we (found by etl-fuzz: a corrupt header inflated to a row first).
            int expected = byteAt() | (byteAt() << 8);
            if (expected != (int) (header.getValue() & 0xffff)) {
                throw new ZipException("the gzip member at byte " + memberStart + " fails its header CRC-16 check");
            }
        }
        inflater.reset();
        crc.reset();
        inflater.setInput(input, inPos, inLim - inPos);
        inMember = true;
    }

    private void endMember() throws IOException {
        long expectedCrc = uint32();
        long expectedSize = uint32();
        if (expectedCrc != crc.getValue()) {
            throw new ZipException("the gzip member at byte " + memberStart + " fails its CRC-32 check");
        }
        if (expectedSize != (inflater.getBytesWritten() & 0xffffffffL)) {
            throw new ZipException("the gzip member at byte " + memberStart + " has the wrong length in its trailer");
        }
        inMember = false;
        if (!available(1)) {
            done = true;
        }
    }

    private long uint32() throws IOException {
        return (byteAt() | (byteAt() << 8) | (byteAt() << 16) | ((long) byteAt() << 24)) & 0xffffffffL;
    }

    private void skipZeroTerminated() throws IOException {
        while (byteAt() != 0) {
            // skip the name or comment
        }
    }

    private void skip(int n) throws IOException {
        for (int i = 0; i < n; i++) {
            byteAt();
        }
    }

    private int byteAt() throws IOException {
        if (!available(1)) {
            throw new EOFException("the gzip stream ends inside the member at byte " + memberStart);
        }
        int b = input[inPos++] & 0xff;
        if (inHeader) {
            header.update(b);
        }
        return b;
    }

    /** Whether {@code n} bytes are buffered, reading more when needed; false at the end of the input. */
    private boolean available(int n) throws IOException {
        while (inLim - inPos < n) {
            if (!refill()) {
                return false;
            }
        }
        return true;
    }

    private boolean refill() throws IOException {
        if (inPos > 0) {
            int left = inLim - inPos;
            System.arraycopy(input, inPos, input, 0, left);
            inBase += inPos;
            inPos = 0;
            inLim = left;
        }
        int r = in.read(input, inLim, input.length - inLim);
        if (r < 0) {
            return false;
        }
        inLim += r;
        return true;
    }

    @Override
    public void close() throws IOException {
        inflater.end();
        in.close();
    }
}
