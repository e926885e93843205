package dev.etl.autoconfigure.clickhouse;

import dev.etl.autoconfigure.InvalidEtlConfigurationException;
import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.sharding.DistributedPlacement;
import dev.etl.clickhouse.sharding.PlacementCheck;
import dev.etl.clickhouse.sharding.PlacementCheckMode;
import dev.etl.clickhouse.sharding.ShardWeights;
import dev.etl.clickhouse.sharding.ShardingKey;
import java.util.List;

/**
 * {@code placement.*} properties to the connector's {@link DistributedPlacement} and {@link PlacementCheck}.
 * Errors name the property under {@code prefix} (e.g. {@code etl.sink.clickhouse.placement}).
 */
final class ClickHousePlacementMapping {

    private ClickHousePlacementMapping() {}

    /**
     * The placement the properties declare: the sharding key (its column's type from {@code key-type}, else
     * from the sink encoder's {@code columns}) over the configured weights, or one weight per shard.
     *
     * @throws InvalidEtlConfigurationException naming the property that does not make a placement
     */
    static DistributedPlacement placement(
            ClickHousePlacementProperties placement, String prefix, int shards, List<ClickHouseColumn> columns) {
        ShardingKey key = shardingKey(placement, prefix, columns);
        return new DistributedPlacement(key, weights(placement, prefix, shards));
    }

    /** The startup check of {@code placement} against the configured Distributed table. */
    static PlacementCheck check(
            ClickHousePlacementProperties properties, String sinkDatabase, DistributedPlacement placement) {
        String database =
                (properties.getDatabase() != null && !properties.getDatabase().isBlank())
                        ? properties.getDatabase()
                        : sinkDatabase;
        return new PlacementCheck(
                database,
                properties.getDistributedTable(),
                placement,
                PlacementCheckMode.valueOf(properties.getMode().name()),
                properties.getSampleSize(),
                properties.getSeed());
    }

    private static ShardingKey shardingKey(
            ClickHousePlacementProperties placement, String prefix, List<ClickHouseColumn> columns) {
        String expression = placement.getShardingKey();
        if (expression == null || expression.isBlank()) {
            throw new InvalidEtlConfigurationException(
                    prefix + ".sharding-key is not set, but " + prefix + ".distributed-table is ("
                            + placement.getDistributedTable() + ")",
                    "Set " + prefix + ".sharding-key to the sharding expression of the Distributed table that "
                            + "the pipeline's DistributedRouter computes, e.g. cityHash64(order_id).");
        }
        try {
            return ShardingKey.parse(expression, (column) -> columnType(placement, prefix, column, columns));
        } catch (IllegalArgumentException ex) {
            throw new InvalidEtlConfigurationException(
                    prefix + ".sharding-key (" + expression + ") is not a " + "placement the router reproduces: "
                            + ex.getMessage(),
                    "Use cityHash64(col), murmurHash3_64(col), intHash64(col) or a raw integer col over a "
                            + "UInt8-64, Int8-64, Date, DateTime, Enum or String column; for any other sharding key "
                            + "keep KeyHashRouter and remove " + prefix + ".");
        }
    }

    private static String columnType(
            ClickHousePlacementProperties placement, String prefix, String column, List<ClickHouseColumn> columns) {
        if (placement.getKeyType() != null && !placement.getKeyType().isBlank()) {
            return placement.getKeyType();
        }
        for (ClickHouseColumn candidate : columns) {
            if (candidate.name().equals(column)) {
                return candidate.type();
            }
        }
        throw new InvalidEtlConfigurationException(
                prefix + ".sharding-key (" + placement.getShardingKey()
                        + ") is over column '" + column + "', which the sink's RowBinaryEncoder does not write "
                        + (columns.isEmpty() ? "(the sink has no encoder bean)" : "(columns: " + columns + ")"),
                "Set " + prefix + ".key-type to the column's ClickHouse type (e.g. UInt64), or correct the "
                        + "column name.");
    }

    private static ShardWeights weights(ClickHousePlacementProperties placement, String prefix, int shards) {
        List<Integer> weights = placement.getWeights();
        if (weights.isEmpty()) {
            return ShardWeights.uniform(shards);
        }
        if (weights.size() != shards) {
            throw new InvalidEtlConfigurationException(
                    prefix + ".weights lists " + weights.size() + " weights " + weights + " but the sink has " + shards
                            + " shards",
                    "List one weight per shard, in the cluster's shard_num order (or remove " + prefix
                            + ".weights for one per shard).");
        }
        try {
            return ShardWeights.of(weights.stream().mapToInt(Integer::intValue).toArray());
        } catch (IllegalArgumentException ex) {
            throw new InvalidEtlConfigurationException(
                    prefix + ".weights " + weights + ": " + ex.getMessage(),
                    "Give every shard a weight >= 0, at least one of them > 0.");
        }
    }
}
