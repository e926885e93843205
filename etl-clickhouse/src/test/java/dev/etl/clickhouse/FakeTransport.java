package dev.etl.clickhouse;

import java.net.URI;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** Scripted replicas: per replica a queue of failures (empty queue = success); records every request. */
final class FakeTransport implements ClickHouseTransport {
    /** One insert: the replica, the insert as the raw HTTP transport's query string, the body length, a copy of the body. */
    record Request(String replica, String query, int length, ClickHouseInsert insert, byte[] body) {}

    final List<Request> inserts = new ArrayList<>();
    private final Map<String, Deque<ClickHouseRequestException>> failures = new HashMap<>();
    private final Map<String, ClickHouseRequestException> down = new HashMap<>();
    private final Map<String, Deque<Throwable>> throwables = new HashMap<>();
    Function<String, String> queries = sql -> "";
    /** What a successful insert reports as written ({@link ClickHouseTransport#WRITTEN_UNKNOWN}: as 18.16). */
    volatile long written = WRITTEN_UNKNOWN;

    void failNext(String replica, ClickHouseRequestException e) {
        failures.computeIfAbsent(replica, k -> new ArrayDeque<>()).add(e);
    }

    /** The next insert to {@code replica} throws {@code t} (an Error or a RuntimeException) instead of answering. */
    void throwNext(String replica, Throwable t) {
        if (!(t instanceof Error) && !(t instanceof RuntimeException)) {
            throw new IllegalArgumentException("unchecked throwables only: " + t);
        }
        throwables.computeIfAbsent(replica, k -> new ArrayDeque<>()).add(t);
    }

    void down(String replica) {
        down.put(replica, connectRefused());
    }

    void up(String replica) {
        down.remove(replica);
    }

    static ClickHouseRequestException connectRefused() {
        return new ClickHouseRequestException(
                ClickHouseRequestException.Kind.CONNECT, -1, -1, "java.net.ConnectException: Connection refused", null);
    }

    static ClickHouseRequestException http(int status, String body) {
        return new ClickHouseRequestException(
                ClickHouseRequestException.Kind.HTTP,
                status,
                ClickHouseHttpTransport.serverCode(null, body),
                body,
                null);
    }

    @Override
    public synchronized long insert(URI replica, ClickHouseInsert insert, byte[] body, int length)
            throws ClickHouseRequestException {
        String name = ClickHouseShardWriter.describe(replica);
        inserts.add(new Request(
                name,
                ClickHouseHttpTransport.queryString(insert),
                length,
                insert,
                java.util.Arrays.copyOf(body, length)));
        Deque<Throwable> thrown = throwables.get(name);
        if (thrown != null && !thrown.isEmpty()) {
            Throwable t = thrown.poll();
            if (t instanceof Error e) {
                throw e;
            }
            throw (RuntimeException) t;
        }
        ClickHouseRequestException d = down.get(name);
        if (d != null) {
            throw d;
        }
        Deque<ClickHouseRequestException> q = failures.get(name);
        if (q != null && !q.isEmpty()) {
            throw q.poll();
        }
        return written;
    }

    @Override
    public String query(URI replica, String sql) throws ClickHouseRequestException {
        ClickHouseRequestException d = down.get(ClickHouseShardWriter.describe(replica));
        if (d != null) {
            throw d;
        }
        return queries.apply(sql);
    }

    final java.util.concurrent.atomic.AtomicInteger closes = new java.util.concurrent.atomic.AtomicInteger();

    @Override
    public void close() {
        closes.incrementAndGet();
    }

    synchronized List<String> replicasUsed() {
        return inserts.stream().map(Request::replica).toList();
    }
}
