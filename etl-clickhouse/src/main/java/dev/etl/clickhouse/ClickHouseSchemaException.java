package dev.etl.clickhouse;

import java.io.Serial;
import org.jspecify.annotations.Nullable;

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

    public ClickHouseSchemaException(
            @Nullable String replica, String table, String message, @Nullable Throwable cause) {
        super(message, cause);
        this.replica = replica;
        this.table = table;
    }

    /** The replica that failed validation ({@code scheme://host:port}), or null when it concerns a whole shard. */
    public @Nullable String replica() {
        return replica;
    }

    /** {@code database.table}. */
    public String table() {
        return table;
    }
}
