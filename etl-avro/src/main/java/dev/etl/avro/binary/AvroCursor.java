package dev.etl.avro.binary;

import dev.etl.avro.AvroLimits;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.avro.util.Utf8;
import org.jspecify.annotations.Nullable;

/**
 * A cursor over one Avro binary body in a {@code byte[]}: zig-zag varints, little-endian floats and
 * doubles, length-prefixed strings and bytes, and the blocks of arrays and maps, read straight from the
 * array (no {@code BinaryDecoder}, no buffering, nothing allocated unless a method says so).
 *
 * <p><b>Bounds.</b> Every read is checked against the body's end, not the array's, because a body may be
 * a view into a larger array; malformed input throws {@link MalformedAvroException} naming the byte
 * position relative to the body's start. Block counts are checked as Avro 1.12 checks them
 * ({@code Long.MIN_VALUE} and a negative block size are malformed) and bounded by {@link AvroLimits}: the
 * items of one array or map, and per body the array items that take no bytes (the body's size bounds
 * nothing there). Callers that loop over a block's items call {@link #zeroByteItems} after its first item.
 *
 * <p><b>Positions.</b> {@link #position()} is relative to the body (for messages); {@link #mark()} is the
 * absolute index in {@link #array()}, which {@link #reset(int)} returns to: how a reader reads a value
 * again, or out of order. A reader that keeps the position in a local in a hot loop reads
 * {@link #array()}, {@link #mark()} and {@link #limit()} once and writes the position back with
 * {@link #reset(int)} before calling any other method. The cursor also keeps numbered marks
 * ({@link #mark(int, int)}, grown by {@link #ensureMarks}) and a scratch array for its reader.
 *
 * <p>A final class of small methods, so calls inline; one instance per lane (or per reader thread),
 * {@link #wrap re-wrapped} per body; not thread-safe.
 */
public final class AvroCursor {
    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    /** The continuation bits of 8 varint bytes read as one little-endian long. */
    private static final long CONTINUATION_BITS = 0x8080808080808080L;

    private byte[] buf = new byte[0];
    private int start;
    private int pos;
    private int limit;
    /** Positions a reader remembered by number ({@link #mark(int, int)}); grown by {@link #ensureMarks} only. */
    private int[] marks = new int[8];
    /** The reader's scratch ({@link #scratch}). */
    private byte[] scratch = new byte[32];

    /** {@link AvroLimits#maxCollectionItems()}, or lower. */
    private final int maxItems;
    /** {@link AvroLimits#maxZeroByteItems()}, or lower. */
    private final int maxZeroByteItems;
    /** The body's items that take no bytes still allowed; {@link #wrap} starts each body at the limit. */
    private long zeroByteItemsLeft;

    /** A cursor bounded by {@link AvroLimits}. */
    public AvroCursor() {
        this(AvroLimits.maxCollectionItems(), AvroLimits.maxZeroByteItems());
    }

    /**
     * A cursor with tighter bounds than {@link AvroLimits}' (a test's, or a connector's that wants less);
     * a bound above {@link AvroLimits}' is lowered to it.
     *
     * @param maxCollectionItems the most items one array or map may hold, all its blocks together
     * @param maxZeroByteItems   the most array items that take no bytes one body may hold
     */
    public AvroCursor(int maxCollectionItems, int maxZeroByteItems) {
        this.maxItems = Math.min(Math.max(maxCollectionItems, 0), AvroLimits.maxCollectionItems());
        this.maxZeroByteItems = Math.min(Math.max(maxZeroByteItems, 0), AvroLimits.maxZeroByteItems());
    }

    /** Starts reading the body of {@code length} bytes at {@code offset} of {@code array}. */
    public void wrap(byte[] array, int offset, int length) {
        this.buf = array;
        this.start = offset;
        this.pos = offset;
        this.limit = offset + length;
        this.zeroByteItemsLeft = maxZeroByteItems;
    }

    /** The array the body is in (not a copy). */
    public byte[] array() {
        return buf;
    }

