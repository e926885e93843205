package dev.etl.datagen;

import java.util.Arrays;

/**
 * A growable byte buffer a {@link RecordGenerator} writes one record's key or value into. One instance
 * per lane and field, cleared before every record and wrapped by the source's {@code Payload} flyweight
 * without a copy; it keeps the capacity it grew to, so steady state allocates nothing.
 *
 * <p>Numbers come big-endian ({@code BE}, Kafka's and most serializers' order) or little-endian
 * ({@code LE}); the {@code writeAvro*} methods write Avro's binary encoding (zig-zag varints,
 * length-prefixed strings and bytes), so a generator can build Avro bodies by hand.
 *
 * <p>Not thread-safe: confined to the lane thread that owns it.
 */
public final class RecordBytes {
    private static final byte[] ALPHANUMERIC = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
            .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private byte[] array;
    private int length;

    RecordBytes(int initialCapacity) {
        this.array = new byte[Math.max(16, initialCapacity)];
    }

    /** Bytes written since the record began. */
    public int length() {
        return length;
    }

    /** The backing array; bytes {@code 0} to {@link #length()} are the record's. Valid until the next record. */
    public byte[] array() {
        return array;
    }

    /** Discards what was written (the source calls it before every record). */
    void reset() {
        length = 0;
    }

    /** Copies what was written (allocates; for tests and cold paths). */
    public byte[] toByteArray() {
        return Arrays.copyOf(array, length);
    }

    private void ensure(int extra) {
        int needed = length + extra;
        if (needed > array.length) {
            array = Arrays.copyOf(array, Math.max(needed, array.length * 2));
        }
    }

    public RecordBytes writeByte(int value) {
        ensure(1);
        array[length++] = (byte) value;
        return this;
    }

    public RecordBytes writeBytes(byte[] src, int offset, int count) {
        ensure(count);
        System.arraycopy(src, offset, array, length, count);
        length += count;
        return this;
    }

    public RecordBytes writeBytes(byte[] src) {
        return writeBytes(src, 0, src.length);
    }

    public RecordBytes writeIntBE(int value) {
        ensure(4);
        byte[] a = array;
        int p = length;
        a[p] = (byte) (value >>> 24);
        a[p + 1] = (byte) (value >>> 16);
        a[p + 2] = (byte) (value >>> 8);
        a[p + 3] = (byte) value;
        length = p + 4;
        return this;
    }

    public RecordBytes writeLongBE(long value) {
        writeIntBE((int) (value >>> 32));
        return writeIntBE((int) value);
    }

    public RecordBytes writeIntLE(int value) {
        ensure(4);
        byte[] a = array;
        int p = length;
        a[p] = (byte) value;
        a[p + 1] = (byte) (value >>> 8);
        a[p + 2] = (byte) (value >>> 16);
        a[p + 3] = (byte) (value >>> 24);
        length = p + 4;
        return this;
    }

    public RecordBytes writeLongLE(long value) {
        writeIntLE((int) value);
        return writeIntLE((int) (value >>> 32));
    }

    public RecordBytes writeFloatLE(float value) {
        return writeIntLE(Float.floatToRawIntBits(value));
    }

    public RecordBytes writeDoubleLE(double value) {
        return writeLongLE(Double.doubleToRawLongBits(value));
    }

    /** An Avro {@code int}: zig-zag, then a little-endian base-128 varint (1 to 5 bytes). */
    public RecordBytes writeAvroInt(int value) {
        return writeVarLong(((value << 1) ^ (value >> 31)) & 0xffffffffL);
    }

    /** An Avro {@code long}: zig-zag, then a little-endian base-128 varint (1 to 10 bytes). */
    public RecordBytes writeAvroLong(long value) {
        return writeVarLong((value << 1) ^ (value >> 63));
    }

    /** An Avro {@code float} (4 bytes, little-endian IEEE 754). */
    public RecordBytes writeAvroFloat(float value) {
        return writeFloatLE(value);
    }

    /** An Avro {@code double} (8 bytes, little-endian IEEE 754). */
    public RecordBytes writeAvroDouble(double value) {
        return writeDoubleLE(value);
    }

    /** An Avro {@code boolean} (one byte, 0 or 1). */
    public RecordBytes writeAvroBoolean(boolean value) {
        return writeByte(value ? 1 : 0);
    }

    /** Avro {@code bytes}: the length as an Avro long, then the bytes. */
    public RecordBytes writeAvroBytes(byte[] src, int offset, int count) {
        writeAvroLong(count);
        return writeBytes(src, offset, count);
    }

