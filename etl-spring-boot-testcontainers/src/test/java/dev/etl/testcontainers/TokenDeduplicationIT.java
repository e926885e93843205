package dev.etl.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.clickhouse.ClickHouseSink;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.sink.SealedBatch;
import dev.etl.sink.ShardWriter;
import dev.etl.sink.SinkDefinition;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.testcontainers.clickhouse.ClickHouseContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * The token path of crash replay without duplicates (issue 14), on a server that has
 * {@code insert_deduplication_token} (this repository's local servers are 18.16, which has not): the
 * ClickHouse sink detects the setting and sends each block's range token, so a replayed block is dropped
 * even when its bytes differ from what was written before the crash (a chain that is not deterministic
 * per record), on a plain MergeTree with {@code non_replicated_deduplication_window}. Runs only where
 * Docker answers; elsewhere (this repository's CI has no Docker) JUnit skips it.
 */
@Testcontainers(disabledWithoutDocker = true)
class TokenDeduplicationIT {

    @Container
    static final ClickHouseContainer clickHouse = new ClickHouseContainer("clickhouse/clickhouse-server:24.8");

    private static final RowBinaryEncoder<long[]> ENCODER = RowBinaryEncoder.<long[]>builder()
            .uint64("id", (row) -> row[0])
            .uint64("encoded_at", (row) -> row[1])
            .build();

    @Test
    void aReplayedBlockWhoseBytesDifferIsDroppedByItsRangeTokenAndAnotherRangeLands() throws Exception {
        URI url = URI.create(clickHouse.getHttpUrl());
        query(
                url,
                "CREATE TABLE default.events (id UInt64, encoded_at UInt64) ENGINE = MergeTree ORDER BY id "
                        + "SETTINGS non_replicated_deduplication_window = 1000");
        ClickHouseSinkConfig config = ClickHouseSinkConfig.builder()
                .table("default", "events")
                .shard(url.toString())
                .credentials(clickHouse.getUsername(), clickHouse.getPassword())
                .build();
        SinkDefinition sink =
                ClickHouseSink.definition("clickhouse", "tokens", config, ENCODER, new SimpleMeterRegistry());
        try (ShardWriter writer = sink.writers().apply(0)) {
            String range = "b:clickhouse:0:events-0:0-100";
            writer.write(batch(0, 100, 1, range));
            // The replay: the same range, encoded again at another time (different bytes, same token).
            writer.write(batch(0, 100, 2, range));
            // The next block: another range.
            writer.write(batch(100, 200, 2, "b:clickhouse:0:events-0:100-200"));
        }
        assertThat(query(
                                url,
                                "SELECT count(), uniqExact(id), countIf(encoded_at = 1) FROM default.events "
                                        + "WHERE id < 100 FORMAT TabSeparated")
                        .strip())
                .as("the replay of [0, 100) dropped")
                .isEqualTo("100\t100\t100");
        assertThat(query(url, "SELECT count() FROM default.events FORMAT TabSeparated")
                        .strip())
                .isEqualTo("200");
    }

    /** RowBinary rows {@code (id, encodedAt)} for ids in {@code [from, to)}, as one sealed block. */
    private static SealedBatch batch(long from, long to, long encodedAt, String token) {
        int rows = (int) (to - from);
        ByteBuffer bytes = ByteBuffer.allocate(rows * 16).order(ByteOrder.LITTLE_ENDIAN);
        for (long id = from; id < to; id++) {
            bytes.putLong(id).putLong(encodedAt);
        }
        return new SealedBatch() {
            @Override
            public String sinkName() {
                return "clickhouse";
            }

            @Override
            public int shard() {
                return 0;
            }

            @Override
            public long sequence() {
                return from;
            }

            @Override
            public byte[] bytes() {
                return bytes.array();
            }

            @Override
            public int byteCount() {
                return bytes.capacity();
            }

            @Override
            public int rowCount() {
                return rows;
            }

            @Override
            public String dedupToken() {
                return token;
            }

            @Override
            public int attempt() {
                return 1;
            }
        };
    }

    private static String query(URI url, String sql) throws Exception {
        String auth = Base64.getEncoder()
                .encodeToString(
                        (clickHouse.getUsername() + ":" + clickHouse.getPassword()).getBytes(StandardCharsets.UTF_8));
        HttpRequest request = HttpRequest.newBuilder(
                        URI.create(url + "/?query=" + URLEncoder.encode(sql, StandardCharsets.UTF_8)))
                .header("Authorization", "Basic " + auth)
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build();
        HttpResponse<String> response = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("%s: %s", sql, response.body()).isEqualTo(200);
        return response.body();
    }
}
