package dev.etl.it.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.clickhouse.ClickHouseHttpTransport;
import dev.etl.clickhouse.ClickHouseSink;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.ClickHouseTransport;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.clickhouse.sharding.DistributedPlacement;
import dev.etl.clickhouse.sharding.DistributedPlacementCheck;
import dev.etl.clickhouse.sharding.DistributedRouter;
import dev.etl.clickhouse.sharding.DistributedTable;
import dev.etl.clickhouse.sharding.KeyType;
import dev.etl.clickhouse.sharding.PlacementCheck;
import dev.etl.clickhouse.sharding.PlacementCheckMode;
import dev.etl.clickhouse.sharding.PlacementReport;
import dev.etl.clickhouse.sharding.ShardPlacementException;
import dev.etl.clickhouse.sharding.ShardWeights;
import dev.etl.clickhouse.sharding.ShardingKey;
import dev.etl.sink.KeyHashRouter;
import dev.etl.sink.Router;
import dev.etl.sink.RowBuffer;
import dev.etl.sink.ShardWriter;
import dev.etl.sink.SinkDefinition;
import dev.etl.test.infra.ClickHouseHttp;
import dev.etl.test.infra.ClickHouseTestDatabase;
import dev.etl.test.infra.InfraEndpoints;
import dev.etl.test.infra.InfraServer;
import dev.etl.test.infra.LocalInfra;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Shard placement against real Distributed tables on the local 2-shard cluster {@code etl}
 * (ClickHouse 18.16): rows the sink writes straight into the shard-local tables, routed by a
 * {@link DistributedRouter}, sit exactly where the Distributed table's sharding key puts the rows it
 * inserts itself; with {@link KeyHashRouter} they do not, and the queries that rely on placement
 * ({@code distributed_group_by_no_merge}, ReplacingMergeTree collapsing) give wrong answers. The
 * placement check passes for the first and fails, naming a key, for the second.
 */
@LocalInfra(InfraServer.CLICKHOUSE)
class DistributedPlacementIT {

    record Order(long id, String customer, long version) {}

    static final RowBinaryEncoder<Order> ENCODER = RowBinaryEncoder.<Order>builder()
            .uint64Bits("id", Order::id)
            .string("customer", Order::customer)
            .uint32("version", Order::version)
            .build();

    private static final int KEYS = 2000;

    private static ClickHouseTestDatabase db;
    private static InfraEndpoints infra;
    private static ClickHouseTransport transport;
    private static URI first;

    @BeforeAll
    static void createTables(ClickHouseTestDatabase database) {
        db = database;
        infra = database.endpoints();
        transport = new ClickHouseHttpTransport(Duration.ofSeconds(2), Duration.ofSeconds(30), null, null, false);
        first = URI.create(infra.clickhouseShard(1).replicaUrl(1));
        for (String t : List.of("by_router", "by_keyhash", "by_customer")) {
            db.execute("CREATE TABLE " + db.table(t + "_local") + " ON CLUSTER " + db.cluster()
                    + " (id UInt64, customer String, version UInt32) ENGINE = ReplicatedReplacingMergeTree('/clickhouse/"
                    + "tables/{shard}/" + db.name() + "/" + t + "', '{replica}', version) ORDER BY (id, customer)");
        }
        distributed("by_router", "cityHash64(id)");
        distributed("by_keyhash", "cityHash64(id)");
        distributed("by_customer", "murmurHash3_64(customer)");
    }

    private static void distributed(String table, String shardingKey) {
        db.execute("CREATE TABLE " + db.table(table) + " ON CLUSTER " + db.cluster() + " AS "
                + db.table(table + "_local")
                + " ENGINE = Distributed(" + db.cluster() + ", " + db.name() + ", " + table + "_local, " + shardingKey
                + ")");
    }

    @Test
    void aDistributedRouterPutsEveryRowWhereTheDistributedTableDoes() throws Exception {
        DistributedPlacement placement = DistributedPlacement.read(transport, first, db.name(), "by_router");
        assertThat(placement.key()).isEqualTo(ShardingKey.cityHash64("id", KeyType.UINT64));
        assertThat(placement.weights()).isEqualTo(ShardWeights.uniform(2));
        List<Order> orders = orders(1);
        writeVersionsBothWays("by_router", orders, DistributedRouter.byLong(placement, Order::id));

        // ReplacingMergeTree collapses both versions of every key: they are on one shard
        assertThat(query("SELECT count() FROM " + db.table("by_router") + " FINAL"))
                .isEqualTo(KEYS + "\n");
        // unmerged per-shard groups: one group per key, holding both versions
        String groups = query("SELECT id, count() FROM " + db.table("by_router")
                + " GROUP BY id SETTINGS distributed_group_by_no_merge = 1");
        assertThat(groups.split("\n")).hasSize(KEYS).allMatch(line -> line.endsWith("\t2"));
        for (Order o : orders.subList(0, 20)) {
            String perShard = query("SELECT count() FROM " + db.table("by_router") + " WHERE id = "
                    + Long.toUnsignedString(o.id()) + " SETTINGS distributed_group_by_no_merge = 1");
            assertThat(sorted(perShard))
                    .as("per-shard counts of id %s", Long.toUnsignedString(o.id()))
                    .containsExactly("0", "2");
            int shard = placement.shardOf(o.id());
            assertThat(ClickHouseHttp.query(
                            infra.clickhouseShard(shard + 1).replicaUrl(1),
                            "SELECT count() FROM " + db.table("by_router_local") + " WHERE id = "
                                    + Long.toUnsignedString(o.id())))
                    .isEqualTo("2\n");
        }
    }

