package dev.etl.json.clickhouse;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;

/**
 * Numbers read from their JSON text ({@code b[from, to)}: a number token, or a string's content), without
 * a {@code String} on the common path: integers exactly (range errors, never wrap-around), decimals
 * exactly from the digits (never through a double), floating point correctly rounded (a fast exact path
 * for up to 15 significant digits and a power of ten up to 22, the JDK's parser otherwise, which
 * allocates). Failures throw {@link ValueRejected} with the problem; the caller adds the column.
 */
final class JsonNumbers {
    private static final double[] POW10_DOUBLE = new double[23];
    private static final float[] POW10_FLOAT = new float[11];
    static final long[] POW10 = new long[19];

    static {
        double d = 1;
        for (int i = 0; i < POW10_DOUBLE.length; i++) {
            POW10_DOUBLE[i] = d;
            d *= 10;
        }
        float f = 1;
        for (int i = 0; i < POW10_FLOAT.length; i++) {
            POW10_FLOAT[i] = f;
            f *= 10;
        }
        long p = 1;
        for (int i = 0; i < POW10.length; i++) {
            POW10[i] = p;
            p *= 10;
        }
    }

    private JsonNumbers() {}

    /** Whether {@code b[from, to)} is a JSON number, exactly. */
    static boolean isNumber(byte[] b, int from, int to) {
        int i = from;
        if (i < to && b[i] == '-') {
            i++;
        }
        int digits = i;
        while (i < to && JsonScanner.digit(b[i])) {
            i++;
        }
        if (i == digits || (b[digits] == '0' && i - digits > 1)) {
            return false;
        }
        if (i < to && b[i] == '.') {
            int f = ++i;
            while (i < to && JsonScanner.digit(b[i])) {
                i++;
            }
            if (i == f) {
                return false;
            }
        }
        if (i < to && (b[i] == 'e' || b[i] == 'E')) {
            i++;
            if (i < to && (b[i] == '+' || b[i] == '-')) {
                i++;
            }
            int e = i;
            while (i < to && JsonScanner.digit(b[i])) {
                i++;
            }
            if (i == e) {
                return false;
            }
        }
        return i == to;
    }

    /**
     * A signed 64-bit integer from decimal digits with an optional '-' (leading zeros allowed in a
     * string's content).
     */
    static long signed(byte[] b, int from, int to) {
        int i = from;
        boolean negative = i < to && b[i] == '-';
        if (negative) {
            i++;
        }
        if (i == to) {
            throw notInteger(b, from, to);
        }
        long limit = negative ? Long.MIN_VALUE : -Long.MAX_VALUE;
        long multmin = limit / 10;
        long acc = 0;
        for (; i < to; i++) {
            int d = b[i] - '0';
            if (d < 0 || d > 9) {
                throw notInteger(b, from, to);
            }
            if (acc < multmin) {
                throw outOfRange(b, from, to, "Int64");
            }
            acc *= 10;
            if (acc < limit + d) {
                throw outOfRange(b, from, to, "Int64");
            }
            acc -= d;
        }
        return negative ? acc : -acc;
    }

    /** An unsigned 64-bit integer (its bits in a long) from decimal digits; "-0" is 0, other negatives fail. */
    static long unsigned(byte[] b, int from, int to, String type) {
        if (from < to && b[from] == '-') {
            if (signed(b, from, to) != 0) {
                throw outOfRange(b, from, to, type);
            }
            return 0;
        }
        if (from == to) {
            throw notInteger(b, from, to);
        }
        long acc = 0;
        for (int i = from; i < to; i++) {
            int d = b[i] - '0';
            if (d < 0 || d > 9) {
                throw notInteger(b, from, to);
            }
            if (Long.compareUnsigned(acc, 0x1999_9999_9999_9999L) > 0) {
                throw outOfRange(b, from, to, type);
            }
            long next = acc * 10 + d;
            if (Long.compareUnsigned(next, acc * 10) < 0) {
                throw outOfRange(b, from, to, type);
            }
            acc = next;
        }
        return acc;
    }

