package dev.etl.clickhouse;

import dev.etl.sink.RowBuffer;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.time.Instant;
import java.util.UUID;

/**
 * The RowBinary wire rules shared by the column writers and {@link ClickHouseTypes}: range checks
 * and the encodings that are more than one {@link RowBuffer} call. Range failures throw
 * {@link IllegalArgumentException} with the value and the range; the encoder adds the column.
 */
final class RowBinary {
    static final long UINT32_MAX = 0xFFFF_FFFFL;
    /** Date32 range: 1900-01-01 to 2299-12-31, in days since 1970-01-01. */
    static final int DATE32_MIN = -25_567;

    static final int DATE32_MAX = 120_529;

    private static final long[] POW10 = new long[19];

    static {
        long p = 1;
        for (int i = 0; i < POW10.length; i++) {
            POW10[i] = p;
            p *= 10;
        }
    }

    private RowBinary() {}

    static void checkRange(long value, long min, long max, String type) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(
                    "value " + value + " out of range for " + type + " [" + min + ", " + max + "]");
        }
    }

    static void uint8(int value, RowBuffer out) {
        checkRange(value, 0, 0xFF, "UInt8");
        out.writeByte(value);
    }

    static void uint16(int value, RowBuffer out) {
        checkRange(value, 0, 0xFFFF, "UInt16");
        out.writeShortLE(value);
    }

    static void uint32(long value, RowBuffer out) {
        checkRange(value, 0, UINT32_MAX, "UInt32");
        out.writeIntLE((int) value);
    }

    static void uint64(long value, RowBuffer out) {
        if (value < 0) {
            throw new IllegalArgumentException(
                    "value " + value + " out of range for UInt64 [0, 2^63-1] as a signed long"
                            + " (use uint64Bits to send the raw unsigned bits)");
        }
        out.writeLongLE(value);
    }

    static void int8(int value, RowBuffer out) {
        checkRange(value, Byte.MIN_VALUE, Byte.MAX_VALUE, "Int8");
        out.writeByte(value);
    }

    static void int16(int value, RowBuffer out) {
        checkRange(value, Short.MIN_VALUE, Short.MAX_VALUE, "Int16");
        out.writeShortLE(value);
    }

    static void date(int epochDay, RowBuffer out) {
        checkRange(epochDay, 0, 0xFFFF, "Date (days since 1970-01-01)");
        out.writeShortLE(epochDay);
    }

    static void date32(int epochDay, RowBuffer out) {
        checkRange(epochDay, DATE32_MIN, DATE32_MAX, "Date32 (days since 1970-01-01)");
        out.writeIntLE(epochDay);
    }

    static void dateTime(long epochSecond, RowBuffer out) {
        checkRange(epochSecond, 0, UINT32_MAX, "DateTime (seconds since 1970-01-01)");
        out.writeIntLE((int) epochSecond);
    }

    /** Ticks of 10^-precision seconds since the epoch; overflow of the Int64 is an error. */
    static long dateTime64Ticks(Instant instant, int precision) {
        long unit = POW10[precision];
        long fraction = instant.getNano() / POW10[9 - precision];
        long second = instant.getEpochSecond();
        try {
            if (second < 0 && fraction > 0) {
                // The seconds times the unit may be below Long.MIN_VALUE where the ticks are not (DateTime64(9)'s
                // first second, 1677-09-21T00:12:43Z): count from the next second back.
                return Math.addExact(Math.multiplyExact(second + 1, unit), fraction - unit);
            }
            return Math.addExact(Math.multiplyExact(second, unit), fraction);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("instant " + instant + " overflows DateTime64(" + precision + ")", e);
        }
    }

    static void checkPrecision(int precision, int max, String type) {
        if (precision < 0 || precision > max) {
            throw new IllegalArgumentException(type + " precision must be in [0, " + max + "], got " + precision);
        }
    }

    /** ClickHouse's UUID: the high 64 bits, then the low 64 bits, each little-endian. */
    static void uuid(UUID value, RowBuffer out) {
        out.writeLongLE(value.getMostSignificantBits());
        out.writeLongLE(value.getLeastSignificantBits());
    }

    static void ipv6(byte[] networkOrder, RowBuffer out) {
        if (networkOrder.length != 16) {
            throw new IllegalArgumentException("IPv6 needs 16 bytes in network order, got " + networkOrder.length);
        }
        out.writeBytes(networkOrder, 0, 16);
    }

    static void fixedString(byte[] value, int n, RowBuffer out) {
        if (value.length > n) {
            throw new IllegalArgumentException(value.length + " bytes do not fit FixedString(" + n + ")");
        }
        out.writeBytes(value, 0, value.length);
        for (int i = value.length; i < n; i++) {
            out.writeByte(0);
        }
    }

    /**
     * A little-endian two's complement integer of {@code bytes} bytes. Allocates (BigInteger).
     */
    static void bigInteger(BigInteger value, int bytes, boolean unsigned, RowBuffer out, String type) {
        int bits = bytes * 8;
        boolean fits = unsigned ? value.signum() >= 0 && value.bitLength() <= bits : value.bitLength() <= bits - 1;
        if (!fits) {
            throw new IllegalArgumentException("value " + value + " out of range for " + type);
        }
        byte[] be = value.toByteArray();
        int pad = value.signum() < 0 ? 0xFF : 0;
        out.ensureRemaining(bytes);
        for (int i = 0; i < bytes; i++) {
            out.writeByte(i < be.length ? be[be.length - 1 - i] : pad);
        }
    }

    /** Bytes of a Decimal(P, S): 4, 8, 16 or 32. */
    static int decimalWidth(int precision) {
        if (precision < 1 || precision > 76) {
            throw new IllegalArgumentException("Decimal precision must be in [1, 76], got " + precision);
        }
        return precision <= 9 ? 4 : precision <= 18 ? 8 : precision <= 38 ? 16 : 32;
    }

    static void checkScale(int precision, int scale) {
        if (scale < 0 || scale > precision) {
            throw new IllegalArgumentException("Decimal scale must be in [0, " + precision + "], got " + scale);
        }
    }

    static String decimalName(int precision, int scale) {
        return "Decimal(" + precision + ", " + scale + ")";
    }

    /** An unscaled long against Decimal(P, S) with P <= 18: |value| < 10^P. */
    static void checkUnscaled(long unscaled, int precision, String type) {
        long limit = POW10[precision];
        if (unscaled <= -limit || unscaled >= limit) {
            throw new IllegalArgumentException(
                    "unscaled value " + unscaled + " has more than " + precision + " digits for " + type);
        }
    }

    /** A BigDecimal as Decimal(P, S). Allocates; rounding is never silent. */
    static void decimal(BigDecimal value, int precision, int scale, RowBuffer out, String type) {
        BigInteger unscaled;
        try {
            unscaled = value.setScale(scale, RoundingMode.UNNECESSARY).unscaledValue();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(
                    "value " + value.toPlainString() + " has more than " + scale + " decimal places for " + type, e);
        }
        if (unscaled.abs().compareTo(BigInteger.TEN.pow(precision)) >= 0) {
            throw new IllegalArgumentException("value " + value.toPlainString() + " has more than " + precision
                    + " significant digits for " + type);
        }
        int width = decimalWidth(precision);
        if (width == 4) {
            out.writeIntLE(unscaled.intValue());
        } else if (width == 8) {
            out.writeLongLE(unscaled.longValue());
        } else {
            bigInteger(unscaled, width, false, out, type);
        }
    }

    /** Enum type string with values in declaration order: {@code Enum8('a' = 1, 'b' = 2)}. */
    static String enumName(String kind, java.util.Map<String, Integer> values, int min, int max) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException(kind + " needs at least one value");
        }
        StringBuilder sb = new StringBuilder(kind).append('(');
        boolean first = true;
        for (java.util.Map.Entry<String, Integer> e : values.entrySet()) {
            int code = e.getValue();
            if (code < min || code > max) {
                throw new IllegalArgumentException(
                        kind + " value '" + e.getKey() + "' = " + code + " out of [" + min + ", " + max + "]");
            }
            if (!first) {
                sb.append(", ");
            }
            first = false;
            sb.append('\'')
                    .append(e.getKey().replace("\\", "\\\\").replace("'", "\\'"))
                    .append("' = ")
                    .append(code);
        }
        return sb.append(')').toString();
    }

    /** Which codes an enum accepts, indexed by {@code code - min}. */
    static boolean[] enumCodes(java.util.Map<String, Integer> values, int min, int max) {
        boolean[] known = new boolean[max - min + 1];
        for (int code : values.values()) {
            known[code - min] = true;
        }
        return known;
    }

    static void checkEnumCode(boolean[] known, int min, int code, String type) {
        int i = code - min;
        if (i < 0 || i >= known.length || !known[i]) {
            throw new IllegalArgumentException("code " + code + " is not a value of " + type);
        }
    }

    static <V> V nonNull(V value, String type) {
        if (value == null) {
            throw new IllegalArgumentException("null value for non-Nullable " + type);
        }
        return value;
    }
}