    /** The absolute index in {@link #array()} where the body ends. */
    public int limit() {
        return limit;
    }

    /** The absolute index in {@link #array()} of the next byte, for {@link #reset(int)}. */
    public int mark() {
        return pos;
    }

    /** Moves to an absolute index {@link #mark()} returned (or that a reader computed within the body). */
    public void reset(int mark) {
        pos = mark;
    }

    /** The position relative to the start of the body (for messages). */
    public int position() {
        return pos - start;
    }

    /** The body's length. */
    public int length() {
        return limit - start;
    }

    /** The bytes left before the body's end. */
    public int remaining() {
        return limit - pos;
    }

    /** Makes room for numbered marks {@code 0..count-1} (once, when a reader is set up: it may allocate). */
    public void ensureMarks(int count) {
        if (marks.length < count) {
            marks = new int[Math.max(count, marks.length * 2)];
        }
    }

    /** Remembers the absolute index {@code position} as mark {@code slot} (after {@link #ensureMarks}). */
    public void mark(int slot, int position) {
        marks[slot] = position;
    }

    /** The absolute index remembered as mark {@code slot}. */
    public int marked(int slot) {
        return marks[slot];
    }

    /**
     * A scratch array of at least {@code length} bytes owned by this cursor's reader (e.g. for a decimal's
     * magnitude): allocated only when it must grow; its content is the caller's until its next call.
     */
    public byte[] scratch(int length) {
        if (scratch.length < length) {
            scratch = new byte[Math.max(length, scratch.length * 2)];
        }
        return scratch;
    }

    /** Reads a boolean: one byte, 0 or 1 (any other byte is malformed, as Avro's decoders have it). */
    public boolean readBoolean() {
        if (pos >= limit) {
            throw eof(1);
        }
        byte b = buf[pos++];
        if ((b & 0xfe) != 0) {
            throw new MalformedAvroException("invalid boolean byte " + b + " at byte " + (position() - 1));
        }
        return b != 0;
    }