    @Test
    void keyHashRouterSplitsKeysAcrossShardsAndPlacementDependentQueriesGoWrong() throws Exception {
        List<Order> orders = orders(2);
        writeVersionsBothWays("by_keyhash", orders, KeyHashRouter.byKey(Order::id));
        long collapsed = Long.parseLong(query("SELECT count() FROM " + db.table("by_keyhash") + " FINAL")
                .strip());
        String[] groups = query("SELECT id, count() FROM " + db.table("by_keyhash")
                        + " GROUP BY id SETTINGS distributed_group_by_no_merge = 1")
                .split("\n");
        // about half the keys have their two versions on different shards: not collapsed, grouped twice
        assertThat(collapsed).isBetween(KEYS + KEYS / 3L, KEYS + 2L * KEYS / 3);
        assertThat(groups.length).isEqualTo((int) collapsed);
    }

    @Test
    void theCheckPassesForTheDistributedRouterAndFailsForKeyHashRouterNamingAKey() throws Exception {
        DistributedTable table = DistributedTable.read(transport, first, db.name(), "by_router");
        DistributedPlacementCheck check = new DistributedPlacementCheck(transport, first);
        DistributedPlacement placement = DistributedPlacement.read(transport, first, db.name(), "by_router");

        PlacementReport generated = check.check(table, placement, 2000, 7L);
        assertThat(generated.matches()).as(generated.message()).isTrue();
        assertThat(generated.checked()).isEqualTo(2000);

        List<Order> sample = orders(3).subList(0, 1000);
        PlacementReport routed =
                check.check(table, null, DistributedRouter.byLong(placement, Order::id), 2, sample, Order::id);
        assertThat(routed.matches()).as(routed.message()).isTrue();

        Router<Order> keyHash = KeyHashRouter.byKey(Order::id);
        PlacementReport wrong = check.check(table, null, keyHash, 2, sample, Order::id);
        assertThat(wrong.matches()).isFalse();
        assertThat(wrong.mismatched()).isBetween(300, 700);
        PlacementReport.Mismatch m = wrong.mismatches().get(0);
        Order mismatching = sample.stream()
                .filter(o -> Long.toUnsignedString(o.id()).equals(m.key()))
                .findFirst()
                .orElseThrow();
        assertThat(m.serverShard()).isEqualTo(placement.shardOf(mismatching.id()));
        assertThat(m.pipelineShard()).isEqualTo(keyHash.shard(mismatching, null, 2));
        assertThatThrownBy(() -> DistributedPlacementCheck.enforce(wrong, PlacementCheckMode.FAIL))
                .isInstanceOf(ShardPlacementException.class)
                .hasMessageContaining("does not match Distributed table " + db.name() + ".by_router")
                .hasMessageContaining("sharding key cityHash64(id) over id UInt64, weights [1, 1]")
                .hasMessageContaining("pipeline KeyHashRouter over 2 shards")
                .hasMessageContaining("key " + m.key() + " -> pipeline shard " + m.pipelineShard());
    }

    @Test
    void aStringKeyedTableIsReproducedToo() throws Exception {
        DistributedPlacement placement = DistributedPlacement.read(transport, first, db.name(), "by_customer");
        assertThat(placement.key()).isEqualTo(ShardingKey.murmurHash3_64("customer", KeyType.STRING));
        PlacementReport report = new DistributedPlacementCheck(transport, first)
                .check(DistributedTable.read(transport, first, db.name(), "by_customer"), placement, 1000, 11L);
        assertThat(report.matches()).as(report.message()).isTrue();

        List<Order> orders = orders(4).subList(0, 500);
        writeVersionsBothWays("by_customer", orders, DistributedRouter.byString(placement, Order::customer));
        String groups = query("SELECT customer, count() FROM " + db.table("by_customer")
                + " GROUP BY customer SETTINGS distributed_group_by_no_merge = 1");
        assertThat(groups.split("\n")).hasSize(500).allMatch(line -> line.endsWith("\t2"));
    }

