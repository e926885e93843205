package dev.etl.it.clickhouse;

import static dev.etl.it.clickhouse.FaultRig.await;
import static dev.etl.it.clickhouse.FaultRig.healthy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.clickhouse.ClickHouseSink;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.ClickHouseSinkConfig.Transport;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.RunReport;
import dev.etl.sink.BatchConfig;
import dev.etl.sink.ChunkConfig;
import dev.etl.sink.RetryConfig;
import dev.etl.sink.Router;
import dev.etl.sink.SinkDefinition;
import dev.etl.test.infra.ClickHouseInstance;
import dev.etl.test.infra.ClickHouseTestDatabase;
import dev.etl.test.infra.InfraServer;
import dev.etl.test.infra.LocalInfra;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every replica of one shard down: the partitions with data for that shard stall (nothing is
 * committed past their unwritten rows), their lane pauses, the partitions writing to the other shard
 * keep committing; once the shard is back the run completes with nothing lost or doubled.
 *
 * <p>Rows are routed by source partition, so the effect is observable per partition: partitions 0-3
 * (lane 0) go to shard 0, partitions 4-7 (lane 1) to shard 1. Shard 1 ({@code s2r1}, {@code s2r2}) is
 * frozen with SIGSTOP: connections are accepted, nothing answers, inserts time out.
 *
 * <p>Runs with both insert transports (client-v2, raw HTTP).
 *
 * <p><b>Destructive</b>: SIGSTOPs both replicas of shard 2 for about 7 s per transport (SIGCONT in
 * {@code finally}).
 */
@LocalInfra(InfraServer.CLICKHOUSE)
class ClickHouseShardOutageIT {
    private static final Router<byte[]> BY_PARTITION = (value, meta, shards) -> meta.partition() < 4 ? 0 : 1;
    private static final int[] TO_SHARD_0 = {0, 1, 2, 3};
    private static final int[] TO_SHARD_1 = {4, 5, 6, 7};
    private static final int BATCH_ROWS = 5_000;
    private static final int QUEUE_CAPACITY = 4;
    /** The sink's default: the dead shard's partitions are spread over this many writers, each with a queue. */
    private static final int WRITERS = ClickHouseSinkConfig.DEFAULT_WRITERS_PER_SHARD;
    /**
     * What the dead shard can absorb before its lane must pause: a queue entry is a deterministic block
     * (up to the batch's max-rows, not a chunk), so each of its writers' queues holds {@code QUEUE_CAPACITY}
     * blocks and the writer one more batch. The outage pushes twice that for the dead shard, so the lane pauses
     * by construction, not by how the polls happened to cut the blocks.
     */
    private static final int DEAD_SHARD_ABSORBS = WRITERS * (QUEUE_CAPACITY + 1) * BATCH_ROWS;