    /** An Avro {@code string}: its UTF-8 length as an Avro long, then the UTF-8 bytes. Allocation-free. */
    public RecordBytes writeAvroString(CharSequence value) {
        writeAvroLong(utf8Length(value));
        return writeUtf8(value);
    }

    /** {@code value} as UTF-8, without a length. Allocation-free. */
    public RecordBytes writeUtf8(CharSequence value) {
        int n = value.length();
        ensure(n * 3);
        byte[] a = array;
        int p = length;
        for (int i = 0; i < n; i++) {
            char c = value.charAt(i);
            if (c < 0x80) {
                a[p++] = (byte) c;
            } else if (c < 0x800) {
                a[p++] = (byte) (0xC0 | (c >> 6));
                a[p++] = (byte) (0x80 | (c & 0x3F));
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(value.charAt(i + 1))) {
                // two chars, four bytes: within the 3 bytes per char ensured above
                int cp = Character.toCodePoint(c, value.charAt(++i));
                a[p++] = (byte) (0xF0 | (cp >> 18));
                a[p++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                a[p++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                a[p++] = (byte) (0x80 | (cp & 0x3F));
            } else if (Character.isSurrogate(c)) {
                a[p++] = '?'; // a lone surrogate is not encodable
            } else {
                a[p++] = (byte) (0xE0 | (c >> 12));
                a[p++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                a[p++] = (byte) (0x80 | (c & 0x3F));
            }
        }
        length = p;
        return this;
    }

    /** {@code count} random ASCII letters and digits (no length prefix). */
    public RecordBytes writeAlphanumeric(DatagenRandom random, int count) {
        ensure(count);
        byte[] a = array;
        int p = length;
        int i = 0;
        // two characters per random long: each 32-bit half scaled to [0, 62) by a multiply-shift
        // (Lemire's method without its rejection step: a bias below 62 / 2^32, irrelevant for test data)
        for (; i + 2 <= count; i += 2) {
            long r = random.nextLong();
            a[p++] = ALPHANUMERIC[(int) (((r & 0xFFFFFFFFL) * ALPHANUMERIC.length) >>> 32)];
            a[p++] = ALPHANUMERIC[(int) (((r >>> 32) * ALPHANUMERIC.length) >>> 32)];
        }
        if (i < count) {
            a[p++] = ALPHANUMERIC[(int) (((random.nextLong() >>> 32) * ALPHANUMERIC.length) >>> 32)];
        }
        length = p;
        return this;
    }

    /** {@code count} random bytes. */
    public RecordBytes writeRandomBytes(DatagenRandom random, int count) {
        ensure(count);
        byte[] a = array;
        int p = length;
        int i = 0;
        for (; i + 8 <= count; i += 8) {
            long r = random.nextLong();
            for (int b = 0; b < 8; b++) {
                a[p++] = (byte) (r >>> (8 * b));
            }
        }
        if (i < count) {
            long r = random.nextLong();
            for (; i < count; i++) {
                a[p++] = (byte) r;
                r >>>= 8;
            }
        }
        length = p;
        return this;
    }

    /** A random (version 4) UUID in its 36-character text form, without a length prefix. */
    public RecordBytes writeUuidText(DatagenRandom random) {
        long hi = (random.nextLong() & ~0xF000L) | 0x4000L;
        long lo = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        ensure(36);
        writeHex(hi >>> 32, 8);
        array[length++] = '-';
        writeHex(hi >>> 16, 4);
        array[length++] = '-';
        writeHex(hi, 4);
        array[length++] = '-';
        writeHex(lo >>> 48, 4);
        array[length++] = '-';
        writeHex(lo, 12);
        return this;
    }

    private void writeHex(long value, int digits) {
        byte[] a = array;
        int p = length;
        for (int i = digits - 1; i >= 0; i--) {
            a[p + i] = HEX[(int) (value & 0xF)];
            value >>>= 4;
        }
        length = p + digits;
    }

    private RecordBytes writeVarLong(long n) {
        ensure(10);
        byte[] a = array;
        int p = length;
        while ((n & ~0x7FL) != 0) {
            a[p++] = (byte) ((n & 0x7F) | 0x80);
            n >>>= 7;
        }
        a[p++] = (byte) n;
        length = p;
        return this;
    }

    static int utf8Length(CharSequence value) {
        int n = value.length();
        int bytes = 0;
        for (int i = 0; i < n; i++) {
            char c = value.charAt(i);
            if (c < 0x80) {
                bytes++;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(value.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                bytes++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }
}
