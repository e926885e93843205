package dev.etl.it.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.etl.clickhouse.ClickHouseCapabilities;
import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.ClickHouseHttpTransport;
import dev.etl.clickhouse.ClickHouseSchemaException;
import dev.etl.clickhouse.ClickHouseShardWriter;
import dev.etl.clickhouse.ClickHouseSink;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.ClickHouseTypes;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.clickhouse.ValidationMode;
import dev.etl.error.SinkWriteException;
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
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The ClickHouse shard writer against the local 2 shards × 2 replicas ClickHouse 18.16 cluster,
 * driven directly with sealed batches (the engine's shard worker does that in a pipeline).
 */
@LocalInfra(InfraServer.CLICKHOUSE)
class ClickHouseShardWriterIT {

    record Order(long id, String customer, long amountCents, long tsSeconds, List<String> tags, String coupon) {}

    static final RowBinaryEncoder<Order> ENCODER = RowBinaryEncoder.<Order>builder()
            .uint64("id", Order::id)
            .string("customer", Order::customer)
            .decimal64("amount", 2, Order::amountCents)
            .dateTime("ts", Order::tsSeconds)
            .array("tags", ClickHouseTypes.string(), Order::tags)
            .nullableString("coupon", Order::coupon)
            .build();

    private static final String COLUMNS = "(id UInt64, customer String, amount Decimal64(2), ts DateTime, "
            + "tags Array(String), coupon Nullable(String))";

    private static ClickHouseTestDatabase db;
    private static InfraEndpoints infra;

    @BeforeAll
    static void createTables(ClickHouseTestDatabase database) {
        db = database;
        infra = database.endpoints();
        replicated("orders", COLUMNS);
        replicated(
                "wrong_type",
                "(id UInt64, customer String, amount Float64, ts DateTime, tags Array(String), "
                        + "coupon Nullable(String))");
        replicated(
                "wrong_order",
                "(id UInt64, amount Decimal64(2), customer String, ts DateTime, tags Array(String), "
                        + "coupon Nullable(String))");
        db.execute("CREATE TABLE " + db.table("plain") + " ON CLUSTER " + db.cluster() + " " + COLUMNS
                + " ENGINE = MergeTree ORDER BY id");
    }

    private static void replicated(String table, String columns) {
        ItTables.replicated(db, table, columns);
    }

    private static ClickHouseSinkConfig.Builder config(String table) {
        return ItTables.config(db, table);
    }

    private static SinkDefinition sink(ClickHouseSinkConfig config) {
        return ClickHouseSink.definition("orders", "it", config, ENCODER, new SimpleMeterRegistry());
    }

    private static RowBuffer rows(long fromId, int count) {
        RowBuffer out = new RowBuffer(1024);
        for (long id = fromId; id < fromId + count; id++) {
            ENCODER.encode(
                    new Order(
                            id,
                            "customer-" + id,
                            id * 100 + 1,
                            1_700_000_000L + id,
                            List.of("t" + id, "x"),
                            id % 2 == 0 ? null : "C" + id),
                    out);
        }
        return out;
    }

    private static String query(int shardNumber, int replica, String sql) {
        return ClickHouseHttp.query(infra.clickhouseShard(shardNumber).replicaUrl(replica), sql);
    }

    private static void syncReplicas(String table) {
        ItTables.syncReplicas(db, table);
    }

    @Test
    void batchesLandOnTheirShardAndReadBackIntact() {
        SinkDefinition sink = sink(config("orders").build());
        try (ShardWriter shard0 = sink.writers().apply(0);
                ShardWriter shard1 = sink.writers().apply(1)) {
            shard0.write(ItBatch.of(0, 0, rows(1, 100), 100));
            shard0.write(ItBatch.of(0, 1, rows(101, 100), 100));
            shard1.write(ItBatch.of(1, 0, rows(1001, 50), 50));
        }
        syncReplicas("orders");
        for (int replica = 1; replica <= 2; replica++) {
            assertThat(query(
                            1,
                            replica,
                            "SELECT count(), min(id), max(id) FROM " + db.table("orders") + " WHERE id < 5000"))
                    .isEqualTo("200\t1\t200\n");
            assertThat(query(
                            2,
                            replica,
                            "SELECT count(), min(id), max(id) FROM " + db.table("orders") + " WHERE id < 5000"))
                    .isEqualTo("50\t1001\t1050\n");
        }
        assertThat(query(
                        1,
                        1,
                        "SELECT id, customer, amount, toUnixTimestamp(ts), tags, coupon FROM " + db.table("orders")
                                + " WHERE id IN (2, 3) ORDER BY id FORMAT TabSeparated"))
                .isEqualTo("2\tcustomer-2\t2.01\t1700000002\t['t2','x']\t\\N\n"
                        + "3\tcustomer-3\t3.01\t1700000003\t['t3','x']\tC3\n");
    }

    @Test
    void retryOfTheSameBatchOnTheOtherReplicaKeepsOneCopy() {
        SinkDefinition sink = sink(config("orders").build());
        ItBatch batch = ItBatch.of(1, 10, rows(5001, 20), 20);
        try (ShardWriter shard1 = sink.writers().apply(1)) {
            shard1.write(batch); // first attempt: round-robin picks one replica
            shard1.write(batch.retry()); // "the answer was lost": the retry goes to the other replica
            shard1.write(batch.retry().retry());
        }
        syncReplicas("orders");
        for (int replica = 1; replica <= 2; replica++) {
            assertThat(query(
                            2,
                            replica,
                            "SELECT count() FROM " + db.table("orders") + " WHERE id BETWEEN 5001 AND 5020"))
                    .isEqualTo("20\n");
        }
    }

    @Test
    void compressedInsertsArriveIntact() {
        SinkDefinition sink = sink(config("orders").compression(true).build());
        try (ShardWriter shard0 = sink.writers().apply(0)) {
            shard0.write(ItBatch.of(0, 20, rows(7001, 500), 500));
        }
        assertThat(query(
                        1,
                        1,
                        "SELECT count(), sum(length(customer)) FROM " + db.table("orders")
                                + " WHERE id BETWEEN 7001 AND 7500 SETTINGS select_sequential_consistency = 0"))
                .startsWith("500\t");
    }

    @Test
    void legacyServerReportsNoTokenNoAsyncInsertNoWindow() throws Exception {
        ClickHouseCapabilities caps = ClickHouseCapabilities.detect(
                new ClickHouseHttpTransport(Duration.ofSeconds(2), Duration.ofSeconds(10), null, null, false),
                URI.create(infra.clickhouseShard(1).replicaUrl(1)));
        assertThat(caps.version()).startsWith("18.16");
        assertThat(caps.dedupToken()).isFalse();
        assertThat(caps.asyncInsert()).isFalse();
        assertThat(caps.nonReplicatedDeduplicationWindow()).isFalse();
    }

    @Test
    void fullValidationNamesTheColumnWithTheWrongType() {
        SinkDefinition sink =
                sink(config("wrong_type").validation(ValidationMode.FULL).build());
        assertThatThrownBy(() -> sink.writers().apply(0))
                .isInstanceOf(ClickHouseSchemaException.class)
                .hasMessageContaining(db.table("wrong_type"))
                .hasMessageContaining("replica http://127.0.0.1:")
                .hasMessageMatching("(?s).*amount +Decimal\\(18, 2\\) +\\| amount +Float64 +<- type differs.*");
        // NAMES does not look at types
        sink(config("wrong_type").validation(ValidationMode.NAMES).build())
                .writers()
                .apply(0)
                .close();
    }

    @Test
    void aTableWithTheColumnsInAnotherOrderIsWrittenByName() {
        // the insert names its columns, so the encoder's order (customer before amount) need not be the table's
        try (ShardWriter shard1 = sink(config("wrong_order")
                        .validation(ValidationMode.FULL)
                        .build())
                .writers()
                .apply(1)) {
            shard1.write(ItBatch.of(1, 0, rows(7, 2), 2));
        }
        syncReplicas("wrong_order");
        assertThat(query(2, 1, "SELECT id, amount, customer, coupon FROM " + db.table("wrong_order") + " ORDER BY id"))
                .isEqualTo("7\t7.01\tcustomer-7\tC7\n8\t8.01\tcustomer-8\t\\N\n");
    }

    @Test
    void nonReplicatedTableIsRefusedWhenDedupIsRequired() {
        sink(config("plain").build()).writers().apply(0).close(); // a warning only
        assertThatThrownBy(() -> sink(config("plain").requireDedup(true).build())
                        .writers()
                        .apply(0))
                .isInstanceOf(ClickHouseSchemaException.class)
                .hasMessageContaining("no non_replicated_deduplication_window")
                .hasMessageContaining("requireDedup");
    }

    @Test
    void unreachableShardFailsTransientlyOpensBreakersAndTurnsUnhealthy() {
        ClickHouseSinkConfig config = ClickHouseSinkConfig.builder()
                .table(db.name(), "orders")
                .shard("http://127.0.0.1:1", "http://127.0.0.1:2")
                .breaker(2, Duration.ofSeconds(30))
                .build();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ClickHouseShardWriter writer = new ClickHouseShardWriter(
                config,
                0,
                "orders",
                "it",
                ClickHouseCapabilities.legacy("18.16.1"),
                ClickHouseHttpTransport.of(config),
                registry,
                System::nanoTime);
        ItBatch batch = ItBatch.of(0, 0, rows(1, 1), 1);
        for (int attempt = 0; attempt < 4; attempt++) {
            SinkWriteException e = catchThrowableOfType(SinkWriteException.class, () -> writer.write(batch));
            assertThat(e.isTransient()).isTrue();
            assertThat(e).hasMessageContaining("cannot connect").hasMessageContaining("shard 0");
        }
        assertThat(writer.isHealthy()).isFalse();
        assertThat(writer.replicaStatus())
                .extracting(ClickHouseShardWriter.ReplicaStatus::state)
                .containsOnly(ClickHouseShardWriter.BreakerState.OPEN);
        assertThat(registry.get("etl.clickhouse.replica.healthy").gauges())
                .allSatisfy(g -> assertThat(g.value()).isZero());
        assertThatThrownBy(() -> writer.write(batch)).hasMessageContaining("every circuit breaker is open");
        // and validation refuses to start a sink on a shard with no reachable replica
        assertThatThrownBy(() -> ClickHouseSink.definition(
                                "orders",
                                "it",
                                config,
                                List.of(new ClickHouseColumn("id", "UInt64")),
                                registry,
                                ClickHouseHttpTransport.of(config))
                        .writers()
                        .apply(0))
                .isInstanceOf(ClickHouseSchemaException.class)
                .hasMessageContaining("no replica of ClickHouse shard 0");
    }

    record Event(long id, String kind, String region, List<String> labels) {}

    static final RowBinaryEncoder<Event> LC_ENCODER = RowBinaryEncoder.<Event>builder()
            .uint64("id", Event::id)
            .lowCardinalityString("kind", Event::kind)
            .column(
                    "region",
                    ClickHouseTypes.lowCardinality(ClickHouseTypes.nullable(ClickHouseTypes.string())),
                    Event::region)
            .array("labels", ClickHouseTypes.lowCardinality(ClickHouseTypes.string()), Event::labels)
            .build();

    @Test
    void lowCardinalityColumnsOn1816AreWrittenAsTheirInnerTypeAndReadBack() {
        // 18.16 refuses LowCardinality in CREATE without the experimental setting, and ON CLUSTER DDL
        // does not carry query settings to the other hosts: create the table on each instance
        for (InfraEndpoints.ClickHouseShard shard : infra.clickhouseShards()) {
            for (String url : shard.replicaUrls()) {
                new ClickHouseHttp(Duration.ofSeconds(2), Duration.ofSeconds(30))
                        .execute(
                                url,
                                "CREATE TABLE "
                                        + db.table("events_lc") + " (id UInt64, kind LowCardinality(String), "
                                        + "region LowCardinality(Nullable(String)), labels Array(LowCardinality(String))) "
                                        + "ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/" + db.name()
                                        + "/events_lc', '{replica}') ORDER BY id",
                                Map.of("allow_experimental_low_cardinality_type", "1"));
            }
        }
        ClickHouseSinkConfig.Builder cfg = ClickHouseSinkConfig.builder()
                .table(db.name(), "events_lc")
                .validation(ValidationMode.FULL); // the encoder's LowCardinality types match system.columns
        for (InfraEndpoints.ClickHouseShard shard : infra.clickhouseShards()) {
            cfg.shard(shard.replicaUrls().toArray(String[]::new));
        }
        RowBuffer rows = new RowBuffer(1024);
        String[] kinds = {"click", "view", "buy"};
        for (long id = 1; id <= 3000; id++) {
            LC_ENCODER.encode(
                    new Event(
                            id,
                            kinds[(int) (id % 3)],
                            id % 4 == 0 ? null : "eu-" + (id % 2),
                            List.of("l" + (id % 5), "all")),
                    rows);
        }
        // no insert setting needed: on the wire LowCardinality(T) is T, the server converts
        SinkDefinition sink =
                ClickHouseSink.definition("events", "it", cfg.build(), LC_ENCODER, new SimpleMeterRegistry());
        try (ShardWriter shard0 = sink.writers().apply(0)) {
            shard0.write(ItBatch.of(0, 1, rows, 3000));
        }
        syncReplicas("events_lc");
        assertThat(query(
                        1,
                        1,
                        "SELECT name, type FROM system.columns WHERE database = '" + db.name()
                                + "' AND table = 'events_lc' FORMAT TabSeparated"))
                .isEqualTo("id\tUInt64\nkind\tLowCardinality(String)\nregion\tLowCardinality(Nullable(String))\n"
                        + "labels\tArray(LowCardinality(String))\n");
        assertThat(query(
                        1,
                        1,
                        "SELECT id, kind, region, labels FROM " + db.table("events_lc")
                                + " WHERE id IN (1, 2, 3, 4) ORDER BY id FORMAT TabSeparated"))
                .isEqualTo("1\tview\teu-1\t['l1','all']\n2\tbuy\teu-0\t['l2','all']\n3\tclick\teu-1\t['l3','all']\n"
                        + "4\tview\t\\N\t['l4','all']\n");
        assertThat(query(
                        1,
                        1,
                        "SELECT count(), uniqExact(kind), countIf(isNull(region)), sum(length(labels)) FROM "
                                + db.table("events_lc")))
                .isEqualTo("3000\t3\t750\t6000\n");
    }

    @Test
    void truncatedBodyIsPermanentWithTheServersText() {
        SinkDefinition sink = sink(config("orders").build());
        RowBuffer rows = rows(9001, 3);
        rows.truncate(rows.length() - 3);
        try (ShardWriter shard0 = sink.writers().apply(0)) {
            SinkWriteException e =
                    catchThrowableOfType(SinkWriteException.class, () -> shard0.write(ItBatch.of(0, 30, rows, 3)));
            assertThat(e.isTransient()).isFalse();
            assertThat(e)
                    .hasMessageContaining("permanent")
                    .hasMessageContaining("shard 0")
                    .hasMessageContaining("table " + db.table("orders"))
                    .hasMessageContaining("DB::Exception");
            assertThat(shard0.isHealthy()).isTrue();
        }
        assertThat(query(1, 1, "SELECT count() FROM " + db.table("orders") + " WHERE id >= 9001"))
                .isEqualTo("0\n");
    }
}
