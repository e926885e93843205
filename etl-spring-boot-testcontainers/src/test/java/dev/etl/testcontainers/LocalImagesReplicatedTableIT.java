package dev.etl.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.clickhouse.ClickHouseSink;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.sink.ShardWriter;
import dev.etl.sink.SinkDefinition;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.testcontainers.clickhouse.ClickHouseContainer;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * A replicated table in containers: the local ZooKeeper and ClickHouse 18.16 images ({@link LocalImages}),
 * the server told where ZooKeeper is by a file in its {@code config.d/}, as a user of the official images
 * does. On it, the dedup that makes a crash replay harmless on 18.16 (a Replicated*MergeTree drops a block
 * whose bytes it has seen, within {@code replicated_deduplication_window}): the sink writes a block, the
 * same block again (the replay of a deterministic chain), and the next one; the table holds each row once.
 * The containers share podman's default network and ClickHouse reaches ZooKeeper at its address there
 * (that network resolves no names).
 */
@RequiresImages({LocalImages.ZOOKEEPER, LocalImages.CLICKHOUSE})
@Testcontainers(disabledWithoutDocker = true)
class LocalImagesReplicatedTableIT {

    static GenericContainer<?> zooKeeper;

    static ClickHouseContainer clickHouse;

    @BeforeAll
    static void startZooKeeperThenClickHouse() {
        zooKeeper = new GenericContainer<>(LocalImages.zooKeeper()).withExposedPorts(2181);
        zooKeeper.start();
        String address = zooKeeper.getContainerInfo().getNetworkSettings().getNetworks().values().stream()
                .map((network) -> network.getIpAddress())
                .filter((ip) -> ip != null && !ip.isEmpty())
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("the ZooKeeper container has no address"));
        clickHouse = new ClickHouseContainer(LocalImages.clickHouse())
                .withCopyToContainer(
                        Transferable.of("""
                                <?xml version="1.0"?>
                                <yandex>
                                    <zookeeper><node><host>%s</host><port>2181</port></node></zookeeper>
                                    <macros><shard>1</shard><replica>r1</replica></macros>
                                </yandex>
                                """.formatted(address)), "/etc/clickhouse-server/config.d/zookeeper.xml");
        clickHouse.start();
    }

    @AfterAll
    static void stop() {
        if (clickHouse != null) {
            clickHouse.stop();
        }
        if (zooKeeper != null) {
            zooKeeper.stop();
        }
    }

    @Test
    void aReplayedBlockIsDroppedByTheReplicatedTableAndTheNextOneLands() throws Exception {
        assertThat(ClickHouseQuery.run(clickHouse, "SELECT count() FROM system.zookeeper WHERE path = '/'")
                        .strip())
                .as("ClickHouse reaches ZooKeeper")
                .isNotEqualTo("0");
        ClickHouseQuery.run(
                clickHouse,
                "CREATE TABLE default.events (id UInt64, encoded_at UInt64) "
                        + "ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/events', '{replica}') ORDER BY id");
        ClickHouseSinkConfig config = ClickHouseSinkConfig.builder()
                .table("default", "events")
                .shard(clickHouse.getHttpUrl())
                .credentials(clickHouse.getUsername(), clickHouse.getPassword())
                .build();
        SinkDefinition sink = ClickHouseSink.definition(
                "clickhouse", "replicated", config, UInt64Blocks.ENCODER, new SimpleMeterRegistry());
        try (ShardWriter writer = sink.writers().apply(0)) {
            writer.write(UInt64Blocks.block(0, 100, 1, "b:clickhouse:0:events-0:0-100"));
            // The replay after a crash: the same records through a deterministic chain, the same bytes.
            writer.write(UInt64Blocks.block(0, 100, 1, "b:clickhouse:0:events-0:0-100"));
            writer.write(UInt64Blocks.block(100, 200, 1, "b:clickhouse:0:events-0:100-200"));
        }
        assertThat(ClickHouseQuery.run(clickHouse, "SELECT count(), uniqExact(id) FROM default.events")
                        .strip())
                .as("the replay of [0, 100) dropped, [100, 200) written")
                .isEqualTo("200\t200");
    }
}
