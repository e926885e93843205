package dev.etl.it.clickhouse;

import static dev.etl.it.clickhouse.FaultRig.await;
import static dev.etl.it.clickhouse.FaultRig.healthy;
import static dev.etl.it.clickhouse.FaultRig.inserts;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.clickhouse.ClickHouseSink;
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
import org.junit.jupiter.api.Test;

/**
 * kill -9 of one replica while the engine writes about 300k rows to a ReplicatedMergeTree on both shards:
 * writes rotate to the other replica of the shard, nothing is lost, the replica's health gauge drops
 * to 0; restarted, the replica passes its half-open probe, takes writes again and catches up. Uses
 * the default insert transport (client-v2).
 *
 * <p><b>Destructive</b>: kills and restarts {@code s1r1} of the infrastructure the test runs against
 * (run it against a private {@code ETL_INFRA_DIR} while others use the shared one). The replica is
 * restarted in {@code finally}. Usually takes about 4 s. A replica killed with SIGKILL leaves its
 * {@code is_active} node in ZooKeeper until the session expires (30 s; the restarted server logs
 * "appears to be already active" meanwhile); here it still fetched what its twin took within a second
 * or two, but the final wait for the restarted replica's content allows 45 s in case it does not.
 */
@LocalInfra(InfraServer.CLICKHOUSE)
class ClickHouseReplicaKillIT {
    private static final int PHASE_ROWS = 130_000;

    @Test
    void killedReplicaIsRotatedAroundLosesNothingAndRejoins(ClickHouseTestDatabase db) throws Exception {
        long t0 = System.nanoTime();
        FaultRig rig = new FaultRig(db, "kill", KeyHashRouter.byKey(FaultRig::id));
        String victim = rig.infra.clickhouseShard(1).replicaUrl(1); // shard index 0
        String twin = rig.infra.clickhouseShard(1).replicaUrl(2);
        ClickHouseInstance instance = ClickHouseInstance.of(rig.infra, 1, 1);

        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        SinkDefinition sink = ClickHouseSink.definition(
                "clickhouse",
                "ch-kill",
                rig.sinkConfig()
                        .connectTimeout(Duration.ofSeconds(1))
                        .socketTimeout(Duration.ofSeconds(10))
                        .breaker(2, Duration.ofSeconds(1))
                        .batch(new BatchConfig(10_000, 32L << 20, Duration.ofMillis(100)))
                        .retry(new RetryConfig(0, Duration.ofMillis(50), Duration.ofMillis(500), 2.0, 0.2))
                        .build(),
                FaultRig.ENCODER,
                registry);
        PipelineRuntime runtime = rig.pipeline(
                PipelineConfig.builder("ch-kill")
                        .lanes(2)
                        .ioThreads(2)
                        .checkpointInterval(Duration.ofMillis(100))
                        .build(),
                sink,
                registry,
                new ChunkConfig(2_000, 1 << 20));
        rig.handle.assign(0, 0, 1, 2, 3);
        rig.handle.assign(1, 4, 5, 6, 7);
        RunReport report = null;
        runtime.start();
        try {
            // phase A: all replicas up
            rig.push(PHASE_ROWS, 0, 1, 2, 3, 4, 5, 6, 7);
            rig.awaitAllCommitted(Duration.ofSeconds(20));
            // the twin holds everything the victim took, so nothing it needs is on the dead server
            rig.awaitContent(0, twin, Duration.ofSeconds(10));
            assertThat(healthy(registry, 0, victim)).isEqualTo(1);
            double victimOkBefore = inserts(registry, 0, victim, "success");
            double twinOkBefore = inserts(registry, 0, twin, "success");
            assertThat(victimOkBefore)
                    .as("round-robin used the victim before the kill")
                    .isPositive();

            instance.kill(Duration.ofSeconds(10));
            System.out.printf("ClickHouseReplicaKillIT: killed %s at %.1f s%n", instance, FaultRig.nowSeconds(t0));

            // phase B: the victim is dead
            rig.push(PHASE_ROWS, 0, 1, 2, 3, 4, 5, 6, 7);
            assertThat(await(() -> healthy(registry, 0, victim) == 0, Duration.ofSeconds(15)))
                    .as("health gauge of the killed replica drops to 0")
                    .isTrue();
            rig.awaitAllCommitted(Duration.ofSeconds(30));
            assertThat(healthy(registry, 0, victim))
                    .as("still 0 while it is down")
                    .isZero();
            assertThat(healthy(registry, 0, twin)).isEqualTo(1);
            assertThat(inserts(registry, 0, victim, "success"))
                    .as("no write reached the dead replica")
                    .isEqualTo(victimOkBefore);
            assertThat(inserts(registry, 0, victim, "transient")).isGreaterThanOrEqualTo(2);
            assertThat(inserts(registry, 0, twin, "success"))
                    .as("writes rotated to the twin")
                    .isGreaterThan(twinOkBefore);
            rig.awaitContent(0, twin, Duration.ofSeconds(10)); // nothing lost, nothing doubled on the survivor
            rig.awaitContent(1, rig.infra.clickhouseShard(2).replicaUrl(1), Duration.ofSeconds(10));

            instance.restart(Duration.ofSeconds(30));
            System.out.printf("ClickHouseReplicaKillIT: restarted %s at %.1f s%n", instance, FaultRig.nowSeconds(t0));

            // phase C: keep writing until the victim has passed its half-open probe and taken writes again
            double victimOkDown = inserts(registry, 0, victim, "success");
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            int rounds = 0;
            while (!(healthy(registry, 0, victim) == 1 && inserts(registry, 0, victim, "success") > victimOkDown)) {
                assertThat(System.nanoTime() - deadline)
                        .as("victim rejoined within 20 s")
                        .isNegative();
                rig.push(PHASE_ROWS / 10, 0, 1, 2, 3, 4, 5, 6, 7);
                rounds++;
                FaultRig.sleep(300);
            }
            rig.awaitAllCommitted(Duration.ofSeconds(20));
            System.out.printf(
                    "ClickHouseReplicaKillIT: victim healthy again after %d rounds, at %.1f s%n",
                    rounds, FaultRig.nowSeconds(t0));
        } finally {
            try {
                instance.restore(); // first, so that the drain below can finish
            } finally {
                runtime.shutdownHandle().trigger();
                report = runtime.awaitTermination(Duration.ofSeconds(30));
            }
        }
        assertThat(report.exitCode()).isZero();
        assertThat(healthy(registry, 0, victim)).isEqualTo(1);
        // every replica ends with exactly its shard's ids: the restarted one once its replication resumed
        rig.awaitContent(0, twin, Duration.ofSeconds(10));
        rig.awaitContent(0, victim, Duration.ofSeconds(45));
        for (String url : rig.infra.clickhouseShard(2).replicaUrls()) {
            rig.awaitContent(1, url, Duration.ofSeconds(10));
        }
        System.out.printf(
                "ClickHouseReplicaKillIT: shard 0 %d rows, shard 1 %d rows, all replicas in sync at %.1f s%n",
                rig.count[0], rig.count[1], FaultRig.nowSeconds(t0));
    }
}
