package dev.etl.test.infra;

import java.util.Locale;
import java.util.UUID;

/**
 * A database named {@code t_<hint>_<random>} created {@code ON CLUSTER} on every ClickHouse
 * instance, so each test class starts from nothing and never sees another run's tables.
 *
 * <p>Under {@link LocalInfra}, declare a parameter of this type: the extension creates the database
 * before first use and drops it ({@code DROP DATABASE … ON CLUSTER}) after the test class. Created
 * directly with {@link #create}, the caller closes it.
 *
 * <p>Replicated tables in it should use a ZooKeeper path that contains the database name, e.g.
 * {@code ReplicatedMergeTree('/clickhouse/tables/{shard}/' || name() || '/orders', '{replica}')},
 * so that paths never collide across runs.
 *
 * <p>Thread-safe; statements go through {@link ClickHouseHttp}.
 */
public final class ClickHouseTestDatabase implements AutoCloseable {

    private static final int MAX_HINT_LENGTH = 40;

    private final InfraEndpoints endpoints;
    private final String name;

    private ClickHouseTestDatabase(InfraEndpoints endpoints, String name) {
        this.endpoints = endpoints;
        this.name = name;
    }

    /**
     * Creates a fresh database on every instance of the cluster.
     * @param endpoints where ClickHouse listens
     * @param hint readable part of the name, typically the test class's simple name; lower-cased,
     * characters other than {@code [a-z0-9_]} become {@code _}, cut to 40 characters
     * @return the database; close it to drop it
     * @throws ClickHouseHttpException if the {@code CREATE DATABASE … ON CLUSTER} fails
     */
    public static ClickHouseTestDatabase create(InfraEndpoints endpoints, String hint) {
        String name = uniqueName(hint);
        ClickHouseTestDatabase database = new ClickHouseTestDatabase(endpoints, name);
        database.execute("CREATE DATABASE " + name + " ON CLUSTER " + endpoints.clickhouseCluster());
        return database;
    }

    static String uniqueName(String hint) {
        String readable = hint.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
        if (readable.length() > MAX_HINT_LENGTH) {
            readable = readable.substring(0, MAX_HINT_LENGTH);
        }
        String random = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        return "t_" + readable + "_" + random;
    }

    /**
     * Returns the database name.
     * @return e.g. {@code t_clickhouseclusterit_3f9a0c12be}
     */
    public String name() {
        return name;
    }

    /**
     * Returns a table name qualified with this database.
     * @param table an unqualified table name
     * @return {@code <database>.<table>}
     */
    public String table(String table) {
        return name + "." + table;
    }

    /**
     * Returns the cluster name to use in {@code ON CLUSTER} clauses.
     * @return e.g. {@code etl}
     */
    public String cluster() {
        return endpoints.clickhouseCluster();
    }

    /**
     * Returns where the servers listen.
     * @return the endpoints this database was created with
     */
    public InfraEndpoints endpoints() {
        return endpoints;
    }

    /**
     * Runs one statement on the first replica of shard 1, the instance that initiates
     * {@code ON CLUSTER} DDL; see {@link ClickHouseHttp#query(String, String)} for the answer's
     * format.
     * @param sql one statement
     * @return the response body
     * @throws ClickHouseHttpException if the statement fails
     */
    public String execute(String sql) {
        return ClickHouseHttp.query(endpoints.clickhouseShard(1).replicaUrl(1), sql);
    }

    /**
     * Drops the database on every instance of the cluster.
     * @throws ClickHouseHttpException if the drop fails
     */
    @Override
    public void close() {
        execute("DROP DATABASE IF EXISTS " + name + " ON CLUSTER " + endpoints.clickhouseCluster());
    }

    @Override
    public String toString() {
        return "ClickHouseTestDatabase{" + name + " on " + endpoints.clickhouseCluster() + "}";
    }
}
