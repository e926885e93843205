package dev.etl.json.clickhouse;

import java.math.BigInteger;

/**
 * The double nearest to {@code w × 10^q} for an exact decimal significand {@code w} of at most 19 digits,
 * without allocating: the Eisel–Lemire algorithm as fast_float implements it (a 128-bit approximation of
 * 5^q from a table, proved sufficient for every such {@code w} and {@code q}: Mushtak and Lemire, "Fast
 * number parsing without fallback", 2023), round to nearest, ties to even, subnormals and overflow
 * included. The table of 5^q (q in [-342, 308]) is computed once, at class initialisation.
 */
final class EiselLemire {
    private static final int SMALLEST_POWER_OF_TEN = -342;
    private static final int LARGEST_POWER_OF_TEN = 308;
    /** High and low 64 bits of the normalised 128-bit 5^q, q from {@link #SMALLEST_POWER_OF_TEN}. */
    private static final long[] POWER_OF_FIVE_128 = table();

    private EiselLemire() {}

    private static long[] table() {
        long[] t = new long[2 * (LARGEST_POWER_OF_TEN - SMALLEST_POWER_OF_TEN + 1)];
        BigInteger two128 = BigInteger.ONE.shiftLeft(128);
        BigInteger two127 = BigInteger.ONE.shiftLeft(127);
        for (int q = SMALLEST_POWER_OF_TEN; q <= LARGEST_POWER_OF_TEN; q++) {
            BigInteger c;
            if (q < 0) {
                BigInteger power5 = BigInteger.valueOf(5).pow(-q);
                int z = power5.bitLength(); // 2^(z-1) < 5^-q < 2^z
                int b = q >= -27 ? z + 127 : 2 * z + 2 * 64;
                c = BigInteger.ONE.shiftLeft(b).divide(power5).add(BigInteger.ONE);
                while (c.compareTo(two128) >= 0) {
                    c = c.shiftRight(1);
                }
            } else {
                c = BigInteger.valueOf(5).pow(q);
                while (c.compareTo(two127) < 0) {
                    c = c.shiftLeft(1);
                }
                while (c.compareTo(two128) >= 0) {
                    c = c.shiftRight(1);
                }
            }
            int i = 2 * (q - SMALLEST_POWER_OF_TEN);
            t[i] = c.shiftRight(64).longValue();
            t[i + 1] = c.longValue();
        }
        return t;
    }

    /** The double nearest to {@code w × 10^q} ({@code w} unsigned, non-zero), negated when {@code negative}. */
    static double toDouble(long w, int q, boolean negative) {
        long sign = negative ? Long.MIN_VALUE : 0L;
        if (q < SMALLEST_POWER_OF_TEN) {
            return Double.longBitsToDouble(sign);
        }
        if (q > LARGEST_POWER_OF_TEN) {
            return Double.longBitsToDouble(sign | 0x7FF0_0000_0000_0000L);
        }
        int lz = Long.numberOfLeadingZeros(w);
        w <<= lz;
        int index = 2 * (q - SMALLEST_POWER_OF_TEN);
        long high = unsignedMultiplyHigh(w, POWER_OF_FIVE_128[index]);
        long low = w * POWER_OF_FIVE_128[index];
        if ((high & 0x1FF) == 0x1FF) {
            long secondHigh = unsignedMultiplyHigh(w, POWER_OF_FIVE_128[index + 1]);
            low += secondHigh;
            if (Long.compareUnsigned(secondHigh, low) > 0) {
                high++;
            }
        }
        int upperBit = (int) (high >>> 63);
        int shift = upperBit + 64 - 52 - 3;
        long mantissa = high >>> shift;
        int power2 = power(q) + upperBit - lz + 1023;
        if (power2 <= 0) {
            if (-power2 + 1 >= 64) {
                return Double.longBitsToDouble(sign);
            }
            mantissa >>>= -power2 + 1;
            mantissa += mantissa & 1;
            mantissa >>>= 1;
            power2 = mantissa < (1L << 52) ? 0 : 1;
            return Double.longBitsToDouble(sign | ((long) power2 << 52) | (mantissa & ~(1L << 52)));
        }
        if (Long.compareUnsigned(low, 1) <= 0 && q >= -4 && q <= 23 && (mantissa & 3) == 1) {
            // Exactly between two doubles: round to even.
            if ((mantissa << shift) == high) {
                mantissa &= ~1L;
            }
        }
        mantissa += mantissa & 1;
        mantissa >>>= 1;
        if (mantissa >= (2L << 52)) {
            mantissa = 1L << 52;
            power2++;
        }
        mantissa &= ~(1L << 52);
        if (power2 >= 0x7FF) {
            return Double.longBitsToDouble(sign | 0x7FF0_0000_0000_0000L);
        }
        return Double.longBitsToDouble(sign | ((long) power2 << 52) | mantissa);
    }

    /** floor(log2(10^q)) + 63, for q in [-342, 308]. */
    private static int power(int q) {
        return (((152_170 + 65_536) * q) >> 16) + 63;
    }

    private static long unsignedMultiplyHigh(long a, long b) {
        return Math.multiplyHigh(a, b) + ((a >> 63) & b) + ((b >> 63) & a);
    }
}
