package dev.etl.clickhouse;

import java.net.URI;

/**
 * The exchange with one replica, separated from the writer so that replica rotation, breakers and
 * classification are testable without a server. Two real ones: {@code ClickHouseClientV2Transport}
 * (inserts through client-v2, the default) and {@link ClickHouseHttpTransport} (raw
 * {@code java.net.http}; reads always go through it, see {@link ClickHouseSinkConfig.Transport}).
 *
 * <p>Whatever the stack, a failure is reported as a {@link ClickHouseRequestException} carrying the
 * same classification inputs: kind (connect / timeout / IO / server answer), HTTP status, ClickHouse
 * error code and the server's own error text ({@code ClickHouseErrors} decides transient vs permanent).
 *
 * <p>Thread-safe.
 */
public interface ClickHouseTransport extends AutoCloseable {
    /** {@link #insert}'s answer when the server does not report the rows it wrote (18.16 does not). */
    long WRITTEN_UNKNOWN = -1;

    /**
     * Sends {@code body[0, length)} (in {@code insert.format()}: RowBinary rows or a Native block) to
     * {@code replica} as {@code insert.statement()}
     * with every setting of {@code insert}, and returns only when the server answered success
     * (with {@code wait_end_of_query=1}: when the data is written).
     *
     * @return the rows the server reports written ({@code written_rows} of its {@code X-ClickHouse-Summary}
     *         header: 0 for a non-empty insert it dropped as a duplicate block), or {@link #WRITTEN_UNKNOWN}
     * @throws ClickHouseRequestException on any failure, with what is known about it
     */
    long insert(URI replica, ClickHouseInsert insert, byte[] body, int length) throws ClickHouseRequestException;

    /** Runs a read-only statement and returns the body (use an explicit {@code FORMAT}). */
    String query(URI replica, String sql) throws ClickHouseRequestException;

    /** Releases connections and clients; idempotent. */
    @Override
    default void close() {}
}