    @Test
    void theSinkRunsTheCheckAtStartupUnderItsMode() throws Exception {
        DistributedPlacement right = DistributedPlacement.read(transport, first, db.name(), "by_router");
        DistributedPlacement wrong =
                new DistributedPlacement(ShardingKey.murmurHash3_64("id", KeyType.UINT64), right.weights());
        try (ShardWriter w =
                sinkChecked(right, PlacementCheckMode.FAIL, false).writers().apply(0)) {
            assertThat(w.isHealthy()).isTrue();
        }
        assertThatThrownBy(() -> sinkChecked(wrong, PlacementCheckMode.FAIL, false)
                        .writers()
                        .apply(0))
                .isInstanceOf(ShardPlacementException.class)
                .hasMessageContaining("the pipeline computes murmurHash3_64(id) [id UInt64] but the table's key is "
                        + "cityHash64(id) [id UInt64]");
        try (ShardWriter w =
                sinkChecked(wrong, PlacementCheckMode.WARN, false).writers().apply(0)) {
            assertThat(w.isHealthy()).isTrue();
        }
        assertThatThrownBy(() -> sinkChecked(right, PlacementCheckMode.FAIL, true)
                        .writers()
                        .apply(0))
                .isInstanceOf(ShardPlacementException.class)
                .hasMessageContaining("is shard_num 2 of cluster " + db.cluster() + ", so it must be sink shard 1");
    }

    private SinkDefinition sinkChecked(DistributedPlacement placement, PlacementCheckMode mode, boolean swapShards) {
        ClickHouseSinkConfig.Builder b = ClickHouseSinkConfig.builder()
                .table(db.name(), "by_router_local")
                .placementCheck(PlacementCheck.of(db.name(), "by_router", placement, mode));
        List<InfraEndpoints.ClickHouseShard> shards = new ArrayList<>(infra.clickhouseShards());
        if (swapShards) {
            shards = List.of(shards.get(1), shards.get(0));
        }
        for (InfraEndpoints.ClickHouseShard shard : shards) {
            b.shard(shard.replicaUrls().toArray(String[]::new));
        }
        return ClickHouseSink.definition("orders", "it", b.build(), ENCODER, new SimpleMeterRegistry());
    }

    /**
     * Version 1 of every order through the Distributed table (it places rows by its sharding key);
     * version 2 routed by {@code router} and written by the sink's shard writers into the shard-local
     * tables. Replicas synced afterwards.
     */
    private static void writeVersionsBothWays(String table, List<Order> orders, Router<Order> router) {
        StringBuilder values = new StringBuilder();
        for (Order o : orders) {
            values.append(values.isEmpty() ? "" : ",")
                    .append('(')
                    .append(Long.toUnsignedString(o.id()))
                    .append(", '")
                    .append(o.customer())
                    .append("', 1)");
        }
        new ClickHouseHttp(Duration.ofSeconds(2), Duration.ofMinutes(2))
                .execute(
                        first.toString(),
                        "INSERT INTO " + db.table(table) + " VALUES " + values,
                        Map.of("insert_distributed_sync", "1"));

        ClickHouseSinkConfig.Builder config = ClickHouseSinkConfig.builder().table(db.name(), table + "_local");
        for (InfraEndpoints.ClickHouseShard shard : infra.clickhouseShards()) {
            config.shard(shard.replicaUrls().toArray(String[]::new));
        }
        SinkDefinition sink =
                ClickHouseSink.definition("orders", "it", config.build(), ENCODER, new SimpleMeterRegistry());
        RowBuffer[] rows = {new RowBuffer(1 << 16), new RowBuffer(1 << 16)};
        int[] counts = new int[2];
        for (Order o : orders) {
            int shard = router.shard(o, null, 2);
            ENCODER.encode(new Order(o.id(), o.customer(), 2), rows[shard]);
            counts[shard]++;
        }
        for (int shard = 0; shard < 2; shard++) {
            try (ShardWriter writer = sink.writers().apply(shard)) {
                writer.write(ItBatch.of(shard, 1, rows[shard], counts[shard]));
            } catch (Exception e) {
                throw new IllegalStateException("writing shard " + shard, e);
            }
        }
        for (String url : infra.clickhouseReplicaUrls()) {
            ClickHouseHttp.query(url, "SYSTEM SYNC REPLICA " + db.table(table + "_local"));
        }
    }

    /** Distinct random ids over the whole UInt64 range and small sequential ones; customers from the id. */
    private static List<Order> orders(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Order> orders = new ArrayList<>(KEYS);
        for (int i = 0; i < KEYS; i++) {
            long id = i % 2 == 0 ? i + seed * 1_000_000 : random.nextLong() | 1L << 62;
            orders.add(new Order(id, "customer-" + Long.toUnsignedString(id) + (i % 3 == 0 ? "-Zoë-日本" : ""), 1));
        }
        return orders;
    }

    private static String query(String sql) {
        return ClickHouseHttp.query(first.toString(), sql);
    }

    private static List<String> sorted(String lines) {
        String[] a = lines.strip().split("\n");
        Arrays.sort(a);
        return List.of(a);
    }
}