    /** An integer of any size (Int128/256, UInt128/256). Allocates. */
    static BigInteger big(byte[] b, int from, int to) {
        for (int i = b[from] == '-' ? from + 1 : from; i < to; i++) {
            if (!JsonScanner.digit(b[i])) {
                throw notInteger(b, from, to);
            }
        }
        if (to == from || (to == from + 1 && b[from] == '-')) {
            throw notInteger(b, from, to);
        }
        return new BigInteger(ascii(b, from, to));
    }

    static ValueRejected notInteger(byte[] b, int from, int to) {
        return new ValueRejected("'" + ascii(b, from, to) + "' is not an integer");
    }

    static ValueRejected outOfRange(byte[] b, int from, int to, String type) {
        return new ValueRejected("value " + ascii(b, from, to) + " out of range for " + type);
    }

    /** The double nearest to the JSON number {@code b[from, to)} (a valid number). */
    static double toDouble(byte[] b, int from, int to) {
        int i = from;
        boolean negative = b[i] == '-';
        if (negative) {
            i++;
        }
        long m = 0;
        int digits = 0;
        int exp10 = 0;
        boolean dropped = false;
        for (; i < to && JsonScanner.digit(b[i]); i++) {
            int d = b[i] - '0';
            if (m == 0 && d == 0) {
                continue;
            }
            if (digits < 18) {
                m = m * 10 + d;
                digits++;
            } else {
                exp10++;
                dropped |= d != 0;
            }
        }
        if (i < to && b[i] == '.') {
            for (i++; i < to && JsonScanner.digit(b[i]); i++) {
                int d = b[i] - '0';
                if (m == 0 && d == 0) {
                    exp10--;
                } else if (digits < 18) {
                    m = m * 10 + d;
                    digits++;
                    exp10--;
                } else {
                    dropped |= d != 0;
                }
            }
        }
        if (i < to) {
            exp10 += exponent(b, i + 1, to);
        }
        if (m == 0) {
            return negative ? -0.0 : 0.0;
        }
        if (!dropped && m < (1L << 53) && exp10 >= -22 && exp10 <= 22) {
            // Clinger's fast path: m and 10^|exp10| are exact doubles, so one IEEE operation rounds once.
            double d = exp10 < 0 ? m / POW10_DOUBLE[-exp10] : m * POW10_DOUBLE[exp10];
            return negative ? -d : d;
        }
        return Double.parseDouble(ascii(b, from, to));
    }

    /** The float nearest to the JSON number {@code b[from, to)} (a valid number): never a double rounded again. */
    static float toFloat(byte[] b, int from, int to) {
        int i = from;
        boolean negative = b[i] == '-';
        if (negative) {
            i++;
        }
        long m = 0;
        int digits = 0;
        int exp10 = 0;
        boolean dropped = false;
        for (; i < to && JsonScanner.digit(b[i]); i++) {
            int d = b[i] - '0';
            if (m == 0 && d == 0) {
                continue;
            }
            if (digits < 18) {
                m = m * 10 + d;
                digits++;
            } else {
                exp10++;
                dropped |= d != 0;
            }
        }
        if (i < to && b[i] == '.') {
            for (i++; i < to && JsonScanner.digit(b[i]); i++) {
                int d = b[i] - '0';
                if (m == 0 && d == 0) {
                    exp10--;
                } else if (digits < 18) {
                    m = m * 10 + d;
                    digits++;
                    exp10--;
                } else {
                    dropped |= d != 0;
                }
            }
        }
        if (i < to) {
            exp10 += exponent(b, i + 1, to);
        }
        if (m == 0) {
            return negative ? -0.0f : 0.0f;
        }
        if (!dropped && m < (1L << 24) && exp10 >= -10 && exp10 <= 10) {
            float f = exp10 < 0 ? m / POW10_FLOAT[-exp10] : m * POW10_FLOAT[exp10];
            return negative ? -f : f;
        }
        return Float.parseFloat(ascii(b, from, to));
    }

