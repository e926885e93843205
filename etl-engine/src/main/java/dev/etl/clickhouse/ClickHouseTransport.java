package dev.etl.clickhouse;

import java.net.URI;

/**
 * The HTTP exchange with one replica, separated from the writer so that replica rotation, breakers
 * and classification are testable without a server. {@link ClickHouseHttpTransport} is the real one.
 *
 * <p>Thread-safe.
 */
public interface ClickHouseTransport extends AutoCloseable {
    /**
     * POSTs {@code body[0, length)} to {@code replica} with the URL query string {@code queryString}
     * (already encoded) and returns when the server answered 200.
     *
     * @throws ClickHouseRequestException on any failure, with what is known about it
     */
    void insert(URI replica, String queryString, byte[] body, int length) throws ClickHouseRequestException;

    /** Runs a read-only statement and returns the body (use an explicit {@code FORMAT}). */
    String query(URI replica, String sql) throws ClickHouseRequestException;

    @Override
    default void close() {
    }
}
