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

    void wrap(byte[] array, int offset, int length) {
        this.buf = array;
        this.start = offset;
        this.pos = offset;
        this.limit = offset + length;
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

    private AvroBodyException eof(int wanted) {
        return new AvroBodyException(
                "unexpected end of body: needed " + wanted + " more byte(s) at byte " + position() + " of " + length());
    }

    private AvroBodyException malformedVarint(String what, int at) {
        return new AvroBodyException("malformed " + what + " varint at byte " + (at - start));
    }
}
