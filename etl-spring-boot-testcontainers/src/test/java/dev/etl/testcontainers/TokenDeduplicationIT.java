package dev.etl.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.clickhouse.ClickHouseSink;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.sink.ShardWriter;
import dev.etl.sink.SinkDefinition;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import org.junit.jupiter.api.Test;
import org.testcontainers.clickhouse.ClickHouseContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * The token path of crash replay without duplicates (issue 14), on a server that has
 * {@code insert_deduplication_token} (this repository's local servers are 18.16, which has not): the
 * ClickHouse sink detects the setting and sends each block's range token, so a replayed block is dropped
 * even when its bytes differ from what was written before the crash (a chain that is not deterministic
 * per record), on a plain MergeTree with {@code non_replicated_deduplication_window}. Runs where a Docker
 * API answers and the 24.8 image can be had; elsewhere JUnit skips it, saying so (this repository's CI
 * has podman's Docker API but no registry, and no 24.8 image can be built here: its local ClickHouse image
 * is 18.16, which has no token).
 */
@RequiresImages("clickhouse/clickhouse-server:24.8")
@Testcontainers(disabledWithoutDocker = true)
class TokenDeduplicationIT {

    @Container
    static final ClickHouseContainer clickHouse = new ClickHouseContainer("clickhouse/clickhouse-server:24.8");

    @Test
    void aReplayedBlockWhoseBytesDifferIsDroppedByItsRangeTokenAndAnotherRangeLands() throws Exception {
        URI url = URI.create(clickHouse.getHttpUrl());
        ClickHouseQuery.run(
                clickHouse,
                "CREATE TABLE default.events (id UInt64, encoded_at UInt64) ENGINE = MergeTree ORDER BY id "
                        + "SETTINGS non_replicated_deduplication_window = 1000");
        ClickHouseSinkConfig config = ClickHouseSinkConfig.builder()
                .table("default", "events")
                .shard(url.toString())
                .credentials(clickHouse.getUsername(), clickHouse.getPassword())
                .build();
        SinkDefinition sink = ClickHouseSink.definition(
                "clickhouse", "tokens", config, UInt64Blocks.ENCODER, new SimpleMeterRegistry());
        try (ShardWriter writer = sink.writers().apply(0)) {
            String range = "b:clickhouse:0:events-0:0-100";
            writer.write(UInt64Blocks.block(0, 100, 1, range));
            // The replay: the same range, encoded again at another time (different bytes, same token).
            writer.write(UInt64Blocks.block(0, 100, 2, range));
            // The next block: another range.
            writer.write(UInt64Blocks.block(100, 200, 2, "b:clickhouse:0:events-0:100-200"));
        }
        assertThat(ClickHouseQuery.run(
                                clickHouse,
                                "SELECT count(), uniqExact(id), countIf(encoded_at = 1) FROM default.events "
                                        + "WHERE id < 100 FORMAT TabSeparated")
                        .strip())
                .as("the replay of [0, 100) dropped")
                .isEqualTo("100\t100\t100");
        assertThat(ClickHouseQuery.run(clickHouse, "SELECT count() FROM default.events FORMAT TabSeparated")
                        .strip())
                .isEqualTo("200");
    }
}
