package dev.etl.it.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.etl.clickhouse.ClickHouseCapabilities;
import dev.etl.clickhouse.ClickHouseShardWriter;
import dev.etl.clickhouse.ClickHouseSink;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.ClickHouseSinkConfig.Transport;
import dev.etl.clickhouse.ClickHouseTransport;
import dev.etl.clickhouse.ClickHouseTypes;
import dev.etl.clickhouse.RowBinaryEncoder;
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
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The writer's core scenarios with each insert transport ({@link Transport#CLIENT_V2}, the default, and
 * {@link Transport#HTTP}) against the local 2 shards × 2 replicas ClickHouse 18.16 cluster: batches land
 * on their shard and read back intact (plain and compressed), an identical batch retried on the other
 * replica is kept once, a truncated body is a permanent error carrying the server's text, and a closed
 * port is a transient connect failure. Each transport writes its own table.
 */
@LocalInfra(InfraServer.CLICKHOUSE)
class ClickHouseInsertTransportsIT {

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
        for (Transport transport : Transport.values()) {
            db.execute("CREATE TABLE " + db.table(table(transport)) + " ON CLUSTER " + db.cluster() + " " + COLUMNS
                    + " ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/" + db.name() + "/" + table(transport)
                    + "', '{replica}') ORDER BY id");
        }
    }

    private static String table(Transport transport) {
        return "orders_" + transport.name().toLowerCase(java.util.Locale.ROOT);
    }

    private static ClickHouseSinkConfig.Builder config(Transport transport) {
        ClickHouseSinkConfig.Builder b = ClickHouseSinkConfig.builder()
                .table(db.name(), table(transport))
                .transport(transport)
                .breaker(2, Duration.ofSeconds(30))
                .socketTimeout(Duration.ofSeconds(30));
        for (InfraEndpoints.ClickHouseShard shard : infra.clickhouseShards()) {
            b.shard(shard.replicaUrls().toArray(String[]::new));
        }
        return b;
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
        for (String url : infra.clickhouseReplicaUrls()) {
            ClickHouseHttp.query(url, "SYSTEM SYNC REPLICA " + db.table(table));
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void batchesLandOnTheirShardAndReadBackIntact(Transport transport) {
        String table = table(transport);
        SinkDefinition sink = sink(config(transport).build());
        try (ShardWriter shard0 = sink.writers().apply(0);
                ShardWriter shard1 = sink.writers().apply(1)) {
            shard0.write(ItBatch.of(0, 0, rows(1, 100), 100));
            shard0.write(ItBatch.of(0, 1, rows(101, 100), 100));
            shard1.write(ItBatch.of(1, 0, rows(1001, 50), 50));
        }
        syncReplicas(table);
        for (int replica = 1; replica <= 2; replica++) {
            assertThat(query(
                            1,
                            replica,
                            "SELECT count(), min(id), max(id) FROM " + db.table(table) + " WHERE id < 5000"))
                    .isEqualTo("200\t1\t200\n");
            assertThat(query(
                            2,
                            replica,
                            "SELECT count(), min(id), max(id) FROM " + db.table(table) + " WHERE id < 5000"))
                    .isEqualTo("50\t1001\t1050\n");
        }
        assertThat(query(
                        1,
                        1,
                        "SELECT id, customer, amount, toUnixTimestamp(ts), tags, coupon FROM " + db.table(table)
                                + " WHERE id IN (2, 3) ORDER BY id FORMAT TabSeparated"))
                .isEqualTo("2\tcustomer-2\t2.01\t1700000002\t['t2','x']\t\\N\n"
                        + "3\tcustomer-3\t3.01\t1700000003\t['t3','x']\tC3\n");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void compressedBatchesArriveIntact(Transport transport) {
        String table = table(transport);
        SinkDefinition sink = sink(config(transport).compression(true).build());
        try (ShardWriter shard1 = sink.writers().apply(1)) {
            shard1.write(ItBatch.of(1, 40, rows(7001, 500), 500));
        }
        syncReplicas(table);
        assertThat(query(
                        2,
                        2,
                        "SELECT count(), sum(length(customer)), sum(id), countIf(coupon IS NULL) FROM "
                                + db.table(table) + " WHERE id BETWEEN 7001 AND 7500"))
                .isEqualTo("500\t6500\t3625250\t250\n");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void retryOfTheSameBatchOnTheOtherReplicaKeepsOneCopy(Transport transport) {
        String table = table(transport);
        SinkDefinition sink = sink(config(transport).build());
        ItBatch batch = ItBatch.of(1, 10, rows(5001, 20), 20);
        try (ShardWriter shard1 = sink.writers().apply(1)) {
            shard1.write(batch); // first attempt: round-robin picks one replica
            shard1.write(batch.retry()); // "the answer was lost": the retry goes to the other replica
            shard1.write(batch.retry().retry());
        }
        syncReplicas(table);
        for (int replica = 1; replica <= 2; replica++) {
            assertThat(query(2, replica, "SELECT count() FROM " + db.table(table) + " WHERE id BETWEEN 5001 AND 5020"))
                    .isEqualTo("20\n");
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void truncatedBodyIsPermanentWithTheServersText(Transport transport) {
        String table = table(transport);
        SinkDefinition sink = sink(config(transport).build());
        RowBuffer rows = rows(9001, 3);
        rows.truncate(rows.length() - 3);
        try (ShardWriter shard0 = sink.writers().apply(0)) {
            SinkWriteException e =
                    catchThrowableOfType(SinkWriteException.class, () -> shard0.write(ItBatch.of(0, 30, rows, 3)));
            assertThat(e.isTransient()).isFalse();
            assertThat(e)
                    .hasMessageContaining("permanent")
                    .hasMessageContaining("shard 0")
                    .hasMessageContaining("table " + db.table(table))
                    .hasMessageContaining("HTTP 500")
                    .hasMessageContaining("Code: 33")
                    .hasMessageContaining("DB::Exception: Cannot read all data")
                    .hasMessageNotContaining("transport error");
            assertThat(shard0.isHealthy()).isTrue();
        }
        assertThat(query(1, 1, "SELECT count() FROM " + db.table(table) + " WHERE id >= 9001"))
                .isEqualTo("0\n");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void closedPortIsATransientConnectFailure(Transport transport) throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        ClickHouseSinkConfig config = ClickHouseSinkConfig.builder()
                .table(db.name(), table(transport))
                .transport(transport)
                .shard("http://127.0.0.1:" + port)
                .breaker(5, Duration.ofSeconds(30))
                .build();
        try (ClickHouseTransport t = ClickHouseSink.transport(config);
                ClickHouseShardWriter writer = new ClickHouseShardWriter(
                        config,
                        0,
                        "orders",
                        "it",
                        ClickHouseCapabilities.legacy("18.16.1"),
                        t,
                        new SimpleMeterRegistry(),
                        System::nanoTime)) {
            SinkWriteException e =
                    catchThrowableOfType(SinkWriteException.class, () -> writer.write(ItBatch.of(0, 0, rows(1, 1), 1)));
            assertThat(e.isTransient()).isTrue();
            assertThat(e)
                    .hasMessageContaining("transient")
                    .hasMessageContaining("cannot connect")
                    .hasMessageContaining("127.0.0.1:" + port)
                    .hasMessageContaining("ConnectException");
            if (transport == Transport.CLIENT_V2) {
                // java.net.http's ConnectException carries no message; Apache HttpClient's says why
                assertThat(e).hasMessageContaining("Connection refused");
            }
            assertThat(writer.isHealthy()).isTrue(); // one failure, threshold 5
        }
    }
}
