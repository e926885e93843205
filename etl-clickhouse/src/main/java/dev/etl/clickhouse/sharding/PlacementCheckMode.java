package dev.etl.clickhouse.sharding;

/** What a failed {@link DistributedPlacementCheck} does at startup. */
public enum PlacementCheckMode {
    /** Refuse to start: {@link ShardPlacementException} naming the table, expression and a mismatching key. */
    FAIL,
    /** Log the report at WARN and start. */
    WARN,
    /** Do not check. */
    OFF
}