    @ParameterizedTest
    @EnumSource(Transport.class)
    void shardDownStallsItsPartitionsPausesTheirLaneAndLosesNothing(Transport transport, ClickHouseTestDatabase db)
            throws Exception {
        long t0 = System.nanoTime();
        FaultRig rig = new FaultRig(db, "outage_" + transport.name().toLowerCase(Locale.ROOT), BY_PARTITION);
        List<String> shard1 = rig.infra.clickhouseShard(2).replicaUrls();
        List<ClickHouseInstance> down =
                List.of(ClickHouseInstance.of(rig.infra, 2, 1), ClickHouseInstance.of(rig.infra, 2, 2));

        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        SinkDefinition sink = ClickHouseSink.definition(
                        "clickhouse",
                        "ch-outage",
                        rig.sinkConfig()
                                .transport(transport)
                                .connectTimeout(Duration.ofSeconds(1))
                                .socketTimeout(Duration.ofMillis(1500))
                                .breaker(1, Duration.ofSeconds(1))
                                .batch(new BatchConfig(BATCH_ROWS, 32L << 20, Duration.ofMillis(50)))
                                .retry(new RetryConfig(0, Duration.ofMillis(50), Duration.ofMillis(500), 2.0, 0.2))
                                .build(),
                        FaultRig.ENCODER,
                        registry)
                .toBuilder()
                .queueCapacity(QUEUE_CAPACITY)
                .build();
        PipelineRuntime runtime = rig.pipeline(
                PipelineConfig.builder("ch-outage")
                        .lanes(2)
                        .ioThreads(2)
                        .checkpointInterval(Duration.ofMillis(100))
                        .build(),
                sink,
                registry,
                new ChunkConfig(1_000, 1 << 20));
        rig.handle.assign(0, TO_SHARD_0);
        rig.handle.assign(1, TO_SHARD_1);
        RunReport report = null;
        runtime.start();
        try {
            rig.push(20_000, 0, 1, 2, 3, 4, 5, 6, 7);
            rig.awaitAllCommitted(Duration.ofSeconds(20));
            long[] before = rig.ends();
            for (String url : shard1) {
                rig.awaitContent(1, url, Duration.ofSeconds(10));
            }

            down.forEach(ClickHouseInstance::stop);
            System.out.printf(
                    "ClickHouseShardOutageIT[" + transport + "]: shard 1 frozen at %.1f s%n", FaultRig.nowSeconds(t0));
            rig.push(4 * DEAD_SHARD_ABSORBS, 0, 1, 2, 3, 4, 5, 6, 7); // twice what shard 1 can absorb, for each shard

            // the healthy shard's partitions commit everything, their lane keeps running
            rig.awaitCommitted(TO_SHARD_0, Duration.ofSeconds(15));
            // the dead shard's lane pauses once its queue is full
            assertThat(await(() -> rig.handle.isPaused(1), Duration.ofSeconds(15)))
                    .as("lane 1 paused")
                    .isTrue();
            assertThat(registry.get("etl.backpressure.paused.lanes").gauge().value())
                    .isGreaterThanOrEqualTo(1);
            // every replica of the shard is unhealthy (the alert's condition)
            assertThat(await(
                            () -> shard1.stream().allMatch(url -> healthy(registry, 1, url) == 0),
                            Duration.ofSeconds(15)))
                    .as("both replicas of shard 1 unhealthy at once")
                    .isTrue();
            // and nothing is committed past the unwritten rows, for as long as it lasts; the replicas stay
            // unhealthy throughout, also while a half-open probe waits for its (never coming) answer
            long stallUntil = System.nanoTime() + Duration.ofSeconds(3).toNanos();
            List<String> samples = new ArrayList<>();
            while (System.nanoTime() - stallUntil < 0) {
                for (int p : TO_SHARD_1) {
                    assertThat(rig.handle.lastCommitted(p))
                            .as("partition %d stalls at its last written offset", p)
                            .isEqualTo(before[p]);
                }
                assertThat(rig.handle.isPaused(0))
                        .as("lane 0 (healthy shard) not paused")
                        .isFalse();
                for (String url : shard1) {
                    assertThat(healthy(registry, 1, url))
                            .as("health of %s while its shard is down", url)
                            .isZero();
                }
                FaultRig.sleep(100);
            }
            for (int p : TO_SHARD_1) {
                samples.add(p + ": committed " + rig.handle.lastCommitted(p) + " of " + rig.end[p]);
            }
            // more data for the healthy shard still flows while shard 1 is down
            rig.push(10_000, TO_SHARD_0);
            rig.awaitCommitted(TO_SHARD_0, Duration.ofSeconds(15));
            System.out.printf(
                    "ClickHouseShardOutageIT[" + transport
                            + "]: stalled %s; shard 0 partitions committed through; at %.1f s%n",
                    samples,
                    FaultRig.nowSeconds(t0));

            down.forEach(ClickHouseInstance::resume);
            System.out.printf(
                    "ClickHouseShardOutageIT[" + transport + "]: shard 1 resumed at %.1f s%n", FaultRig.nowSeconds(t0));
            rig.awaitAllCommitted(Duration.ofSeconds(30));
            assertThat(await(() -> !rig.handle.isPaused(1), Duration.ofSeconds(10)))
                    .as("lane 1 resumed")
                    .isTrue();
            rig.push(20_000, 0, 1, 2, 3, 4, 5, 6, 7);
            rig.awaitAllCommitted(Duration.ofSeconds(20));
            System.out.printf(
                    "ClickHouseShardOutageIT[" + transport + "]: everything committed at %.1f s%n",
                    FaultRig.nowSeconds(t0));
        } finally {
            try {
                FaultRig.restoreAll(down); // first, so that the drain below can finish
            } finally {
                runtime.shutdownHandle().trigger();
                report = runtime.awaitTermination(Duration.ofSeconds(30));
            }
        }
        assertThat(report.exitCode()).isZero();
        for (int shard = 0; shard < 2; shard++) {
            for (String url : rig.infra.clickhouseShard(shard + 1).replicaUrls()) {
                rig.awaitContent(shard, url, Duration.ofSeconds(15));
            }
        }
        System.out.printf(
                "ClickHouseShardOutageIT[" + transport + "]: %d + %d rows, each once on every replica, at %.1f s%n",
                rig.count[0],
                rig.count[1],
                FaultRig.nowSeconds(t0));
    }
}
