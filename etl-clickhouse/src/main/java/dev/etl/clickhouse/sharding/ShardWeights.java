package dev.etl.clickhouse.sharding;

import dev.etl.clickhouse.ClickHouseRequestException;
import dev.etl.clickhouse.ClickHouseTransport;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The shards of a ClickHouse cluster with their weights, in cluster order ({@code shard_num} 1, 2, …
 * is index 0, 1, …), and Distributed's slot mapping: the sharding key's value, taken as unsigned,
 * modulo the total weight gives a slot; slots {@code [0, w0)} belong to the first shard,
 * {@code [w0, w0 + w1)} to the second, and so on (ClickHouse's {@code slot_to_shard}). A shard of
 * weight 0 gets no rows.
 *
 * <p>Immutable and thread-safe; {@link #shardOf} allocates nothing.
 */
public final class ShardWeights {
    private final int[] weights;
    /** {@code ends[i]}: one past the last slot of shard i. */
    private final long[] ends;

    private final long total;

    private ShardWeights(int[] weights) {
        if (weights.length == 0) {
            throw new IllegalArgumentException("a cluster needs at least one shard");
        }
        this.weights = weights;
        this.ends = new long[weights.length];
        long sum = 0;
        for (int i = 0; i < weights.length; i++) {
            if (weights[i] < 0) {
                throw new IllegalArgumentException("shard weight must be >= 0, got " + weights[i] + " for shard " + i);
            }
            sum += weights[i];
            ends[i] = sum;
        }
        if (sum == 0) {
            throw new IllegalArgumentException("shard weights must not all be zero: " + Arrays.toString(weights));
        }
        this.total = sum;
    }

    /** Shards with these weights, in cluster order. */
    public static ShardWeights of(int... weights) {
        return new ShardWeights(weights.clone());
    }

    /** {@code shards} shards of weight 1 (ClickHouse's default weight). */
    public static ShardWeights uniform(int shards) {
        int[] w = new int[shards];
        Arrays.fill(w, 1);
        return new ShardWeights(w);
    }

    /**
     * The weights of {@code cluster} as {@code system.clusters} on {@code replica} reports them
     * ({@code shard_num}, {@code shard_weight}).
     *
     * @throws IllegalArgumentException   when the server has no such cluster
     * @throws ClickHouseRequestException when the query fails
     */
    public static ShardWeights read(ClickHouseTransport transport, URI replica, String cluster)
            throws ClickHouseRequestException {
        String body = transport.query(
                replica,
                "SELECT shard_num, any(shard_weight) FROM system.clusters WHERE cluster = " + Sql.literal(cluster)
                        + " GROUP BY shard_num ORDER BY shard_num FORMAT TabSeparated");
        List<Integer> weights = new ArrayList<>();
        for (String line : body.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.split("\t");
            int shardNum = Integer.parseInt(f[0].strip());
            if (shardNum != weights.size() + 1) {
                throw new IllegalStateException("cluster " + cluster + " on " + replica + " lists shard_num " + shardNum
                        + " where " + (weights.size() + 1) + " was expected");
            }
            weights.add(Integer.parseInt(f[1].strip()));
        }
        if (weights.isEmpty()) {
            throw new IllegalArgumentException(
                    "ClickHouse " + replica + " has no cluster '" + cluster + "' in system.clusters");
        }
        return new ShardWeights(weights.stream().mapToInt(Integer::intValue).toArray());
    }

    /** Number of shards. */
    public int count() {
        return weights.length;
    }

    /** Sum of the weights: the modulus. */
    public long total() {
        return total;
    }

    /** The weight of shard {@code index} (0-based). */
    public int weight(int index) {
        return weights[index];
    }

    /** The weights, in cluster order (a copy). */
    public int[] weights() {
        return weights.clone();
    }

    /** The slot of an unsigned sharding-key value: {@code value % total}, unsigned. */
    public long slotOf(long unsignedValue) {
        return Long.remainderUnsigned(unsignedValue, total);
    }

    /** The shard index (0-based) of an unsigned sharding-key value. */
    public int shardOf(long unsignedValue) {
        return shardOfSlot(slotOf(unsignedValue));
    }

    /** The shard index (0-based) owning {@code slot} in {@code [0, total)}. */
    public int shardOfSlot(long slot) {
        // first shard whose end is past the slot; zero-weight shards have end == previous end
        int lo = 0;
        int hi = ends.length - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (ends[mid] > slot) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof ShardWeights other && Arrays.equals(weights, other.weights);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(weights);
    }

    @Override
    public String toString() {
        return Arrays.toString(weights);
    }
}
