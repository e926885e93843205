package dev.etl.clickhouse.sharding;

/**
 * ClickHouse's {@code cityHash64} of a byte string: CityHash64 as of <b>CityHash v1.0.2</b>, the
 * version ClickHouse ships ({@code contrib/cityhash102}, namespace {@code CityHash_v1_0_2}) and has
 * exposed unchanged since; Google's later CityHash releases (1.0.3, 1.1) compute different values.
 * Inputs are read little-endian, as on every platform ClickHouse runs on.
 *
 * <p>{@code cityHash64} of an <em>integer</em> argument is not this function: ClickHouse hashes
 * integers with {@link IntHash64#ofBits} (see {@link ShardingFunction#CITY_HASH_64}).
 *
 * <p>Stateless and thread-safe; allocates nothing.
 */
final class CityHash64 {
    private static final long K0 = 0xc3a5c85c97cb3127L;
    private static final long K1 = 0xb492b66fbe98f273L;
    private static final long K2 = 0x9ae16a3b2f90404fL;
    private static final long K3 = 0xc949d7c7509e6557L;
    private static final long K_MUL = 0x9ddfea08eb382d69L;

    private CityHash64() {}

    /** {@code cityHash64} of the whole array. */
    public static long hash(byte[] bytes) {
        return hash(bytes, 0, bytes.length);
    }

    /**
     * {@code cityHash64} of {@code bytes[offset, offset + length)}, e.g. a String column's UTF-8 bytes.
     *
     * @return the UInt64 result as a Java long (compare with {@link Long#toUnsignedString})
     */
    public static long hash(byte[] s, int offset, int length) {
        if (offset < 0 || length < 0 || offset > s.length - length) {
            throw new IndexOutOfBoundsException("offset " + offset + ", length " + length + ", array " + s.length);
        }
        if (length <= 32) {
            return length <= 16 ? hashLen0to16(s, offset, length) : hashLen17to32(s, offset, length);
        }
        if (length <= 64) {
            return hashLen33to64(s, offset, length);
        }
        return hashLongerThan64(s, offset, length);
    }

    /**
     * CityHash's {@code Hash128to64(uint128(low, high))}: how {@code cityHash64(a, b, …)} combines the
     * hashes of its arguments ({@code combine(hash(a), hash(b))}, left to right).
     */
    public static long hash128to64(long low, long high) {
        long a = (low ^ high) * K_MUL;
        a ^= a >>> 47;
        long b = (high ^ a) * K_MUL;
        b ^= b >>> 47;
        return b * K_MUL;
    }

    private static long hashLongerThan64(byte[] s, int offset, int length) {
        int end = offset + length;
        // Hash the end first; then 56 bytes of state (v, w, x, y, z) over 64-byte chunks.
        long x = fetch64(s, offset);
        long y = fetch64(s, end - 16) ^ K1;
        long z = fetch64(s, end - 56) ^ K0;
        long vFirst;
        long vSecond;
        long wFirst;
        long wSecond;
        {
            int p = end - 64;
            long a = length + fetch64(s, p);
            long b = Long.rotateRight(y + a + fetch64(s, p + 24), 21);
            long c = a;
            a += fetch64(s, p + 8);
            a += fetch64(s, p + 16);
            b += Long.rotateRight(a, 44);
            vFirst = a + fetch64(s, p + 24);
            vSecond = b + c;
        }
        {
            int p = end - 32;
            long a = length * K1 + fetch64(s, p);
            long b = Long.rotateRight(K0 + a + fetch64(s, p + 24), 21);
            long c = a;
            a += fetch64(s, p + 8);
            a += fetch64(s, p + 16);
            b += Long.rotateRight(a, 44);
            wFirst = a + fetch64(s, p + 24);
            wSecond = b + c;
        }
        z += shiftMix(vSecond) * K1;
        x = Long.rotateRight(z + x, 39) * K1;
        y = Long.rotateRight(y, 33) * K1;

        // len = (len - 1) & ~63: the number of bytes covered by whole 64-byte chunks from the start
        int remaining = (length - 1) & ~63;
        int p = offset;
        do {
            x = Long.rotateRight(x + y + vFirst + fetch64(s, p + 16), 37) * K1;
            y = Long.rotateRight(y + vSecond + fetch64(s, p + 48), 42) * K1;
            x ^= wSecond;
            y ^= vFirst;
            z = Long.rotateRight(z ^ wFirst, 33);
            // v = WeakHashLen32WithSeeds(s, v.second * k1, x + w.first)
            long a = vSecond * K1 + fetch64(s, p);
            long b = Long.rotateRight(x + wFirst + a + fetch64(s, p + 24), 21);
            long c = a;
            a += fetch64(s, p + 8);
            a += fetch64(s, p + 16);
            b += Long.rotateRight(a, 44);
            vFirst = a + fetch64(s, p + 24);
            vSecond = b + c;
            // w = WeakHashLen32WithSeeds(s + 32, z + w.second, y)
            a = z + wSecond + fetch64(s, p + 32);
            b = Long.rotateRight(y + a + fetch64(s, p + 56), 21);
            c = a;
            a += fetch64(s, p + 40);
            a += fetch64(s, p + 48);
            b += Long.rotateRight(a, 44);
            wFirst = a + fetch64(s, p + 56);
            wSecond = b + c;
            long swap = z;
            z = x;
            x = swap;
            p += 64;
            remaining -= 64;
        } while (remaining != 0);
        return hash128to64(hash128to64(vFirst, wFirst) + shiftMix(y) * K1 + z, hash128to64(vSecond, wSecond) + x);
    }

