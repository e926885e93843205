package dev.etl.avro;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.apache.avro.util.Utf8;

/**
 * A cursor over an Avro binary body in a {@code byte[]}: zig-zag varints, little-endian floats, and
 * length-prefixed bytes, read straight from the array (no {@code BinaryDecoder}, no buffering).
 *
 * <p>Every read is bounds-checked against the body's end, not the array's, because a payload may be
 * a view into a larger array. Malformed input raises {@link AvroBodyException} naming the byte
 * position. One instance per decoder, re-{@link #wrap wrapped} per record; lane-confined.
 */
final class AvroInput {
    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private byte[] buf = new byte[0];
    private int start;
    private int pos;
    private int limit;

    /** {@link AvroLimits#maxCollectionItems()}, or a test's. */
    private final int maxItems;
    /** {@link AvroLimits#maxZeroByteItems()}, or a test's. */
    private final int maxZeroByteItems;
    /** The record's items that take no bytes still allowed; {@link #wrap} starts each record at the limit. */
    private long zeroByteItemsLeft;

    AvroInput() {
        this(AvroLimits.maxCollectionItems(), AvroLimits.maxZeroByteItems());
    }

    AvroInput(int maxItems, int maxZeroByteItems) {
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

    /** Bytes left before the end of the body. */
    int remaining() {
        return limit - pos;
    }

    /** Position relative to the start of the body (for error messages). */
    int position() {
        return pos - start;
    }

    /** Length of the body. */
    int length() {
        return limit - start;
    }

    boolean readBoolean() {
        if (pos >= limit) {
            throw eof(1);
        }
        byte b = buf[pos++];
        if ((b & 0xfe) != 0) {
            throw new AvroBodyException("invalid boolean byte " + b + " at byte " + (position() - 1));
        }
        return b != 0;
    }

    int readInt() {
        byte[] b = buf;
        int p = pos;
        if (limit - p >= 5) {
            // Fast path: the longest int varint fits, so no per-byte bounds check.
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
                                throw malformedVarint("int", p - 5);
                            }
                            value |= v << 28;
                        }
                    }
                }
            }
            pos = p;
            return (value >>> 1) ^ -(value & 1);
        }
        return (int) readVarintChecked(5, "int");
    }

    long readLong() {
        byte[] b = buf;
        int p = pos;
        if (limit - p >= 10) {
            long value = 0;
            int shift = 0;
            int v;
            do {
                v = b[p++];
                value |= (long) (v & 0x7f) << shift;
                shift += 7;
            } while (v < 0 && shift < 63);
            if (v < 0) {
                v = b[p++];
                if ((v & 0xfe) != 0) {
                    throw malformedVarint("long", pos);
                }
                value |= (long) v << 63;
            }
            pos = p;
            return (value >>> 1) ^ -(value & 1);
        }
        return readVarintChecked(10, "long");
    }

    private long readVarintChecked(int maxBytes, String what) {
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
                    throw malformedVarint(what, first);
                }
                return (value >>> 1) ^ -(value & 1);
            }
            shift += 7;
        }
        throw malformedVarint(what, first);
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
            throw new AvroBodyException("negative length " + length + " at byte " + at);
        }
        if (length > limit - pos) {
            throw new AvroBodyException("length " + length + " at byte " + at + " exceeds the " + (limit - pos)
                    + " bytes left in the body");
        }
        return (int) length;
    }

    /** Reads a string into {@code reuse} when it is a {@link Utf8} (growing its array only if needed). */
    Utf8 readUtf8(Object reuse) {
        int length = readLength();
        Utf8 utf8 = reuse instanceof Utf8 ? (Utf8) reuse : new Utf8();
        utf8.setByteLength(length);
        System.arraycopy(buf, pos, utf8.getBytes(), 0, length);
        pos += length;
        return utf8;
    }

    /** Reads a string as a new {@link String} (for schemas that ask for {@code avro.java.string: String}). */
    String readString() {
        int length = readLength();
        String s = new String(buf, pos, length, StandardCharsets.UTF_8);
        pos += length;
        return s;
    }

    /** Reads bytes into {@code reuse} when it is large enough, as {@code BinaryDecoder.readBytes} does. */
    ByteBuffer readBytes(Object reuse) {
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

    void readFixed(byte[] into, int length) {
        if (limit - pos < length) {
            throw eof(length);
        }
        System.arraycopy(buf, pos, into, 0, length);
        pos += length;
    }

    void skip(int bytes) {
        if (limit - pos < bytes) {
            throw eof(bytes);
        }
        pos += bytes;
    }

    /** Skips a length-prefixed value (string or bytes). */
    void skipLengthPrefixed() {
        // Not "pos += readLength()": that would add to the position from before the length prefix.
        int length = readLength();
        pos += length;
    }

    /**
     * The item count of the next block of an array or map whose items are read, 0 at its end. A negative
     * count is followed by the block's size in bytes, which is read and checked (the items follow one by
     * one either way); {@code Long.MIN_VALUE}, whose negation is itself, is not a count.
     *
     * @param itemsBefore the items of the collection's blocks before this one
     * @throws AvroBodyException when the collection would hold more than {@link AvroLimits#maxCollectionItems()}
     */
    long blockCount(long itemsBefore) {
        int at = position();
        long count = readLong();
        if (count < 0) {
            count = negated(count, at);
            long size = readLong();
            if (size < 0) {
                throw new AvroBodyException("negative block size " + size + " after the block count at byte " + at);
            }
        }
        return checkedCount(count, itemsBefore, at);
    }

    /**
     * For skipping an array or map: the item count of the next block whose items must be skipped one by
     * one, 0 at its end. Blocks that state their size in bytes (a negative count) are skipped whole on the
     * way.
     *
     * @param itemsBefore the items of the collection's blocks before this one that were counted here
     */
    long unsizedBlockCount(long itemsBefore) {
        while (true) {
            int at = position();
            long count = readLong();
            if (count >= 0) {
                return checkedCount(count, itemsBefore, at);
            }
            negated(count, at);
            long size = readLong();
            if (size < 0 || size > remaining()) {
                throw new AvroBodyException("block size " + size + " after the block count at byte " + at
                        + " is not within the " + remaining() + " bytes left");
            }
            pos += (int) size;
        }
    }

    private static long negated(long count, int at) {
        if (count == Long.MIN_VALUE) {
            throw new AvroBodyException(
                    "invalid block count " + count + " at byte " + at + " (its negation overflows)");
        }
        return -count;
    }

    private long checkedCount(long count, long itemsBefore, int at) {
        if (count > maxItems - itemsBefore) {
            throw new AvroBodyException("an array or map of more than " + maxItems + " items (" + (itemsBefore + count)
                    + " with the block at byte " + at + "; " + AvroLimits.MAX_COLLECTION_ITEMS_PROPERTY + ")");
        }
        return count;
    }

    /**
     * Called after the first item of a block of {@code count}, which started at {@link #position()}
     * {@code from}: when it took no bytes, neither do the others (a value of an Avro type takes either no
     * bytes, or at least one: null, a fixed of size 0 and records of only those take none), and the
     * block's items count against the record's limit of such items.
     *
     * @return whether the items take no bytes (skipping the rest of the block is then a no-op)
     * @throws AvroBodyException when the record's items that take no bytes exceed
     *         {@link AvroLimits#maxZeroByteItems()}
     */
    boolean zeroByteItems(int from, long count) {
        if (position() != from) {
            return false;
        }
        zeroByteItemsLeft -= count;
        if (zeroByteItemsLeft < 0) {
            throw new AvroBodyException(
                    "more than " + maxZeroByteItems + " array items that take no bytes in the record ("
                            + count + " in the block before byte " + from + "; "
                            + AvroLimits.MAX_ZERO_BYTE_ITEMS_PROPERTY + ")");
        }
        return true;
    }

    private AvroBodyException eof(int wanted) {
        return new AvroBodyException(
                "unexpected end of body: needed " + wanted + " more byte(s) at byte " + position() + " of " + length());
    }

    private AvroBodyException malformedVarint(String what, int at) {
        return new AvroBodyException("malformed " + what + " varint at byte " + (at - start));
    }
}
