package dev.etl.it.clickhouse;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.insert.InsertSettings;
import com.clickhouse.data.ClickHouseFormat;
import org.junit.jupiter.api.Test;

import dev.etl.clickhouse.ClickHouseHttpTransport;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.sink.RowBuffer;
import dev.etl.test.infra.ClickHouseHttp;
import dev.etl.test.infra.ClickHouseTestDatabase;
import dev.etl.test.infra.InfraServer;
import dev.etl.test.infra.LocalInfra;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Why the writer speaks raw HTTP: the same RowBinary bodies inserted with client-v2 0.10.0 and with
 * {@link ClickHouseHttpTransport}, alternating rounds, into one MergeTree table on one replica.
 * Prints the medians; asserts only that both paths wrote everything.
 */
@LocalInfra(InfraServer.CLICKHOUSE)
class InsertTransportComparisonIT {
    private static final int ROWS = 50_000;
    private static final int ROUNDS = 12;

    record Row(long id, String name, double value) {
    }

    @Test
    void rawHttpAndClientV2InsertTheSameBodies(ClickHouseTestDatabase db) throws Exception {
        String url = db.endpoints().clickhouseShard(1).replicaUrl(1);
        ClickHouseHttp.query(url, "CREATE TABLE " + db.table("bench") + " (id UInt64, name String, value Float64) "
                + "ENGINE = MergeTree ORDER BY id");
        RowBinaryEncoder<Row> enc = RowBinaryEncoder.<Row>builder().uint64("id", Row::id).string("name", Row::name)
                .float64("value", Row::value).build();
        RowBuffer body = new RowBuffer(4 << 20);
        for (int i = 0; i < ROWS; i++) {
            enc.encode(new Row(i, "customer-" + (i % 1000), i * 0.5), body);
        }
        byte[] bytes = body.toByteArray();
        ClickHouseHttpTransport raw = new ClickHouseHttpTransport(Duration.ofSeconds(2), Duration.ofSeconds(60), null, null,
                false);
        String query = "query=" + URLEncoder.encode("INSERT INTO " + db.table("bench") + " FORMAT RowBinary",
                StandardCharsets.UTF_8) + "&wait_end_of_query=1&insert_deduplicate=1&send_progress_in_http_headers=0";
        long[] rawNs = new long[ROUNDS];
        long[] clientNs = new long[ROUNDS];
        try (Client client = new Client.Builder().addEndpoint(url).setUsername("default").setPassword("")
                .compressServerResponse(false).build()) {
            InsertSettings settings = new InsertSettings().serverSetting("wait_end_of_query", "1")
                    .serverSetting("insert_deduplicate", "1");
            for (int round = 0; round < ROUNDS; round++) {
                long t0 = System.nanoTime();
                raw.insert(URI.create(url), query, bytes, bytes.length);
                long t1 = System.nanoTime();
                client.insert(db.table("bench"), new ByteArrayInputStream(bytes), ClickHouseFormat.RowBinary, settings)
                        .get(60, TimeUnit.SECONDS).close();
                long t2 = System.nanoTime();
                rawNs[round] = t1 - t0;
                clientNs[round] = t2 - t1;
            }
        }
        assertThat(ClickHouseHttp.query(url, "SELECT count() FROM " + db.table("bench")).strip())
                .isEqualTo(Long.toString(2L * ROUNDS * ROWS));
        java.util.Arrays.sort(rawNs);
        java.util.Arrays.sort(clientNs);
        double rawMs = rawNs[ROUNDS / 2] / 1e6;
        double clientMs = clientNs[ROUNDS / 2] / 1e6;
        System.out.printf("InsertTransportComparisonIT: %d rows (%d bytes) per insert, median raw HTTP %.1f ms "
                + "(%.2fM rows/s), client-v2 %.1f ms (%.2fM rows/s)%n", ROWS, bytes.length, rawMs, ROWS / rawMs / 1000,
                clientMs, ROWS / clientMs / 1000);
    }
}
