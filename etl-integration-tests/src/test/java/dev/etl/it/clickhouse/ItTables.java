package dev.etl.it.clickhouse;

import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.test.infra.ClickHouseHttp;
import dev.etl.test.infra.ClickHouseTestDatabase;
import dev.etl.test.infra.InfraEndpoints;
import java.time.Duration;

/** The tables of a ClickHouse IT's database on the local cluster, and a sink configuration over every shard. */
final class ItTables {
    private ItTables() {}

    /** Creates {@code table} on every replica as a ReplicatedMergeTree ordered by {@code id}. */
    static void replicated(ClickHouseTestDatabase db, String table, String columns) {
        db.execute("CREATE TABLE " + db.table(table) + " ON CLUSTER " + db.cluster() + " " + columns
                + " ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/" + db.name() + "/" + table
                + "', '{replica}') ORDER BY id");
    }

    /** A sink configuration for {@code table}, every shard and replica of the cluster, breaker 2 × 30 s. */
    static ClickHouseSinkConfig.Builder config(ClickHouseTestDatabase db, String table) {
        ClickHouseSinkConfig.Builder b = ClickHouseSinkConfig.builder()
                .table(db.name(), table)
                .breaker(2, Duration.ofSeconds(30))
                .socketTimeout(Duration.ofSeconds(30));
        for (InfraEndpoints.ClickHouseShard shard : db.endpoints().clickhouseShards()) {
            b.shard(shard.replicaUrls().toArray(String[]::new));
        }
        return b;
    }

    /** Waits until every replica has fetched the parts of {@code table}. */
    static void syncReplicas(ClickHouseTestDatabase db, String table) {
        for (String url : db.endpoints().clickhouseReplicaUrls()) {
            ClickHouseHttp.query(url, "SYSTEM SYNC REPLICA " + db.table(table));
        }
    }
}
