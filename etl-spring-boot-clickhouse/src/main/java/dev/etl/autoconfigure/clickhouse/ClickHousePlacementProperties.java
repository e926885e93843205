package dev.etl.autoconfigure.clickhouse;

import dev.etl.clickhouse.sharding.PlacementCheck;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Shard placement that matches a Distributed table ({@code etl.sink.clickhouse.placement.*}): the
 * sharding expression the pipeline's router computes, the Distributed table whose sharding key it must
 * reproduce, and what the startup check does when they disagree. Setting {@code distributed-table}
 * defines a {@code DistributedPlacement} bean to route with
 * ({@code DistributedRouter.byLong(placement, Row::id)}) and turns the check on.
 */
public class ClickHousePlacementProperties {

    /**
     * Distributed table in front of the shard-local table, whose sharding key the pipeline's router
     * must reproduce. Setting it turns the placement check on.
     */
    private String distributedTable;

    /**
     * Database of the Distributed table. Defaults to the sink's database.
     */
    private String database;

    /**
     * Sharding expression the pipeline's router computes, as the Distributed table declares it:
     * cityHash64(col), murmurHash3_64(col), intHash64(col) or a raw integer col. Required with
     * "distributed-table".
     */
    private String shardingKey;

    /**
     * ClickHouse type of the sharding key's column, e.g. UInt64 or String. Defaults to that column's
     * type in the sink's RowBinaryEncoder.
     */
    private String keyType;

    /**
     * Shard weights in cluster order (shard_num 1, 2, ...), as the cluster's remote_servers declare
     * them. Defaults to 1 per shard.
     */
    private List<Integer> weights = new ArrayList<>();

    /**
     * What a mismatch does when the sink starts: FAIL refuses to start, WARN logs the report, OFF skips
     * the startup check (the etlplacement Actuator endpoint still runs it on demand).
     */
    private Mode mode = Mode.FAIL;

    /**
     * Sample keys the check compares (the server evaluates the table's expression over them: two small
     * queries per 500 keys).
     */
    private int sampleSize = PlacementCheck.DEFAULT_SAMPLE_SIZE;

    /**
     * Seed of the generated sample keys.
     */
    private long seed = PlacementCheck.DEFAULT_SEED;

    public @Nullable String getDistributedTable() {
        return this.distributedTable;
    }

    public void setDistributedTable(@Nullable String distributedTable) {
        this.distributedTable = distributedTable;
    }

    public @Nullable String getDatabase() {
        return this.database;
    }

    public void setDatabase(@Nullable String database) {
        this.database = database;
    }

    public @Nullable String getShardingKey() {
        return this.shardingKey;
    }

    public void setShardingKey(@Nullable String shardingKey) {
        this.shardingKey = shardingKey;
    }

    public @Nullable String getKeyType() {
        return this.keyType;
    }

    public void setKeyType(@Nullable String keyType) {
        this.keyType = keyType;
    }

    public List<Integer> getWeights() {
        return this.weights;
    }

    public void setWeights(List<Integer> weights) {
        this.weights = weights;
    }

    public Mode getMode() {
        return this.mode;
    }

    public void setMode(Mode mode) {
        this.mode = mode;
    }

    public int getSampleSize() {
        return this.sampleSize;
    }

    public void setSampleSize(int sampleSize) {
        this.sampleSize = sampleSize;
    }

    public long getSeed() {
        return this.seed;
    }

    public void setSeed(long seed) {
        this.seed = seed;
    }

    /** Whether a Distributed table is configured (the placement and its check are on). */
    boolean isConfigured() {
        return this.distributedTable != null && !this.distributedTable.isBlank();
    }

    /** What a placement mismatch does at startup. */
    public enum Mode {

        /** Refuse to start (ShardPlacementException naming the table, the expression and a mismatching key). */
        FAIL,

        /** Log the report at WARN and start. */
        WARN,

        /** No check at startup. */
        OFF
    }
}
