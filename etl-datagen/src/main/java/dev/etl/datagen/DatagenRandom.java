package dev.etl.datagen;

/**
 * The random numbers of one generated record: SplitMix64, re-seeded for every record from
 * {@code (seed, partition, sequence)}. So a record's content depends only on those three, never on how
 * many lanes there are, how polls split the partition, or what was generated before: the same seed
 * gives the same records, run after run (and a replay of a partition regenerates the same bytes).
 *
 * <p>One instance per lane, reused for every record (no allocation); not thread-safe. Not a
 * cryptographic generator.
 */
public final class DatagenRandom {
    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

    private long state;

    DatagenRandom() {}

    /** Positions this generator at the start of record {@code sequence} of {@code partition}. */
    void reset(long seed, int partition, long sequence) {
        long s = mix64(seed ^ 0x5DEECE66DL);
        s = mix64(s + (partition + 1L) * GOLDEN_GAMMA);
        state = mix64(s ^ sequence * 0xC2B2AE3D27D4EB4FL);
    }

    /** A generator positioned at record {@code sequence} of {@code partition} for {@code seed} (tests, tools). */
    public static DatagenRandom of(long seed, int partition, long sequence) {
        DatagenRandom random = new DatagenRandom();
        random.reset(seed, partition, sequence);
        return random;
    }

    private static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** A uniformly distributed {@code long}. */
    public long nextLong() {
        return mix64(state += GOLDEN_GAMMA);
    }

    /** A uniformly distributed {@code int}. */
    public int nextInt() {
        return (int) (nextLong() >>> 32);
    }

    /** Uniform in {@code [0, bound)}. */
    public int nextInt(int bound) {
        if (bound <= 0) {
            throw new IllegalArgumentException("bound must be > 0: " + bound);
        }
        return (int) nextLong(bound);
    }

    /** Uniform in {@code [origin, bound)}. */
    public int nextInt(int origin, int bound) {
        if (origin >= bound) {
            throw new IllegalArgumentException("origin " + origin + " must be < bound " + bound);
        }
        return (int) (origin + nextLong((long) bound - origin));
    }

    /** Uniform in {@code [0, bound)}. */
    public long nextLong(long bound) {
        if (bound <= 0) {
            throw new IllegalArgumentException("bound must be > 0: " + bound);
        }
        long m = bound - 1;
        long r = nextLong();
        if ((bound & m) == 0L) {
            return r & m;
        }
        // rejection sampling, as java.util.SplittableRandom: unbiased
        for (long u = r >>> 1; u + m - (r = u % bound) < 0L; u = nextLong() >>> 1) {
            // retry
        }
        return r;
    }

    /** Uniform in {@code [origin, bound)}, for any range (also wider than {@code Long.MAX_VALUE}). */
    public long nextLong(long origin, long bound) {
        if (origin >= bound) {
            throw new IllegalArgumentException("origin " + origin + " must be < bound " + bound);
        }
        long n = bound - origin;
        if (n > 0) {
            return origin + nextLong(n);
        }
        long r;
        do {
            r = nextLong();
        } while (r < origin || r >= bound);
        return r;
    }

    /** Uniform in {@code [0, 1)}. */
    public double nextDouble() {
        return (nextLong() >>> 11) * 0x1.0p-53;
    }

    /** Uniform in {@code [origin, bound)}. */
    public double nextDouble(double origin, double bound) {
        double r = origin + nextDouble() * (bound - origin);
        return r < bound ? r : Math.nextDown(bound);
    }

    /** Uniform in {@code [0, 1)}. */
    public float nextFloat() {
        return (nextLong() >>> 40) * 0x1.0p-24f;
    }

    public boolean nextBoolean() {
        return nextLong() < 0;
    }

    /** True with probability {@code p}. */
    public boolean nextBoolean(double p) {
        return nextDouble() < p;
    }
}
