package dev.etl.clickhouse;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Adds columns to a sink's table on every replica, and returns once every replica shows them: the schema
 * change of a pipeline's auto-evolve. Never drops, renames or narrows a column.
 *
 * <p><b>Where the ALTER goes.</b> With a cluster, one {@code ALTER TABLE db.t ON CLUSTER c ADD COLUMN …} per
 * column, sent to the first replica that answers (the server's distributed DDL queue, in ZooKeeper, runs it
 * on every host of the cluster and answers when all did). Without one, the statement without {@code ON
 * CLUSTER} goes to each shard's first replica that answers: a {@code Replicated*} table replicates an ALTER
 * to the shard's other replicas itself. A Distributed table, when one is named, gets the same column the same
 * way; without a cluster on every replica, since a Distributed table is local to each server (a replica
 * without it answers "unknown table", which is skipped). {@code ADD COLUMN IF NOT EXISTS} is not used, since
 * ClickHouse 18.16 has not got it: a column that exists already is an error the server names (code 44) and
 * is taken as done, and the wait below checks its type.
 *
 * <p><b>The wait.</b> Then every replica of every shard is asked ({@code system.columns}, every 250 ms) until
 * each shows every column with its type, for at most {@code timeout}: only then may inserts name the columns
 * (an insert on a replica that lacks a column fails). A replica that shows the column with another type fails
 * the change at once.
 *
 * <p><b>Rights.</b> The user needs the ALTER right ({@code GRANT ALTER ADD COLUMN ON db.t TO user} on servers
 * with SQL access control; on 18.16 a profile with {@code readonly = 0}, which the sink needs anyway). Blocking;
 * call it off the lanes. Thread-safe (immutable).
 */
public final class ClickHouseTableAlter {
    /** ClickHouse's ILLEGAL_COLUMN: "Cannot add column c: column with this name already exists". */
    static final int ILLEGAL_COLUMN = 44;

    /** ClickHouse's UNKNOWN_TABLE. */
    static final int UNKNOWN_TABLE = 60;

    private static final long POLL_MS = 250;

    private final ClickHouseSinkConfig config;
    private final ClickHouseTransport transport;
    private final @Nullable String cluster;
    private final @Nullable String distributedTable;
    private final Duration timeout;

    /**
     * A column to add: its name and type, and the {@code DEFAULT} expression (SQL, as it follows the keyword)
     * that rows inserted without it get, or "" for none (the type's default).
     *
     * @param column            name and ClickHouse type
     * @param defaultExpression SQL of the {@code DEFAULT}, or ""
     */
    public record NewColumn(ClickHouseColumn column, String defaultExpression) {
        public NewColumn {
            Objects.requireNonNull(column, "column");
            Objects.requireNonNull(defaultExpression, "defaultExpression");
        }

        @Override
        public String toString() {
            return column + (defaultExpression.isEmpty() ? "" : " DEFAULT " + defaultExpression);
        }
    }

    /**
     * @param config           the sink's table, replicas, credentials and timeouts
     * @param transport        how statements are sent ({@link ClickHouseTransport#query})
     * @param cluster          the cluster for {@code ON CLUSTER}, or null for each shard's first replica
     * @param distributedTable a Distributed table over the sink's table in the same database, or null
     * @param timeout          how long the replicas may take to show the columns
     */
    public ClickHouseTableAlter(
            ClickHouseSinkConfig config,
            ClickHouseTransport transport,
            @Nullable String cluster,
            @Nullable String distributedTable,
            Duration timeout) {
        this.config = Objects.requireNonNull(config, "config");
        this.transport = Objects.requireNonNull(transport, "transport");
        this.cluster = (cluster == null || cluster.isBlank()) ? null : cluster;
        this.distributedTable = (distributedTable == null || distributedTable.isBlank()) ? null : distributedTable;
        this.timeout = Objects.requireNonNull(timeout, "timeout");
    }

    /** The statement that adds {@code column} to {@code table} (of the sink's database). */
    String statement(String table, NewColumn column) {
        StringBuilder sql = new StringBuilder("ALTER TABLE ")
                .append(ClickHouseInsert.quote(config.database()))
                .append('.')
                .append(ClickHouseInsert.quote(table));
        if (cluster != null) {
            sql.append(" ON CLUSTER ").append(ClickHouseInsert.quote(cluster));
        }
        sql.append(" ADD COLUMN ")
                .append(ClickHouseInsert.quote(column.column().name()))
                .append(' ')
                .append(column.column().type());
        if (!column.defaultExpression().isEmpty()) {
            sql.append(" DEFAULT ").append(column.defaultExpression());
        }
        return sql.toString();
    }

    /** Every statement {@link #add} sends, in order: the table's, then the Distributed table's. */
    public List<String> statements(List<NewColumn> columns) {
        List<String> all = new ArrayList<>();
        for (NewColumn c : columns) {
            all.add(statement(config.table(), c));
        }
        if (distributedTable != null) {
            for (NewColumn c : columns) {
                all.add(statement(distributedTable, c));
            }
        }
        return all;
    }

