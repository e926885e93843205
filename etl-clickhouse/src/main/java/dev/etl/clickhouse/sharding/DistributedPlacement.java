package dev.etl.clickhouse.sharding;

import dev.etl.clickhouse.ClickHouseRequestException;
import dev.etl.clickhouse.ClickHouseTransport;
import java.net.URI;
import java.util.Objects;

/**
 * Where a Distributed table puts a key: its sharding expression's value, as unsigned, modulo the
 * cluster's total shard weight, mapped to a shard through the weights in cluster order
 * ({@link ShardWeights}). Shard indices are 0-based: index {@code i} is the cluster's
 * {@code shard_num i + 1}, and must be the sink's shard {@code i}.
 *
 * <p>Immutable and thread-safe. {@link #shardOf(long)} and {@link #shardOf(byte[], int, int)}
 * allocate nothing; {@link #shardOf(CharSequence)} reuses a per-thread scratch array.
 *
 * @param key     the sharding expression
 * @param weights the cluster's shards and weights
 */
public record DistributedPlacement(ShardingKey key, ShardWeights weights) {

    public DistributedPlacement {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(weights, "weights");
    }

    /**
     * The placement of an existing Distributed table: its sharding expression (from
     * {@code system.tables.engine_full}, which must be one of the {@link ShardingKey} forms) and its
     * cluster's weights from {@code system.clusters}, both read on {@code replica}. Blocking; call at
     * startup.
     *
     * @throws IllegalArgumentException   when the table is not Distributed, has no sharding key, or its
     *                                    expression is not one this class reproduces
     * @throws ClickHouseRequestException when a query fails
     */
    public static DistributedPlacement read(ClickHouseTransport transport, URI replica, String database, String table)
            throws ClickHouseRequestException {
        DistributedTable distributed = DistributedTable.read(transport, replica, database, table);
        return new DistributedPlacement(
                distributed.shardingKey(), ShardWeights.read(transport, replica, distributed.cluster()));
    }

    /** Number of shards. */
    public int shardCount() {
        return weights.count();
    }

    /** The shard of an integer key (the value the encoder writes to the key column). */
    public int shardOf(long keyValue) {
        return weights.shardOf(key.valueOf(keyValue));
    }

    /** The shard of a String key given as its stored bytes. */
    public int shardOf(byte[] bytes, int offset, int length) {
        return weights.shardOf(key.valueOf(bytes, offset, length));
    }

    /** The shard of a String key (hashed as its UTF-8 bytes). */
    public int shardOf(CharSequence text) {
        return weights.shardOf(key.valueOf(text));
    }

    /** E.g. {@code cityHash64(order_id) [order_id UInt64] % 2 over weights [1, 1]}. */
    @Override
    public String toString() {
        return key + " % " + weights.total() + " over weights " + weights;
    }
}
