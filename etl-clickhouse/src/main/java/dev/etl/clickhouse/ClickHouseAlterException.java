package dev.etl.clickhouse;

import java.io.Serial;
import org.jspecify.annotations.Nullable;

/**
 * A schema change of {@link ClickHouseTableAlter} did not complete: the statement failed on a replica (no
 * ALTER right, a syntax the server lacks, a column of that name with another type), no replica of a shard
 * answered, or the replicas did not all show the new columns in time. The message names the statement, the
 * replica and the server's own text; never the credentials.
 */
public final class ClickHouseAlterException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    private final String statement;
    private final String replica;

    public ClickHouseAlterException(
            String statement, @Nullable String replica, String message, @Nullable Throwable cause) {
        super(message, cause);
        this.statement = statement;
        this.replica = replica;
    }

    /** The statement that failed, or the one whose result was waited for. */
    public String statement() {
        return statement;
    }

    /** The replica that failed ({@code scheme://host:port}), or null when it concerns several. */
    public @Nullable String replica() {
        return replica;
    }
}
