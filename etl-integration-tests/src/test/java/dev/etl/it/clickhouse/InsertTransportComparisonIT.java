package dev.etl.it.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.clickhouse.ClickHouseHttpTransport;
import dev.etl.clickhouse.ClickHouseInsert;
import dev.etl.clickhouse.ClickHouseSink;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.ClickHouseTransport;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.sink.RowBuffer;
import dev.etl.test.infra.ClickHouseHttp;
import dev.etl.test.infra.ClickHouseTestDatabase;
import dev.etl.test.infra.InfraServer;
import dev.etl.test.infra.LocalInfra;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The two insert transports side by side: the same RowBinary body and the same {@link ClickHouseInsert}
 * (the writer's settings) through {@link ClickHouseHttpTransport} (raw {@code java.net.http}) and
 * client-v2 (the default, {@link ClickHouseSink#transport} of a {@link ClickHouseSinkConfig.Transport#CLIENT_V2} sink), alternating rounds, into one MergeTree
 * table on one replica. Prints the medians; asserts only that both paths wrote everything. The issue's
 * rule: client-v2 unless raw HTTP is measurably better (see docs/design/clickhouse.md § Measured).
 */
@LocalInfra(InfraServer.CLICKHOUSE)
class InsertTransportComparisonIT {
    private static final int ROWS = 50_000;
    private static final int ROUNDS = 12;

    record Row(long id, String name, double value) {}

    @Test
    void rawHttpAndClientV2InsertTheSameBodies(ClickHouseTestDatabase db) throws Exception {
        String url = db.endpoints().clickhouseShard(1).replicaUrl(1);
        URI replica = URI.create(url);
        ClickHouseHttp.query(
                url,
                "CREATE TABLE " + db.table("bench") + " (id UInt64, name String, value Float64) "
                        + "ENGINE = MergeTree ORDER BY id");
        RowBinaryEncoder<Row> enc = RowBinaryEncoder.<Row>builder()
                .uint64("id", Row::id)
                .string("name", Row::name)
                .float64("value", Row::value)
                .build();
        RowBuffer body = new RowBuffer(4 << 20);
        for (int i = 0; i < ROWS; i++) {
            enc.encode(new Row(i, "customer-" + (i % 1000), i * 0.5), body);
        }
        byte[] bytes = body.toByteArray();
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("wait_end_of_query", "1");
        settings.put("insert_deduplicate", "1");
        settings.put("send_progress_in_http_headers", "0");
        ClickHouseInsert insert = new ClickHouseInsert(db.name(), "bench", settings);
        Duration connect = Duration.ofSeconds(2);
        Duration socket = Duration.ofSeconds(60);
        long[] rawNs = new long[ROUNDS];
        long[] clientNs = new long[ROUNDS];
        try (ClickHouseHttpTransport raw = new ClickHouseHttpTransport(connect, socket, null, null, false);
                ClickHouseTransport client = ClickHouseSink.transport(ClickHouseSinkConfig.builder()
                        .table(db.name(), "bench")
                        .shard(url)
                        .connectTimeout(connect)
                        .socketTimeout(socket)
                        .transport(ClickHouseSinkConfig.Transport.CLIENT_V2)
                        .build())) {
            for (int round = 0; round < ROUNDS; round++) {
                long t0 = System.nanoTime();
                raw.insert(replica, insert, bytes, bytes.length);
                long t1 = System.nanoTime();
                client.insert(replica, insert, bytes, bytes.length);
                long t2 = System.nanoTime();
                rawNs[round] = t1 - t0;
                clientNs[round] = t2 - t1;
            }
        }
        assertThat(ClickHouseHttp.query(url, "SELECT count() FROM " + db.table("bench"))
                        .strip())
                .isEqualTo(Long.toString(2L * ROUNDS * ROWS));
        Arrays.sort(rawNs);
        Arrays.sort(clientNs);
        double rawMs = rawNs[ROUNDS / 2] / 1e6;
        double clientMs = clientNs[ROUNDS / 2] / 1e6;
        System.out.printf(
                "InsertTransportComparisonIT: %d rows (%d bytes) per insert, median raw HTTP %.1f ms "
                        + "(%.2fM rows/s), client-v2 %.1f ms (%.2fM rows/s)%n",
                ROWS, bytes.length, rawMs, ROWS / rawMs / 1000, clientMs, ROWS / clientMs / 1000);
    }
}
