package dev.etl.clickhouse.sharding;

/**
 * ClickHouse's {@code intHash64} and the integer hashing behind {@code cityHash64} of an integer:
 * {@code intHash64(x ^ 0x4CF2D2BAAE6DA887)} where the inner {@code intHash64} is MurmurHash3's 64-bit
 * finalizer ({@link #mix}).
 *
 * <p>The two SQL functions differ in how a narrower integer becomes the 64-bit input, and only for
 * negative values of signed types:
 * <ul>
 * <li>{@code intHash64(x)} converts the <em>value</em> ({@code toInt32(-1)} becomes
 * {@code 0xFFFFFFFFFFFFFFFF}, sign-extended): {@link #ofValue};</li>
 * <li>{@code cityHash64(x)} copies the value's <em>bytes</em> into a zeroed UInt64
 * ({@code toInt32(-1)} becomes {@code 0x00000000FFFFFFFF}): {@link #ofBits} with the low bits only.</li>
 * </ul>
 * For UInt64 and Int64 columns both are the same function of the 64 bits.
 *
 * <p>Stateless and thread-safe; allocates nothing.
 */
final class IntHash64 {
    private static final long SALT = 0x4CF2D2BAAE6DA887L;

    private IntHash64() {}

    /**
     * {@code intHash64(x)} of an integer value, given as the value sign-extended (signed types) or
     * zero-extended (unsigned types) to 64 bits, which is what a Java {@code long} holding it is.
     */
    public static long ofValue(long value) {
        return mix(value ^ SALT);
    }

    /**
     * {@code cityHash64(x)} of one integer argument: the hash of its bits zero-extended to 64, e.g.
     * {@code ofBits(v & 0xFFFFFFFFL)} for an Int32 or UInt32 column. The same formula as
     * {@link #ofValue}; the caller decides the extension.
     */
    public static long ofBits(long zeroExtendedBits) {
        return mix(zeroExtendedBits ^ SALT);
    }

    /** ClickHouse's inner {@code intHash64} (MurmurHash3 fmix64), without the salt. */
    public static long mix(long x) {
        x ^= x >>> 33;
        x *= 0xff51afd7ed558ccdL;
        x ^= x >>> 33;
        x *= 0xc4ceb9fe1a85ec53L;
        x ^= x >>> 33;
        return x;
    }
}
