package dev.etl.clickhouse;

import java.io.Serial;

/**
 * Startup validation refused a sink: the table's columns do not match the encoder, the table is
 * missing or Distributed, it does not deduplicate inserts while that is required, or no replica of a
 * shard could be reached. The message names the replica and the table and, for column mismatches,
 * holds a column-by-column diff.
 */
public final class ClickHouseSchemaException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    private final String replica;
    private final String table;

    public ClickHouseSchemaException(String replica, String table, String message, Throwable cause) {
        super(message, cause);
        this.replica = replica;
        this.table = table;
    }

    /** The replica that failed validation ({@code scheme://host:port}), or null when it concerns a whole shard. */
    public String replica() {
        return replica;
    }

    /** {@code database.table}. */
    public String table() {
        return table;
    }
}
