package dev.etl.it.clickhouse;

import static dev.etl.it.clickhouse.FaultRig.HTTP;
import static dev.etl.it.clickhouse.FaultRig.inserts;
import static dev.etl.it.clickhouse.FaultRig.sinkRetries;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.clickhouse.ClickHouseSink;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.ClickHouseSinkConfig.Transport;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.RunReport;
import dev.etl.sink.BatchConfig;
import dev.etl.sink.ChunkConfig;
import dev.etl.sink.KeyHashRouter;
import dev.etl.sink.RetryConfig;
import dev.etl.sink.SinkDefinition;
import dev.etl.test.infra.ClickHouseInstance;
import dev.etl.test.infra.ClickHouseTestDatabase;
import dev.etl.test.infra.InfraServer;
import dev.etl.test.infra.LocalInfra;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A sealed batch whose insert committed but whose answer was lost is retried by the engine, same
 * bytes, on the other replica, and the Replicated table keeps one copy.
 *
 * <p>Replica 1 of shard 0 ({@code s1r1}) sits behind a {@link LostAnswerProxy}: armed, it delivers
 * the next insert to the server and drops the answer. As soon as the server has answered (the part
 * is committed and its block checksum is in ZooKeeper) the test freezes {@code s1r1} with SIGSTOP,
 * so the client's socket timeout fires, the shard worker retries the batch and the writer sends it
 * to {@code s1r2}, which recognises the block and drops it. Inserts that time out against the frozen
 * server meanwhile are still in its socket buffers; after SIGCONT it executes them too, and they are
 * deduplicated the same way. Finally every replica holds each id exactly once.
 *
 * <p>Runs with both insert transports (client-v2, raw HTTP): each has its own socket-timeout path.
 *
 * <p><b>Destructive</b>: SIGSTOPs {@code s1r1} for a few seconds (SIGCONT in {@code finally}).
 */
@LocalInfra(InfraServer.CLICKHOUSE)
class ClickHouseLostAnswerIT {
    private static final int PHASE_ROWS = 50_000;

    @ParameterizedTest
    @EnumSource(Transport.class)
    void retriedBatchWhoseInsertCommittedLeavesNoDuplicate(Transport transport, ClickHouseTestDatabase db)
            throws Exception {
        long t0 = System.nanoTime();
        String table = "lost_" + transport.name().toLowerCase(Locale.ROOT);
        FaultRig rig = new FaultRig(db, table, KeyHashRouter.byKey(FaultRig::id));
        String s1r1 = rig.infra.clickhouseShard(1).replicaUrl(1);
        String s1r2 = rig.infra.clickhouseShard(1).replicaUrl(2);
        ClickHouseInstance frozen = ClickHouseInstance.of(rig.infra, 1, 1);

        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RunReport report = null;
        try (LostAnswerProxy proxy = new LostAnswerProxy(s1r1)) {
            ClickHouseSinkConfig config = ClickHouseSinkConfig.builder()
                    .table(db.name(), table)
                    .transport(transport)
                    .shard(proxy.url(), s1r2)
                    .shard(rig.infra.clickhouseShard(2).replicaUrls().toArray(String[]::new))
                    .connectTimeout(Duration.ofSeconds(1))
                    .socketTimeout(Duration.ofSeconds(2))
                    .breaker(3, Duration.ofSeconds(1))
                    .batch(new BatchConfig(10_000, 32L << 20, Duration.ofMillis(100)))
                    .retry(new RetryConfig(0, Duration.ofMillis(50), Duration.ofMillis(500), 2.0, 0.2))
                    .build();
            SinkDefinition sink =
                    ClickHouseSink.definition("clickhouse", "ch-lost", config, FaultRig.ENCODER, registry);
            PipelineRuntime runtime = rig.pipeline(
                    PipelineConfig.builder("ch-lost")
                            .lanes(2)
                            .ioThreads(2)
                            .checkpointInterval(Duration.ofMillis(100))
                            .build(),
                    sink,
                    registry,
                    new ChunkConfig(2_000, 1 << 20));
            rig.handle.assign(0, 0, 1, 2, 3);
            rig.handle.assign(1, 4, 5, 6, 7);
            runtime.start();
            try {
                rig.push(PHASE_ROWS, 0, 1, 2, 3, 4, 5, 6, 7);
                rig.awaitAllCommitted(Duration.ofSeconds(20));
                rig.awaitContent(0, s1r2, Duration.ofSeconds(10));
                long duplicatesBefore = duplicatedBlocks(s1r2);
                assertThat(inserts(registry, 0, proxy.url(), "success"))
                        .as("the proxied replica takes writes")
                        .isPositive();

                proxy.arm();
                rig.push(PHASE_ROWS, 0, 1, 2, 3, 4, 5, 6, 7);
                String answer = proxy.swallowedAnswer().get(20, TimeUnit.SECONDS);
                frozen.stop();
                System.out.printf(
                        "ClickHouseLostAnswerIT[" + transport + "]: answer '%s' swallowed, %s frozen at %.1f s%n",
                        answer,
                        frozen,
                        FaultRig.nowSeconds(t0));
                assertThat(answer)
                        .as("the insert whose answer was lost had committed")
                        .startsWith("HTTP/1.1 200");

                rig.awaitAllCommitted(Duration.ofSeconds(30)); // the retries went to s1r2
                assertThat(inserts(registry, 0, proxy.url(), "transient"))
                        .as("the lost answer timed out")
                        .isPositive();
                assertThat(sinkRetries(registry, 0))
                        .as("the engine retried the batch")
                        .isPositive();
                assertThat(duplicatedBlocks(s1r2))
                        .as("s1r2 recognised the retried block")
                        .isGreaterThan(duplicatesBefore);
                // (the deduplicated rows reach s1r2 by replication from s1r1 once it runs again)

                frozen.resume();
                System.out.printf(
                        "ClickHouseLostAnswerIT[" + transport + "]: %s resumed at %.1f s%n",
                        frozen,
                        FaultRig.nowSeconds(t0));
                rig.push(PHASE_ROWS, 0, 1, 2, 3, 4, 5, 6, 7);
                rig.awaitAllCommitted(Duration.ofSeconds(20));
            } finally {
                try {
                    frozen.restore(); // first, so that the drain below can finish
                } finally {
                    runtime.shutdownHandle().trigger();
                    report = runtime.awaitTermination(Duration.ofSeconds(30));
                }
            }
        }
        assertThat(report.exitCode()).isZero();
        for (int shard = 0; shard < 2; shard++) {
            for (String url : rig.infra.clickhouseShard(shard + 1).replicaUrls()) {
                rig.awaitContent(shard, url, Duration.ofSeconds(15));
            }
        }
        System.out.printf(
                "ClickHouseLostAnswerIT[" + transport + "]: %d + %d rows, each once on every replica, at %.1f s%n",
                rig.count[0],
                rig.count[1],
                FaultRig.nowSeconds(t0));
    }

    private static long duplicatedBlocks(String url) {
        String v = HTTP.execute(url, "SELECT sum(value) FROM system.events WHERE event = 'DuplicatedInsertedBlocks'")
                .trim();
        return v.isEmpty() ? 0 : Long.parseLong(v);
    }
}