    private static long hashLen0to16(byte[] s, int offset, int length) {
        if (length > 8) {
            long a = fetch64(s, offset);
            long b = fetch64(s, offset + length - 8);
            return hash128to64(a, Long.rotateRight(b + length, length)) ^ b;
        }
        if (length >= 4) {
            long a = fetch32(s, offset);
            return hash128to64(length + (a << 3), fetch32(s, offset + length - 4));
        }
        if (length > 0) {
            int a = s[offset] & 0xff;
            int b = s[offset + (length >> 1)] & 0xff;
            int c = s[offset + length - 1] & 0xff;
            long y = (a + (b << 8)) & 0xffffffffL;
            long z = (length + (c << 2)) & 0xffffffffL;
            return shiftMix(y * K2 ^ z * K3) * K2;
        }
        return K2;
    }

    private static long hashLen17to32(byte[] s, int offset, int length) {
        long a = fetch64(s, offset) * K1;
        long b = fetch64(s, offset + 8);
        long c = fetch64(s, offset + length - 8) * K2;
        long d = fetch64(s, offset + length - 16) * K0;
        return hash128to64(
                Long.rotateRight(a - b, 43) + Long.rotateRight(c, 30) + d,
                a + Long.rotateRight(b ^ K3, 20) - c + length);
    }

    private static long hashLen33to64(byte[] s, int offset, int length) {
        int end = offset + length;
        long z = fetch64(s, offset + 24);
        long a = fetch64(s, offset) + (length + fetch64(s, end - 16)) * K0;
        long b = Long.rotateRight(a + z, 52);
        long c = Long.rotateRight(a, 37);
        a += fetch64(s, offset + 8);
        c += Long.rotateRight(a, 7);
        a += fetch64(s, offset + 16);
        long vf = a + z;
        long vs = b + Long.rotateRight(a, 31) + c;
        a = fetch64(s, offset + 16) + fetch64(s, end - 32);
        z = fetch64(s, end - 8);
        b = Long.rotateRight(a + z, 52);
        c = Long.rotateRight(a, 37);
        a += fetch64(s, end - 24);
        c += Long.rotateRight(a, 7);
        a += fetch64(s, end - 16);
        long wf = a + z;
        long ws = b + Long.rotateRight(a, 31) + c;
        long r = shiftMix((vf + ws) * K2 + (wf + vs) * K0);
        return shiftMix(r * K0 + vs) * K2;
    }

    private static long shiftMix(long v) {
        return v ^ (v >>> 47);
    }

    static long fetch64(byte[] s, int i) {
        return (s[i] & 0xffL)
                | (s[i + 1] & 0xffL) << 8
                | (s[i + 2] & 0xffL) << 16
                | (s[i + 3] & 0xffL) << 24
                | (s[i + 4] & 0xffL) << 32
                | (s[i + 5] & 0xffL) << 40
                | (s[i + 6] & 0xffL) << 48
                | (s[i + 7] & 0xffL) << 56;
    }

    static long fetch32(byte[] s, int i) {
        return (s[i] & 0xffL) | (s[i + 1] & 0xffL) << 8 | (s[i + 2] & 0xffL) << 16 | (s[i + 3] & 0xffL) << 24;
    }
}