    /** Reads an int (or an enum or union index): a zig-zag varint of at most 5 bytes. */
    public int readInt() {
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
                            throw malformed(5, p - 5);
                        }
                        value |= v << 28;
                    }
                }
            }
        }
        pos = p;
        return (value >>> 1) ^ -(value & 1);
    }

    /** Reads a long (or a length or block count): a zig-zag varint of at most 10 bytes. */
    public long readLong() {
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
                                throw malformed(10, pos);
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
                    throw malformed(maxBytes, first);
                }
                return (value >>> 1) ^ -(value & 1);
            }
            shift += 7;
        }
        throw malformed(maxBytes, first);
    }

    /** The 8 bytes at {@code b[p]} as a little-endian long, for {@link #varintLength} and {@link #varintValue}. */
    public static long word(byte[] b, int p) {
        return (long) LONG_LE.get(b, p);
    }

    /** The byte length (1–8) of the varint that starts {@code word}; 9 when it does not end within 8 bytes. */
    public static int varintLength(long word) {
        return (Long.numberOfTrailingZeros(~word & CONTINUATION_BITS) >>> 3) + 1;
    }

    /**
     * The unsigned value (not zig-zag decoded) of the varint of {@code length} (1–8) bytes that starts
     * {@code word}: its 7-bit groups gathered without a branch per byte.
     */
    public static long varintValue(long word, int length) {
        long x = word & (-1L >>> (64 - (length << 3))) & 0x7f7f7f7f7f7f7f7fL;
        x = (x & 0x007f007f007f007fL) | ((x & 0x7f007f007f007f00L) >>> 1);
        x = (x & 0x00003fff00003fffL) | ((x & 0x3fff00003fff0000L) >>> 2);
        return (x & 0x000000000fffffffL) | ((x & 0x0fffffff00000000L) >>> 4);
    }

    /**
     * The zig-zag int varint at {@code b[p]}, ending before {@code limit}, as {@code (end << 32) | (value &
     * 0xffffffffL)}; -1 when its fast forms do not apply (within 8 bytes of the array's end, past the
     * limit, malformed), and {@link #readInt} must read it (and name what is wrong).
     */
    public static long intAt(byte[] b, int p, int limit) {
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

    /** Reads a float: 4 bytes, little-endian. */
    public float readFloat() {
        if (limit - pos < 4) {
            throw eof(4);
        }
        int bits = (int) INT_LE.get(buf, pos);
        pos += 4;
        return Float.intBitsToFloat(bits);
    }

    /** Reads a double: 8 bytes, little-endian. */
    public double readDouble() {
        if (limit - pos < 8) {
            throw eof(8);
        }
        long bits = (long) LONG_LE.get(buf, pos);
        pos += 8;
        return Double.longBitsToDouble(bits);
    }

    /** Reads the length prefix of a string or bytes value and checks that that many bytes follow. */
    public int readLength() {
        int at = position();
        long length = readLong();
        if (length < 0) {
            throw new MalformedAvroException("negative length " + length + " at byte " + at);
        }
        if (length > limit - pos) {
            throw new MalformedAvroException("length " + length + " at byte " + at + " exceeds the " + (limit - pos)
                    + " bytes left in the body");
        }
        return (int) length;
    }

    /**
     * Reads a string into {@code reuse} when it is a {@link Utf8} (growing its array only if needed), else a
     * new one, which is also a {@link dev.etl.sink.Utf8CharSequence}: a {@code RowBuffer} writes it by copying
     * its bytes, without a {@code String}.
     */
    public Utf8 readUtf8(@Nullable Object reuse) {
        int length = readLength();
        Utf8 utf8 = reuse instanceof Utf8 ? (Utf8) reuse : new DecodedUtf8();
        utf8.setByteLength(length);
        System.arraycopy(buf, pos, utf8.getBytes(), 0, length);
        pos += length;
        return utf8;
    }

    /** Reads a string as a new {@link String}. */
    public String readString() {
        int length = readLength();
        String s = new String(buf, pos, length, StandardCharsets.UTF_8);
        pos += length;
        return s;
    }

    /** Reads bytes into {@code reuse} when it is a large enough array-backed buffer, as {@code BinaryDecoder.readBytes} does. */
    public ByteBuffer readBytes(@Nullable Object reuse) {
        int length = readLength();
        ByteBuffer out;
        if (reuse instanceof ByteBuffer
                && ((ByteBuffer) reuse).capacity() >= length
                && ((ByteBuffer) reuse).hasArray()) {
            out = (ByteBuffer) reuse;
            out.clear();
        } else {
            out = ByteBuffer.allocate(length);
        }
        System.arraycopy(buf, pos, out.array(), out.arrayOffset(), length);
        out.limit(length);
        pos += length;
        return out;
    }

    /** Reads a fixed of {@code length} bytes into the start of {@code into}. */
    public void readFixed(byte[] into, int length) {
        require(length);
        System.arraycopy(buf, pos, into, 0, length);
        pos += length;
    }

    /** Checks that {@code bytes} more bytes are in the body. */
    public void require(int bytes) {
        if (limit - pos < bytes) {
            throw eof(bytes);
        }
    }

    /** The byte {@code index} bytes ahead of the position (after {@link #require}). */
    public int peek(int index) {
        return buf[pos + index];
    }

    /** The big-endian long {@code index} bytes ahead of the position (after {@link #require}). */
    public long peekLongBE(int index) {
        return (long) LONG_BE.get(buf, pos + index);
    }

    /** Skips {@code bytes} bytes (a float, a double, a fixed). */
    public void skip(int bytes) {
        require(bytes);
        pos += bytes;
    }

    /** Skips a length-prefixed value (a string or bytes). */
    public void skipLengthPrefixed() {
        // Not "pos += readLength()": that would add to the position from before the length prefix.
        int length = readLength();
        pos += length;
    }

    /** Reads a string or bytes value: whether it equals one of {@code candidates} (compared in place). */
    public boolean matchesAny(byte[][] candidates) {
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

    /**
     * The item count of the next block of an array or map whose items are read, 0 at its end. A negative
     * count is followed by the block's size in bytes, which is read and checked (the items follow one by
     * one either way); {@code Long.MIN_VALUE}, whose negation is itself, is not a count (Avro 1.12 rejects
     * it too).
     *
     * @param itemsBefore the items of the collection's blocks before this one
     * @throws MalformedAvroException when the collection would hold more than {@link AvroLimits#maxCollectionItems()}
     */
    public long blockCount(long itemsBefore) {
        int at = pos;
        long count = readLong();
        if (count < 0) {
            count = negated(count, at);
            long size = readLong();
            if (size < 0) {
                throw new MalformedAvroException(
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
    public long unsizedBlockCount(long itemsBefore) {
        while (true) {
            int at = pos;
            long count = readLong();
            if (count >= 0) {
                return checkedCount(count, itemsBefore, at);
            }
            negated(count, at);
            long size = readLong();
            if (size < 0 || size > remaining()) {
                throw new MalformedAvroException("block size " + size + " after the block count at byte " + (at - start)
                        + " is not within the " + remaining() + " bytes left");
            }
            pos += (int) size;
        }
    }

    private long negated(long count, int at) {
        if (count == Long.MIN_VALUE) {
            throw new MalformedAvroException(
                    "invalid block count " + count + " at byte " + (at - start) + " (its negation overflows)");
        }
        return -count;
    }

    private long checkedCount(long count, long itemsBefore, int at) {
        if (count > maxItems - itemsBefore) {
            throw new MalformedAvroException("an array or map of more than " + maxItems + " items ("
                    + (itemsBefore + count) + " with the block at byte " + (at - start) + "; "
                    + AvroLimits.MAX_COLLECTION_ITEMS_PROPERTY + ")");
        }
        return count;
    }

    /**
     * Called after the first item of a block of {@code count}, which started at {@link #mark()} {@code
     * from}: when it took no bytes, neither do the others (a value of an Avro type takes either no bytes or
     * at least one: null, a fixed of size 0 and records of only those take none), and the block's items
     * count against the body's limit of such items. A loop over items that take bytes is bounded by the
     * body; this bounds the others.
     *
     * @return whether the items take no bytes (skipping the rest of the block is then a no-op)
     * @throws MalformedAvroException when the body's items that take no bytes exceed
     *         {@link AvroLimits#maxZeroByteItems()}
     */
    public boolean zeroByteItems(int from, long count) {
        if (pos != from) {
            return false;
        }
        zeroByteItemsLeft -= count;
        if (zeroByteItemsLeft < 0) {
            throw new MalformedAvroException("more than " + maxZeroByteItems
                    + " array items that take no bytes in the record (" + count + " in the block before byte "
                    + (from - start) + "; " + AvroLimits.MAX_ZERO_BYTE_ITEMS_PROPERTY + ")");
        }
        return true;
    }

    /** What is left of the body's budget of items that take no bytes, for {@link #zeroByteItemsLeft(long)}. */
    public long zeroByteItemsLeft() {
        return zeroByteItemsLeft;
    }

    /**
     * Restores the budget {@link #zeroByteItemsLeft()} returned, before items that were counted are read
     * again (an array in several blocks, read again once all its blocks are counted).
     */
    public void zeroByteItemsLeft(long left) {
        zeroByteItemsLeft = left;
    }

    /** The whole budget again, as after {@link #wrap}: before the body's items are read a second time. */
    public void resetZeroByteItems() {
        zeroByteItemsLeft = maxZeroByteItems;
    }

    private MalformedAvroException eof(int wanted) {
        return new MalformedAvroException(
                "unexpected end of body: needed " + wanted + " more byte(s) at byte " + position() + " of " + length());
    }

    private MalformedAvroException malformed(int maxBytes, int at) {
        return new MalformedAvroException(
                "malformed " + (maxBytes == 5 ? "int" : "long") + " varint at byte " + (at - start));
    }
}