    /** The exponent after 'e' at {@code b[from, to)}, saturated far beyond any double's range. */
    private static int exponent(byte[] b, int from, int to) {
        int i = from;
        boolean negative = b[i] == '-';
        if (negative || b[i] == '+') {
            i++;
        }
        int e = 0;
        for (; i < to; i++) {
            if (e < 100_000) {
                e = e * 10 + (b[i] - '0');
            }
        }
        return negative ? -e : e;
    }

    /**
     * Writes the JSON number {@code b[from, to)} (a valid number) as {@code Decimal(precision, scale)}
     * of {@code width} bytes: exactly from its digits; more decimal places than the scale (other than
     * zeros) or more digits than the precision fail, nothing is rounded. Allocates only for a value of
     * more than 18 digits.
     */
    static void decimal(byte[] b, int from, int to, int precision, int scale, int width, dev.etl.sink.RowBuffer out) {
        int i = from;
        boolean negative = b[i] == '-';
        if (negative) {
            i++;
        }
        int intFrom = i;
        while (i < to && JsonScanner.digit(b[i])) {
            i++;
        }
        int intTo = i;
        int fracFrom = i;
        int fracTo = i;
        if (i < to && b[i] == '.') {
            fracFrom = ++i;
            while (i < to && JsonScanner.digit(b[i])) {
                i++;
            }
            fracTo = i;
        }
        long exponent = i < to ? exponent(b, i + 1, to) : 0;
        int intDigits = intTo - intFrom;
        int n = intDigits + (fracTo - fracFrom);
        // unscaled = digits × 10^k
        long k = exponent - (fracTo - fracFrom) + scale;
        long keep = k < 0 ? n + k : n;
        for (long j = Math.max(keep, 0); j < n; j++) {
            if (digitAt(b, intFrom, intDigits, fracFrom, (int) j) != 0) {
                throw new ValueRejected("value " + ascii(b, from, to) + " has more than " + scale
                        + " decimal places for Decimal(" + precision + ", " + scale + ")");
            }
        }
        long unscaled = 0;
        int significant = 0;
        for (int j = 0; j < keep; j++) {
            int d = digitAt(b, intFrom, intDigits, fracFrom, j);
            if (significant == 0 && d == 0) {
                continue;
            }
            significant++;
            if (significant <= 18) {
                unscaled = unscaled * 10 + d;
            }
        }
        if (significant > 0 && k > 0) {
            significant += (int) Math.min(k, 1000);
        }
        if (significant > precision) {
            throw new ValueRejected("value " + ascii(b, from, to) + " has more than " + precision
                    + " significant digits for Decimal(" + precision + ", " + scale + ")");
        }
        if (significant <= 18) {
            if (significant > 0 && k > 0) {
                unscaled *= POW10[(int) k];
            }
            long v = negative ? -unscaled : unscaled;
            if (width == 4) {
                out.writeIntLE((int) v);
            } else {
                out.writeLongLE(v);
                long sign = v < 0 ? -1L : 0L;
                for (int w = 8; w < width; w += 8) {
                    out.writeLongLE(sign);
                }
            }
            return;
        }
        BigInteger big = new BigDecimal(ascii(b, from, to))
                .setScale(scale, RoundingMode.UNNECESSARY)
                .unscaledValue();
        littleEndian(big, width, out);
    }

    private static int digitAt(byte[] b, int intFrom, int intDigits, int fracFrom, int j) {
        return (j < intDigits ? b[intFrom + j] : b[fracFrom + j - intDigits]) - '0';
    }

    /** A two's complement integer of {@code width} bytes, little-endian (its range already checked). */
    static void littleEndian(BigInteger value, int width, dev.etl.sink.RowBuffer out) {
        byte[] be = value.toByteArray();
        int pad = value.signum() < 0 ? 0xFF : 0;
        out.ensureRemaining(width);
        for (int i = 0; i < width; i++) {
            out.writeByte(i < be.length ? be[be.length - 1 - i] : pad);
        }
    }

    static String ascii(byte[] b, int from, int to) {
        return new String(b, from, to - from, StandardCharsets.ISO_8859_1);
    }
}