    /**
     * Adds {@code columns} (in order, at the table's end) and waits until every replica shows them.
     *
     * @throws ClickHouseAlterException naming the statement, the replica and the server's message when a
     *                                  statement fails, no replica of a shard answers, or the wait times out
     */
    public void add(List<NewColumn> columns) {
        if (columns.isEmpty()) {
            return;
        }
        for (NewColumn c : columns) {
            String sql = statement(config.table(), c);
            if (cluster != null) {
                runOnAny(sql, false);
            } else {
                for (List<URI> shard : config.shards()) {
                    runOnFirst(shard, sql, false);
                }
            }
        }
        if (distributedTable != null) {
            for (NewColumn c : columns) {
                String sql = statement(distributedTable, c);
                if (cluster != null) {
                    runOnAny(sql, true);
                } else {
                    for (List<URI> shard : config.shards()) {
                        for (URI replica : shard) {
                            runOn(replica, sql, true);
                        }
                    }
                }
            }
        }
        awaitColumns(columns);
    }

    private void runOnAny(String sql, boolean distributed) {
        List<URI> all = new ArrayList<>();
        config.shards().forEach(all::addAll);
        runOnFirst(all, sql, distributed);
    }

    /** Runs {@code sql} on the first of {@code replicas} that answers. */
    private void runOnFirst(List<URI> replicas, String sql, boolean distributed) {
        ClickHouseRequestException last = null;
        for (URI replica : replicas) {
            try {
                send(replica, sql, distributed);
                return;
            } catch (ClickHouseRequestException e) {
                if (e.kind() == ClickHouseRequestException.Kind.HTTP) {
                    throw failed(sql, replica, e);
                }
                last = e; // unreachable: the next replica
            }
        }
        throw new ClickHouseAlterException(
                sql,
                null,
                "no replica of " + replicas + " answered " + sql + (last != null ? ": " + last.getMessage() : ""),
                last);
    }

    private void runOn(URI replica, String sql, boolean distributed) {
        try {
            send(replica, sql, distributed);
        } catch (ClickHouseRequestException e) {
            throw failed(sql, replica, e);
        }
    }

    private void send(URI replica, String sql, boolean distributed) throws ClickHouseRequestException {
        try {
            transport.query(replica, sql);
        } catch (ClickHouseRequestException e) {
            if (e.kind() == ClickHouseRequestException.Kind.HTTP && exists(e)) {
                return; // added before (another instance, an earlier attempt): the wait checks its type
            }
            if (distributed
                    && e.kind() == ClickHouseRequestException.Kind.HTTP
                    && e.serverCode() == UNKNOWN_TABLE
                    && cluster == null) {
                return; // this server has no Distributed table
            }
            throw e;
        }
    }

    private static boolean exists(ClickHouseRequestException e) {
        return e.serverCode() == ILLEGAL_COLUMN && e.serverText().contains("already exists")
                || e.serverText().contains("Code: 44") && e.serverText().contains("already exists");
    }

    private ClickHouseAlterException failed(String sql, URI replica, ClickHouseRequestException e) {
        return new ClickHouseAlterException(
                sql,
                label(replica),
                "ALTER of " + config.qualifiedTable() + " failed on " + label(replica) + ": " + sql + " → "
                        + e.getMessage(),
                e);
    }

    /** Waits until every replica shows every column with its type. */
    private void awaitColumns(List<NewColumn> columns) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<URI, String> missing = new LinkedHashMap<>();
        while (true) {
            missing.clear();
            for (List<URI> shard : config.shards()) {
                for (URI replica : shard) {
                    String lacks = lacks(replica, columns);
                    if (lacks != null) {
                        missing.put(replica, lacks);
                    }
                }
            }
            if (missing.isEmpty()) {
                return;
            }
            if (System.nanoTime() - deadline >= 0) {
                StringBuilder m = new StringBuilder("after ")
                        .append(timeout.toMillis())
                        .append(" ms not every replica of ")
                        .append(config.qualifiedTable())
                        .append(" shows the new columns ")
                        .append(columns)
                        .append(':');
                missing.forEach((r, why) ->
                        m.append(' ').append(label(r)).append(": ").append(why).append(';'));
                throw new ClickHouseAlterException(statement(config.table(), columns.get(0)), null, m.toString(), null);
            }
            try {
                Thread.sleep(POLL_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ClickHouseAlterException(
                        statement(config.table(), columns.get(0)), null, "interrupted waiting for the replicas", e);
            }
        }
    }

    /** What {@code replica} lacks of {@code columns}, or null when it has them all. */
    private @Nullable String lacks(URI replica, List<NewColumn> columns) {
        ClickHouseTableSchema table;
        try {
            table = ClickHouseTableSchema.fetch(transport, replica, config.database(), config.table());
        } catch (ClickHouseRequestException e) {
            return "unreachable (" + e.getMessage() + ")";
        }
        if (table == null) {
            return "no table";
        }
        List<String> lacking = new ArrayList<>();
        for (NewColumn c : columns) {
            ClickHouseColumn actual = table.column(c.column().name());
            if (actual == null) {
                lacking.add(c.column().name());
            } else if (!sameType(actual.type(), c.column().type())) {
                throw new ClickHouseAlterException(
                        statement(config.table(), c),
                        label(replica),
                        "column " + c.column().name() + " of " + config.qualifiedTable() + " on "
                                + label(replica) + " has type " + actual.type() + ", not "
                                + c.column().type() + ": a column of that name existed before; it is not changed",
                        null);
            }
        }
        return lacking.isEmpty() ? null : "lacks " + lacking;
    }

    /** A replica for messages: scheme, host and port, never user info. */
    private static String label(URI uri) {
        return uri.getScheme() + "://" + uri.getHost() + (uri.getPort() >= 0 ? ":" + uri.getPort() : "");
    }

    /** Types as the server spells them back (it may drop or add spaces, quote enum names alike). */
    static boolean sameType(String actual, String expected) {
        return actual.replace(" ", "").equals(expected.replace(" ", ""));
    }
}
