package dev.etl.clickhouse.sharding;

/**
 * ClickHouse's {@code murmurHash3_64}: MurmurHash3_x64_128 (Austin Appleby's reference, seed 0) of
 * the argument's bytes, returning the XOR of the two 64-bit halves ({@code h[0] ^ h[1]}).
 *
 * <p>Unlike {@code cityHash64}, {@code murmurHash3_64} hashes an integer argument as its
 * little-endian bytes <em>in the column's native width</em>: {@code murmurHash3_64(toUInt8(1))},
 * {@code murmurHash3_64(toUInt32(1))} and {@code murmurHash3_64(toUInt64(1))} are three different
 * values ({@link #hashInteger}).
 *
 * <p>Stateless and thread-safe; allocates nothing.
 */
final class MurmurHash3 {
    private static final long C1 = 0x87c37b91114253d5L;
    private static final long C2 = 0x4cf5ad432745937fL;

    private MurmurHash3() {}

    /** {@code murmurHash3_64} of the whole array (a String column's bytes). */
    public static long hash64(byte[] bytes) {
        return hash64(bytes, 0, bytes.length);
    }

    /** {@code murmurHash3_64} of {@code bytes[offset, offset + length)}. */
    public static long hash64(byte[] data, int offset, int length) {
        if (offset < 0 || length < 0 || offset > data.length - length) {
            throw new IndexOutOfBoundsException("offset " + offset + ", length " + length + ", array " + data.length);
        }
        long h1 = 0;
        long h2 = 0;
        int blocks = length >>> 4;
        for (int i = 0; i < blocks; i++) {
            int p = offset + (i << 4);
            long k1 = CityHash64.fetch64(data, p);
            long k2 = CityHash64.fetch64(data, p + 8);
            h1 ^= mixK1(k1);
            h1 = Long.rotateLeft(h1, 27);
            h1 += h2;
            h1 = h1 * 5 + 0x52dce729;
            h2 ^= mixK2(k2);
            h2 = Long.rotateLeft(h2, 31);
            h2 += h1;
            h2 = h2 * 5 + 0x38495ab5;
        }
        int tail = offset + (blocks << 4);
        int rest = length & 15;
        long k1 = 0;
        long k2 = 0;
        for (int i = rest - 1; i >= 8; i--) {
            k2 ^= (data[tail + i] & 0xffL) << ((i - 8) << 3);
        }
        for (int i = Math.min(rest, 8) - 1; i >= 0; i--) {
            k1 ^= (data[tail + i] & 0xffL) << (i << 3);
        }
        if (rest > 8) {
            h2 ^= mixK2(k2);
        }
        if (rest > 0) {
            h1 ^= mixK1(k1);
        }
        return finish(h1, h2, length);
    }

    /**
     * {@code murmurHash3_64} of an integer column value of {@code widthBytes} (1, 2, 4 or 8): the hash
     * of its little-endian bytes, i.e. of the low {@code 8 * widthBytes} bits of {@code value}.
     */
    public static long hashInteger(long value, int widthBytes) {
        if (widthBytes != 1 && widthBytes != 2 && widthBytes != 4 && widthBytes != 8) {
            throw new IllegalArgumentException("integer width must be 1, 2, 4 or 8 bytes, got " + widthBytes);
        }
        // Shorter than one 16-byte block: only the k1 tail of the reference algorithm runs.
        long k1 = widthBytes == 8 ? value : value & ((1L << (widthBytes << 3)) - 1);
        return finish(mixK1(k1), 0, widthBytes);
    }

    private static long mixK1(long k1) {
        k1 *= C1;
        k1 = Long.rotateLeft(k1, 31);
        return k1 * C2;
    }

    private static long mixK2(long k2) {
        k2 *= C2;
        k2 = Long.rotateLeft(k2, 33);
        return k2 * C1;
    }

    private static long finish(long h1, long h2, int length) {
        h1 ^= length;
        h2 ^= length;
        h1 += h2;
        h2 += h1;
        h1 = IntHash64.mix(h1);
        h2 = IntHash64.mix(h2);
        h1 += h2;
        h2 += h1;
        return h1 ^ h2;
    }
}
