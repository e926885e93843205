package dev.etl.sink;

import dev.etl.record.RecordMeta;
import java.util.Arrays;
import java.util.function.ToLongFunction;

/**
 * Routes by a stable hash: by default the source record's key hash ({@link RecordMeta#keyHash()}),
 * or a 64-bit key extracted from the value. Optional integer weights give shards proportional
 * shares of the hash space (weights {@code [1, 2]} send a third of keys to shard 0).
 *
 * <p>The mapping is a fixed function of the key and the weights, so the same key goes to the same
 * shard across processes and restarts.
 */
public final class KeyHashRouter<T> implements Router<T> {
    private final ToLongFunction<? super T> keyExtractor;
    private final int[] cumulativeWeights;
    private final int totalWeight;

    private KeyHashRouter(ToLongFunction<? super T> keyExtractor, int[] weights) {
        this.keyExtractor = keyExtractor;
        if (weights == null) {
            this.cumulativeWeights = null;
            this.totalWeight = 0;
        } else {
            this.cumulativeWeights = new int[weights.length];
            int sum = 0;
            for (int i = 0; i < weights.length; i++) {
                if (weights[i] < 0) {
                    throw new IllegalArgumentException(
                            "shard weight must be >= 0, got " + weights[i] + " for shard " + i);
                }
                sum += weights[i];
                cumulativeWeights[i] = sum;
            }
            if (sum <= 0) {
                throw new IllegalArgumentException("shard weights must not all be zero: " + Arrays.toString(weights));
            }
            this.totalWeight = sum;
        }
    }

    /** Routes on the source record's key hash; records without a key all go to one shard. */
    public static <T> KeyHashRouter<T> byRecordKey() {
        return new KeyHashRouter<>(null, null);
    }

    /** Routes on a 64-bit key taken from the value (e.g. an order id). */
    public static <T> KeyHashRouter<T> byKey(ToLongFunction<? super T> keyExtractor) {
        return new KeyHashRouter<>(keyExtractor, null);
    }

    /** The same router with per-shard weights (one per shard, in shard order). */
    public KeyHashRouter<T> withWeights(int... weights) {
        return new KeyHashRouter<>(keyExtractor, weights.clone());
    }

    /**
     * {@code key-hash(record-key)} or {@code key-hash(value-key)}, with {@code weights=[…]} when weighted: the
     * extractor function itself cannot be named stably, so change the weights or override nothing; a changed
     * extractor is a change of routing the token does not see (see {@link Router#topology()}).
     */
    @Override
    public String topology() {
        StringBuilder s = new StringBuilder("key-hash(").append(keyExtractor == null ? "record-key" : "value-key");
        if (cumulativeWeights != null) {
            s.append(", weights=[");
            int previous = 0;
            for (int i = 0; i < cumulativeWeights.length; i++) {
                s.append(i == 0 ? "" : ",").append(cumulativeWeights[i] - previous);
                previous = cumulativeWeights[i];
            }
            s.append(']');
        }
        return s.append(')').toString();
    }

    @Override
    public int shard(T value, RecordMeta meta, int shardCount) {
        long h = keyExtractor == null ? meta.keyHash() : keyExtractor.applyAsLong(value);
        long mixed = mix64(h);
        if (cumulativeWeights == null) {
            return (int) Long.remainderUnsigned(mixed, shardCount);
        }
        if (cumulativeWeights.length != shardCount) {
            throw new IllegalStateException(
                    "router has " + cumulativeWeights.length + " weights but the sink has " + shardCount + " shards");
        }
        int point = (int) Long.remainderUnsigned(mixed, totalWeight);
        for (int i = 0; i < cumulativeWeights.length; i++) {
            if (point < cumulativeWeights[i]) {
                return i;
            }
        }
        return cumulativeWeights.length - 1;
    }

    /** SplitMix64 finalizer: spreads sequential ids and 32-bit hashes over the 64-bit space. */
    static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
