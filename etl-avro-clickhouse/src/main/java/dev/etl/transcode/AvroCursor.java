package dev.etl.transcode;

import dev.etl.avro.AvroLimits;
import dev.etl.sink.RowBuffer;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A cursor over one Avro binary body in a {@code byte[]}, with the copy operations transcoding
 * needs: a length-prefixed Avro string or bytes goes to RowBinary as a LEB128 length and the same
 * bytes, straight from array to array.
 *
 * <p>Every read is bounds-checked against the body's end (a payload may be a view into a larger
 * array); malformed input throws {@link MalformedBody} naming the byte position. The position may be
 * moved back to a {@link #mark() marked} place, which is how columns are written in table order while
 * the body is read once in writer order. One instance per transcoder (so per lane), re-wrapped per
 * record; it also owns the lane's scratch space (field marks, decimal digits), so compiled plans
 * stay immutable and shareable.
 */
final class AvroCursor {
    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    // Package-private for RowPlan's row loop, which works on copies in locals and writes pos back.
    byte[] buf = new byte[0];
    private int start;
    int pos;
    int limit;
    /** Positions of fields read ahead of their column (see {@link RowPlan}); grown at compile time only. */
    int[] marks = new int[8];
    /** Scratch for wide decimals: the magnitude of one value, big-endian. */
    final byte[] digits = new byte[32];

    /** {@link AvroLimits#maxCollectionItems()}, or a test's. */
    private final int maxItems;
    /** {@link AvroLimits#maxZeroByteItems()}, or a test's. */
    private final int maxZeroByteItems;
    /** The record's items that take no bytes still allowed; {@link #wrap} starts each record at the limit. */
    private long zeroByteItemsLeft;

    AvroCursor() {
        this(AvroLimits.maxCollectionItems(), AvroLimits.maxZeroByteItems());
    }

    AvroCursor(int maxItems, int maxZeroByteItems) {
        this.maxItems = maxItems;
        this.maxZeroByteItems = maxZeroByteItems;
    }

    void wrap(byte[] array, int offset, int length) {
        this.buf = array;
        this.start = offset;
        this.pos = offset;
        this.limit = offset + length;
        this.zeroByteItemsLeft = maxZeroByteItems;
    }

    void ensureMarks(int count) {
        if (marks.length < count) {
            marks = new int[Math.max(count, marks.length * 2)];
        }
    }

    int remaining() {
        return limit - pos;
    }

    /** The absolute position, for {@link #reset}. */
    int mark() {
        return pos;
    }

    void reset(int mark) {
        pos = mark;
    }

    /** Position relative to the start of the body (for messages). */
    int position() {
        return pos - start;
    }

    int length() {
        return limit - start;
    }

    boolean readBoolean() {
        if (pos >= limit) {
            throw eof(1);
        }
        byte b = buf[pos++];
        if ((b & 0xfe) != 0) {
            throw new MalformedBody("invalid boolean byte " + b + " at byte " + (position() - 1));
        }
        return b != 0;
    }

    int readInt() {
        byte[] b = buf;
        int p = pos;
        if (limit - p < 5) {
            return (int) readVarintChecked(5);
        }
        // The longest int varint fits: no bounds check per byte.
        int v = b[p++];
        int value = v & 0x7f;
        if (v < 0) {
            v = b[p++];
            value |= (v & 0x7f) << 7;
            if (v < 0) {
                v = b[p++];
                value |= (v & 0x7f) << 14;
                if (v < 0) {
                    v = b[p++];
                    value |= (v & 0x7f) << 21;
                    if (v < 0) {
                        v = b[p++];
                        if ((v & 0xf0) != 0) {
                            throw malformed(p - 5);
                        }
                        value |= v << 28;
                    }
                }
            }
        }
        pos = p;
        return (value >>> 1) ^ -(value & 1);
    }

    long readLong() {
        byte[] b = buf;
        int p = pos;
        if (limit - p < 10) {
            return readVarintChecked(10);
        }
        // Unrolled: the first four bytes (up to 28 bits) in an int, as most values are small.
        int v = b[p++];
        int low = v & 0x7f;
        if (v >= 0) {
            pos = p;
            return (low >>> 1) ^ -(low & 1);
        }
        v = b[p++];
        low |= (v & 0x7f) << 7;
        if (v >= 0) {
            pos = p;
            return (low >>> 1) ^ -(low & 1);
        }
        v = b[p++];
        low |= (v & 0x7f) << 14;
        if (v >= 0) {
            pos = p;
            return (low >>> 1) ^ -(low & 1);
        }
        v = b[p++];
        low |= (v & 0x7f) << 21;
        if (v >= 0) {
            pos = p;
            return (low >>> 1) ^ -(low & 1);
        }
        long value = low;
        v = b[p++];
        value |= (long) (v & 0x7f) << 28;
        if (v < 0) {
            v = b[p++];
            value |= (long) (v & 0x7f) << 35;
            if (v < 0) {
                v = b[p++];
                value |= (long) (v & 0x7f) << 42;
                if (v < 0) {
                    v = b[p++];
                    value |= (long) (v & 0x7f) << 49;
                    if (v < 0) {
                        v = b[p++];
                        value |= (long) (v & 0x7f) << 56;
                        if (v < 0) {
                            v = b[p++];
                            if ((v & 0xfe) != 0) {
                                throw malformed(pos);
                            }
                            value |= (long) v << 63;
                        }
                    }
                }
            }
        }
        pos = p;
        return (value >>> 1) ^ -(value & 1);
    }

    /** The continuation bits of 8 varint bytes read as one little-endian long. */
    private static final long CONTINUATION_BITS = 0x8080808080808080L;

    /** The 8 bytes at {@code b[p]} as a little-endian long, for {@link #varintLength} and {@link #varintValue}. */
    static long word(byte[] b, int p) {
        return (long) LONG_LE.get(b, p);
    }

    /** The byte length (1–8) of the varint that starts {@code word}; 9 when it does not end within 8 bytes. */
    static int varintLength(long word) {
        return (Long.numberOfTrailingZeros(~word & CONTINUATION_BITS) >>> 3) + 1;
    }

    /**
     * The unsigned value (not zig-zag decoded) of the varint of {@code length} (1–8) bytes that starts
     * {@code word}: its 7-bit groups gathered without a branch per byte.
     */
    static long varintValue(long word, int length) {
        long x = word & (-1L >>> (64 - (length << 3))) & 0x7f7f7f7f7f7f7f7fL;
        x = (x & 0x007f007f007f007fL) | ((x & 0x7f007f007f007f00L) >>> 1);
        x = (x & 0x00003fff00003fffL) | ((x & 0x3fff00003fff0000L) >>> 2);
        return (x & 0x000000000fffffffL) | ((x & 0x0fffffff00000000L) >>> 4);
    }

    /**
     * The zig-zag int varint at {@code b[p]}, ending before {@code limit}, as {@code (end << 32) | (value &
     * 0xffffffffL)}; -1 when its fast forms do not apply (within 8 bytes of the array's end, past the
     * limit, malformed), and {@link #readInt} must read it.
     */
    static long intAt(byte[] b, int p, int limit) {
        if (p < limit) {
            int v = b[p];
            if (v >= 0) {
                return ((long) (p + 1) << 32) | (((v >>> 1) ^ -(v & 1)) & 0xffffffffL);
            }
            if (p <= b.length - 8) {
                long w = word(b, p);
                int n = varintLength(w);
                if (n <= 5 && n <= limit - p) {
                    long raw = varintValue(w, n);
                    if (raw >>> 32 == 0) {
                        int x = (int) raw;
                        return ((long) (p + n) << 32) | (((x >>> 1) ^ -(x & 1)) & 0xffffffffL);
                    }
                }
            }
        }
        return -1;
    }

    private long readVarintChecked(int maxBytes) {
        int first = pos;
        long value = 0;
        int shift = 0;
        for (int i = 0; i < maxBytes; i++) {
            if (pos >= limit) {
                throw eof(1);
            }
            int v = buf[pos++];
            value |= (long) (v & 0x7f) << shift;
            if (v >= 0) {
                if (i == maxBytes - 1 && (v & (maxBytes == 5 ? 0xf0 : 0xfe)) != 0) {
                    throw malformed(first);
                }
                return (value >>> 1) ^ -(value & 1);
            }
            shift += 7;
        }
        throw malformed(first);
    }

    float readFloat() {
        if (limit - pos < 4) {
            throw eof(4);
        }
        int bits = (int) INT_LE.get(buf, pos);
        pos += 4;
        return Float.intBitsToFloat(bits);
    }

    double readDouble() {
        if (limit - pos < 8) {
            throw eof(8);
        }
        long bits = (long) LONG_LE.get(buf, pos);
        pos += 8;
        return Double.longBitsToDouble(bits);
    }

    /** Reads a length prefix and checks that many bytes follow. */
    int readLength() {
        int at = position();
        long length = readLong();
        if (length < 0) {
            throw new MalformedBody("negative length " + length + " at byte " + at);
        }
        if (length > limit - pos) {
            throw new MalformedBody("length " + length + " at byte " + at + " exceeds the " + (limit - pos)
                    + " bytes left in the body");
        }
        return (int) length;
    }

    /** Avro string or bytes → ClickHouse String: the same bytes behind a LEB128 length. */
    void copyString(RowBuffer out) {
        int length = readLength();
        out.writeVarUInt(length);
        out.writeBytes(buf, pos, length);
        pos += length;
    }

    /** Copies {@code length} raw bytes (a fixed). */
    void copy(int length, RowBuffer out) {
        require(length);
        out.writeBytes(buf, pos, length);
        pos += length;
    }

    /** Checks that {@code bytes} more bytes are in the body. */
    void require(int bytes) {
        if (limit - pos < bytes) {
            throw eof(bytes);
        }
    }

    /** The byte at {@code index} bytes ahead of the position (after {@link #require}). */
    int peek(int index) {
        return buf[pos + index];
    }

    /** A big-endian long at {@code index} bytes ahead of the position (after {@link #require}). */
    long peekLongBE(int index) {
        return (long) LONG_BE.get(buf, pos + index);
    }

    void skip(int bytes) {
        require(bytes);
        pos += bytes;
    }

    /**
     * The item count of the next block of an array or map whose items are read, 0 at its end. A negative
     * count is followed by the block's size in bytes, which is read and checked (the items follow one by
     * one either way); {@code Long.MIN_VALUE}, whose negation is itself, is not a count (Avro 1.12 rejects
     * it too).
     *
     * @param itemsBefore the items of the collection's blocks before this one
     * @throws MalformedBody when the collection would hold more than {@link AvroLimits#maxCollectionItems()}
     */
    long blockCount(long itemsBefore) {
        int at = pos;
        long count = readLong();
        if (count < 0) {
            count = negated(count, at);
            long size = readLong();
            if (size < 0) {
                throw new MalformedBody(
                        "negative block size " + size + " after the block count at byte " + (at - start));
            }
        }
        return checkedCount(count, itemsBefore, at);
    }

    /**
     * For skipping an array or map: the item count of the next block whose items must be skipped one by
     * one, 0 at its end. Blocks that state their byte size (a negative count) are skipped whole on the way.
     *
     * @param itemsBefore the items of the collection's blocks before this one that were counted here
     */
    long unsizedBlockCount(long itemsBefore) {
        while (true) {
            int at = pos;
            long count = readLong();
            if (count >= 0) {
                return checkedCount(count, itemsBefore, at);
            }
            negated(count, at);
            long size = readLong();
            if (size < 0 || size > remaining()) {
                throw new MalformedBody("block size " + size + " after the block count at byte " + (at - start)
                        + " is not within the " + remaining() + " bytes left");
            }
            pos += (int) size;
        }
    }

    private long negated(long count, int at) {
        if (count == Long.MIN_VALUE) {
            throw new MalformedBody(
                    "invalid block count " + count + " at byte " + (at - start) + " (its negation overflows)");
        }
        return -count;
    }

    private long checkedCount(long count, long itemsBefore, int at) {
        if (count > maxItems - itemsBefore) {
            throw new MalformedBody("an array or map of more than " + maxItems + " items (" + (itemsBefore + count)
                    + " with the block at byte " + (at - start) + "; " + AvroLimits.MAX_COLLECTION_ITEMS_PROPERTY
                    + ")");
        }
        return count;
    }

    /**
     * Called after the first item of a block of {@code count}, which started at {@link #mark()} {@code
     * from}: when it took no bytes, neither do the others (a value of an Avro type takes either no bytes or
     * at least one: null, a fixed of size 0 and records of only those take none), and the block's items
     * count against the record's limit of such items. A loop over items that take bytes is bounded by the
     * body; this bounds the others.
     *
     * @return whether the items take no bytes (skipping the rest of the block is then a no-op)
     * @throws MalformedBody when the record's items that take no bytes exceed {@link AvroLimits#maxZeroByteItems()}
     */
    boolean zeroByteItems(int from, long count) {
        if (pos != from) {
            return false;
        }
        zeroByteItemsLeft -= count;
        if (zeroByteItemsLeft < 0) {
            throw new MalformedBody("more than " + maxZeroByteItems + " array items that take no bytes in the record ("
                    + count + " in the block before byte " + (from - start) + "; "
                    + AvroLimits.MAX_ZERO_BYTE_ITEMS_PROPERTY + ")");
        }
        return true;
    }

    /** What is left of the record's budget of items that take no bytes, for {@link #zeroByteItemsLeft(long)}. */
    long zeroByteItemsLeft() {
        return zeroByteItemsLeft;
    }

    /**
     * Restores the budget {@link #zeroByteItemsLeft()} returned, before items that were counted are read
     * again (an array in several blocks, written again once all its blocks are counted).
     */
    void zeroByteItemsLeft(long left) {
        zeroByteItemsLeft = left;
    }

    /** The whole budget again, as after {@link #wrap}: for the rows of a {@link ScanPlan} after its scan. */
    void resetZeroByteItems() {
        zeroByteItemsLeft = maxZeroByteItems;
    }

    void skipLengthPrefixed() {
        int length = readLength();
        pos += length;
    }

    /** Reads a string or bytes value: whether it equals one of {@code candidates} (compared in place). */
    boolean matchesAny(byte[][] candidates) {
        int length = readLength();
        int from = pos;
        pos += length;
        for (byte[] c : candidates) {
            if (c.length == length && Arrays.equals(buf, from, from + length, c, 0, length)) {
                return true;
            }
        }
        return false;
    }

    private MalformedBody eof(int wanted) {
        return new MalformedBody(
                "unexpected end of body: needed " + wanted + " more byte(s) at byte " + position() + " of " + length());
    }

    private MalformedBody malformed(int at) {
        return new MalformedBody("malformed varint at byte " + (at - start));
    }
}
