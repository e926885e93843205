package dev.etl.avro.clickhouse;

import dev.etl.avro.binary.AvroCursor;
import dev.etl.avro.binary.MalformedAvroException;
import dev.etl.sink.RowBuffer;

/**
 * Avro decimals (big-endian two's complement unscaled values, in {@code bytes} or a {@code fixed}) as
 * ClickHouse Decimals (little-endian, 4, 8, 16 or 32 bytes), without allocating: the digits check of
 * wide values uses the lane's scratch in the cursor.
 */
final class Decimals {
    private Decimals() {}

    /**
     * An Avro decimal (big-endian two's complement unscaled value of {@code length} bytes at the
     * cursor) as a little-endian Decimal of {@code width} bytes. Redundant sign bytes are dropped
     * first, as Avro's own {@code BigInteger} reading does; then the value must have at most
     * {@code precision} digits, as the object path checks.
     */
    static void write(
            AvroCursor in,
            int length,
            int width,
            int precision,
            byte[] limitMagnitude,
            String columnType,
            RowBuffer out) {
        if (length == 0) {
            throw new MalformedAvroException("a decimal of zero bytes at byte " + in.position());
        }
        int first = 0;
        while (first < length - 1
                && (in.peek(first) == 0 && in.peek(first + 1) >= 0 || in.peek(first) == -1 && in.peek(first + 1) < 0)) {
            first++;
        }
        int significant = length - first;
        boolean negative = in.peek(first) < 0;
        if (significant > width) {
            in.skip(length);
            throw new ValueRejected("a decimal of " + significant + " bytes does not fit " + columnType);
        }
        if (significant <= 8) {
            long v = in.peek(first);
            for (int i = first + 1; i < length; i++) {
                v = v << 8 | (in.peek(i) & 0xff);
            }
            if (precision <= 18 && (v == Long.MIN_VALUE || Math.abs(v) >= pow10(precision))) {
                in.skip(length);
                throw new ValueRejected(
                        "unscaled value " + v + " has more than " + precision + " digits for " + columnType);
            }
        } else if (!withinLimit(in, first, significant, negative, limitMagnitude)) {
            in.skip(length);
            throw new ValueRejected("an unscaled value of " + significant + " bytes has more than " + precision
                    + " digits for " + columnType);
        }
        out.ensureRemaining(width);
        int pad = negative ? 0xff : 0;
        for (int i = 0; i < width; i++) {
            out.writeByte(i < significant ? in.peek(length - 1 - i) : pad);
        }
        in.skip(length);
    }

    /** |value| < 10^precision, the value's magnitude computed into the lane's scratch. */
    private static boolean withinLimit(
            AvroCursor in, int first, int significant, boolean negative, byte[] limitMagnitude) {
        byte[] m = in.scratch(32);
        int carry = 1;
        for (int i = significant - 1; i >= 0; i--) {
            int b = in.peek(first + i) & 0xff;
            if (negative) {
                // two's complement negation: invert, then add one from the lowest byte up
                b = (~b & 0xff) + carry;
                carry = b >> 8;
                b &= 0xff;
            }
            m[i] = (byte) b;
        }
        byte[] limit = limitMagnitude;
        int mStart = 0;
        while (mStart < significant && m[mStart] == 0) {
            mStart++;
        }
        int mLength = significant - mStart;
        if (mLength != limit.length) {
            return mLength < limit.length;
        }
        for (int i = 0; i < mLength; i++) {
            int a = m[mStart + i] & 0xff;
            int b = limit[i] & 0xff;
            if (a != b) {
                return a < b;
            }
        }
        return false;
    }

    private static final long[] POW10 = new long[19];

    static {
        long p = 1;
        for (int i = 0; i < POW10.length; i++) {
            POW10[i] = p;
            p *= 10;
        }
    }

    static long pow10(int exponent) {
        return POW10[exponent];
    }
}
