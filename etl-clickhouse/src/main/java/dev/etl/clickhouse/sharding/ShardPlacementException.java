package dev.etl.clickhouse.sharding;

import java.io.Serial;

/**
 * The pipeline's shard placement does not match the Distributed table's (a {@link PlacementCheckMode#FAIL}
 * check failed): rows written to the shard-local tables would not be where the Distributed table's
 * sharding key puts them. The message names the table, its cluster and sharding expression, the
 * pipeline's router, and the first mismatching keys with both shards; {@link #report()} has it all.
 */
public final class ShardPlacementException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    private final transient PlacementReport report;

    public ShardPlacementException(PlacementReport report) {
        super(report.message());
        this.report = report;
    }

    /** The failed check's report (not serialized). */
    public PlacementReport report() {
        return report;
    }
}
