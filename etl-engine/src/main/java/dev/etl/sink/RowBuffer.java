package dev.etl.sink;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A growable byte buffer that {@link RowEncoder}s write ClickHouse RowBinary into: little-endian
 * fixed-width numbers, LEB128 lengths, UTF-8 strings encoded without allocating.
 *
 * <p>Reused: the owner {@link #reset() resets} it instead of allocating a new one, so in steady
 * state it has grown to the largest chunk it holds and writing allocates nothing. Not thread-safe.
 */
public final class RowBuffer {
    private static final VarHandle SHORT_LE =
            MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private byte[] bytes;
    private int position;
    /** Growth stops doubling at this capacity; beyond it the buffer grows to exactly what is needed. */
    private final int growthCap;

    /** A buffer of {@code initialCapacity} bytes that doubles as it grows. */
    public RowBuffer(int initialCapacity) {
        this(initialCapacity, Integer.MAX_VALUE);
    }

    /**
     * A buffer whose doubling growth is capped at {@code growthCap} bytes: up to that size it never
     * holds more than {@code growthCap}, and past it (content larger than the cap) exactly what it holds.
     * Used for batch buffers, whose capacity must stay within the batch {@code max-bytes}.
     */
    public RowBuffer(int initialCapacity, int growthCap) {
        this.bytes = new byte[Math.max(16, initialCapacity)];
        this.growthCap = Math.max(growthCap, bytes.length);
    }

    /** Bytes written so far. */
    public int length() {
        return position;
    }

    /** The backing array; valid bytes are {@code [0, length())}. Invalidated by the next write that grows it. */
    public byte[] array() {
        return bytes;
    }

    /** Current capacity in bytes. */
    public int capacity() {
        return bytes.length;
    }

    /** Forgets the content, keeping the capacity. */
    public void reset() {
        position = 0;
    }

    /** Cuts the content back to {@code length} bytes (used to undo a partly encoded row). */
    public void truncate(int length) {
        if (length < 0 || length > position) {
            throw new IndexOutOfBoundsException("truncate to " + length + " of " + position);
        }
        position = length;
    }

    /**
     * Sets the length to {@code length} after the caller wrote the bytes {@code [length(), length)}
     * straight into {@link #array()}, within the room {@link #ensureRemaining} made: a hot encoding loop
     * keeps its position in a local and writes without a call per value.
     *
     * @throws IndexOutOfBoundsException when {@code length} is below the current length or beyond the capacity
     */
    public void advanceTo(int length) {
        if (length < position || length > bytes.length) {
            throw new IndexOutOfBoundsException(
                    "advance from " + position + " to " + length + " of capacity " + bytes.length);
        }
        position = length;
    }

    /** Makes room for {@code extra} more bytes. */
    public void ensureRemaining(int extra) {
        int needed = position + extra;
        if (needed > bytes.length) {
            grow(needed);
        }
    }

    private void grow(int needed) {
        if (needed < 0) {
            throw new IllegalStateException("RowBuffer larger than 2 GiB");
        }
        int doubled = bytes.length << 1;
        if (doubled < 0) {
            doubled = Integer.MAX_VALUE - 8;
        }
        int newCapacity = Math.max(needed, Math.min(doubled, growthCap));
        bytes = Arrays.copyOf(bytes, newCapacity);
    }

    public RowBuffer writeByte(int value) {
        ensureRemaining(1);
        bytes[position++] = (byte) value;
        return this;
    }

    public RowBuffer writeShortLE(int value) {
        ensureRemaining(2);
        SHORT_LE.set(bytes, position, (short) value);
        position += 2;
        return this;
    }

    public RowBuffer writeIntLE(int value) {
        ensureRemaining(4);
        INT_LE.set(bytes, position, value);
        position += 4;
        return this;
    }

    public RowBuffer writeLongLE(long value) {
        ensureRemaining(8);
        LONG_LE.set(bytes, position, value);
        position += 8;
        return this;
    }

    /** Big-endian 64-bit write (IPv6 and UUID halves need explicit byte orders). */
    public RowBuffer writeLongBE(long value) {
        ensureRemaining(8);
        LONG_BE.set(bytes, position, value);
        position += 8;
        return this;
    }

    public RowBuffer writeFloatLE(float value) {
        return writeIntLE(Float.floatToRawIntBits(value));
    }

    public RowBuffer writeDoubleLE(double value) {
        return writeLongLE(Double.doubleToRawLongBits(value));
    }

    /** Unsigned LEB128 (ClickHouse's VarUInt), as used for String and Array lengths. */
    public RowBuffer writeVarUInt(long value) {
        ensureRemaining(10);
        long v = value;
        while ((v & ~0x7FL) != 0) {
            bytes[position++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        bytes[position++] = (byte) v;
        return this;
    }

    public RowBuffer writeBytes(byte[] src, int offset, int length) {
        ensureRemaining(length);
        System.arraycopy(src, offset, bytes, position, length);
        position += length;
        return this;
    }

    public RowBuffer writeBytes(byte[] src) {
        return writeBytes(src, 0, src.length);
    }

    /** Appends another buffer's content. */
    public RowBuffer writeBuffer(RowBuffer other) {
        return writeBytes(other.bytes, 0, other.position);
    }

    /** ClickHouse String: LEB128 byte length, then the raw bytes. */
    public RowBuffer writeStringBytes(byte[] src, int offset, int length) {
        writeVarUInt(length);
        return writeBytes(src, offset, length);
    }

    /**
     * ClickHouse String from chars: LEB128 UTF-8 byte length, then the UTF-8 bytes, encoded in place
     * without allocating (unpaired surrogates become '?', as {@link String#getBytes} does). A
     * {@link Utf8CharSequence} (the Avro deserializer's strings) is written as the UTF-8 bytes it holds,
     * copied as they are.
     */
    public RowBuffer writeString(CharSequence value) {
        if (!(value instanceof String) && value instanceof Utf8CharSequence) {
            // Avro's Utf8 would answer length() and charAt through a new String per value.
            Utf8CharSequence utf8 = (Utf8CharSequence) value;
            return writeStringBytes(utf8.getBytes(), 0, utf8.getByteLength());
        }
        int chars = value.length();
        int utf8Length = utf8Length(value, chars);
        writeVarUInt(utf8Length);
        ensureRemaining(utf8Length);
        byte[] b = bytes;
        int p = position;
        for (int i = 0; i < chars; i++) {
            char c = value.charAt(i);
            if (c < 0x80) {
                b[p++] = (byte) c;
            } else if (c < 0x800) {
                b[p++] = (byte) (0xC0 | (c >> 6));
                b[p++] = (byte) (0x80 | (c & 0x3F));
            } else if (Character.isHighSurrogate(c) && i + 1 < chars && Character.isLowSurrogate(value.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, value.charAt(++i));
                b[p++] = (byte) (0xF0 | (cp >> 18));
                b[p++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                b[p++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                b[p++] = (byte) (0x80 | (cp & 0x3F));
            } else if (Character.isSurrogate(c)) {
                b[p++] = (byte) '?';
            } else {
                b[p++] = (byte) (0xE0 | (c >> 12));
                b[p++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                b[p++] = (byte) (0x80 | (c & 0x3F));
            }
        }
        position = p;
        return this;
    }

    private static int utf8Length(CharSequence value, int chars) {
        int length = 0;
        for (int i = 0; i < chars; i++) {
            char c = value.charAt(i);
            if (c < 0x80) {
                length++;
            } else if (c < 0x800) {
                length += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < chars && Character.isLowSurrogate(value.charAt(i + 1))) {
                length += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                length++;
            } else {
                length += 3;
            }
        }
        return length;
    }

    /** Copies the content (allocates; tests and cold paths). */
    public byte[] toByteArray() {
        return Arrays.copyOf(bytes, position);
    }
}
