package dev.etl.it.kafka;

import static dev.etl.it.kafka.KafkaItSupport.produce;
import static dev.etl.it.support.ChildLogs.recordsIn;
import static dev.etl.it.support.ChildLogs.replayedIn;
import static dev.etl.it.support.ChildLogs.tail;
import static dev.etl.it.support.ConsumerGroupOffsets.committed;
import static dev.etl.it.support.ConsumerGroupOffsets.endOffsets;
import static dev.etl.it.support.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.etl.test.infra.ClickHouseHttp;
import dev.etl.test.infra.ClickHouseTestDatabase;
import dev.etl.test.infra.InfraEndpoints;
import dev.etl.test.infra.KafkaTestTopics;
import dev.etl.test.infra.LocalInfra;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Crash replay without duplicates (issue 14), end to end against the local servers: a producer writes
 * {@value #N} ids while {@link DedupChildPipeline} (deterministic blocks, an hour-long checkpoint
 * interval) is SIGKILLed {@value #KILLS} times at random moments — while blocks are sealed by linger and
 * written, and once in the middle of a rebalance's revoke (two instances in the group, one killed as the
 * other joins) — then one last run drains. Every replica of the ReplicatedMergeTree table (18.16: no
 * token setting, deduplication by block checksum) must then hold every id exactly once, checked with
 * {@code count()} against {@code uniqExact(id)} without FINAL.
 *
 * <p>Seeded ({@code -Detl.it.seed}); the seed and each kill's moment are logged.
 */
@LocalInfra
class ReplayWithoutDuplicatesIT {
    private static final Logger log = LoggerFactory.getLogger(ReplayWithoutDuplicatesIT.class);
    private static final int PARTITIONS = 4;
    private static final int N = 60_000;
    private static final int KILLS = 6;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void sigkillAtRandomMomentsLosesNothingAndDuplicatesNothing(
            InfraEndpoints infra, ClickHouseTestDatabase db, KafkaTestTopics topics, @TempDir Path dir)
            throws Exception {
        long seed = Long.getLong("etl.it.seed", System.nanoTime());
        Random random = new Random(seed);
        log.info("replay without duplicates: seed {}", seed);
        String topic = topics.create("replay-dedup", PARTITIONS);
        String group = "it-" + topic;
        db.execute("CREATE TABLE " + db.table("orders") + " ON CLUSTER " + db.cluster()
                + " (id UInt64) ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/" + db.name()
                + "/orders', '{replica}') ORDER BY id SETTINGS replicated_deduplication_window = 1000");
        long duplicatedBefore = duplicatedBlocks(infra);

        // Ids arrive while the pipeline is killed and restarted: 1,500 a second for 40 s, longer than the kills
        // take, so every run has records to poll.
        AtomicReference<Throwable> producerFailure = new AtomicReference<>();
        Thread producer = new Thread(
                () -> {
                    try {
                        for (int from = 0; from < N; from += 600) {
                            produce(topics.bootstrapServers(), topic, PARTITIONS, from, Math.min(N, from + 600));
                            Thread.sleep(400);
                        }
                    } catch (Throwable t) {
                        producerFailure.set(t);
                    }
                },
                "it-producer");
        producer.start();

        int run = 0;
        for (int kill = 0; kill < KILLS; kill++) {
            Path logA = dir.resolve("run-" + (++run) + ".log");
            Process a = start(infra, db, topics, topic, group, logA);
            try {
                await(
                        Duration.ofSeconds(60),
                        "run " + run + " to poll (log " + logA + ")",
                        () -> alive(a, logA) && (recordsIn(logA) > 0 || caughtUp(producer, topics, topic, group)));
                if (kill == 2) {
                    // During a revoke: a second instance joins, the group rebalances (cooperative: the first
                    // revokes what moves), and the first dies in the middle of it.
                    Path logB = dir.resolve("run-" + (++run) + ".log");
                    Process b = start(infra, db, topics, topic, group, logB);
                    try {
                        await(
                                Duration.ofSeconds(60),
                                "run " + run + " to start",
                                () -> alive(b, logB) && Files.readString(logB).contains("STARTED"));
                        Thread.sleep(300 + random.nextInt(700));
                        log.info("kill {}: run {} during the rebalance", kill + 1, run - 1);
                        kill(a);
                        await(
                                Duration.ofSeconds(60),
                                "run " + run + " to poll",
                                () -> alive(b, logB)
                                        && (recordsIn(logB) > 0 || caughtUp(producer, topics, topic, group)));
                        Thread.sleep(500 + random.nextInt(1_500));
                    } finally {
                        log.info("kill {}: run {}", kill + 1, run);
                        kill(b);
                    }
                    continue;
                }
                Thread.sleep(500 + random.nextInt(2_500));
            } finally {
                if (a.isAlive()) {
                    log.info("kill {}: run {} after {} records", kill + 1, run, recordsIn(logA));
                    kill(a);
                }
            }
        }
        producer.join(TimeUnit.SECONDS.toMillis(60));
        assertThat(producerFailure.get()).as("producer").isNull();

        Map<TopicPartition, Long> end = endOffsets(topics.admin(), topic, PARTITIONS);
        Path last = dir.resolve("run-" + (++run) + ".log");
        Process drain = start(infra, db, topics, topic, group, last);
        try {
            // Started first: its shutdown hook (which drains and prints DRAINED) is in place before the SIGTERM.
            await(
                    Duration.ofSeconds(60),
                    "the last run to start (log " + last + ")",
                    () -> alive(drain, last) && Files.readString(last).contains("STARTED"));
            await(Duration.ofSeconds(120), "the last run to commit everything (log " + last + ")", () -> {
                assertThat(drain.isAlive())
                        .as("last run alive; log:\n%s", tail(last))
                        .isTrue();
                return committed(topics.admin(), group).equals(end);
            });
        } finally {
            drain.destroy(); // SIGTERM
            if (!drain.waitFor(40, TimeUnit.SECONDS)) {
                drain.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        assertThat(Files.readString(last)).as("the last run's log").contains("DRAINED exitCode=0");

        long total = 0;
        for (InfraEndpoints.ClickHouseShard shard : infra.clickhouseShards()) {
            long shardCount = -1;
            for (String url : shard.replicaUrls()) {
                ClickHouseHttp.query(url, "SYSTEM SYNC REPLICA " + db.table("orders"));
                String[] counts = ClickHouseHttp.query(
                                url,
                                "SELECT count(), uniqExact(id) FROM " + db.table("orders") + " FORMAT TabSeparated")
                        .strip()
                        .split("\t");
                long count = Long.parseLong(counts[0]);
                long distinct = Long.parseLong(counts[1]);
                log.info("replica {}: count {} uniqExact {}", url, count, distinct);
                assertThat(count)
                        .as("rows on %s equal distinct ids: no duplicate", url)
                        .isEqualTo(distinct);
                if (shardCount >= 0) {
                    assertThat(count)
                            .as("both replicas of the shard hold the same rows")
                            .isEqualTo(shardCount);
                }
                shardCount = count;
            }
            total += shardCount;
        }
        long duplicated = duplicatedBlocks(infra) - duplicatedBefore;
        long replayed = 0;
        for (int r = 1; r <= run; r++) {
            replayed += replayedIn(dir.resolve("run-" + r + ".log"));
        }
        log.info("replay without duplicates: the runs replayed {} blocks at recorded boundaries", replayed);
        log.info(
                "replay without duplicates: {} ids in ClickHouse of {} after {} kills; {} replayed blocks dropped by "
                        + "the servers (DuplicatedInsertedBlocks); seed {}",
                total,
                N,
                KILLS,
                duplicated,
                seed);
        assertThat(total).as("every id once over both shards (no loss)").isEqualTo(N);
        // Whether a kill landed between a block's write and the commit after it is up to the random
        // moments (under a loaded CI run, none did in two runs of six kills): nothing was lost or
        // duplicated above, but a run without replays says nothing about replays, so it is reported
        // as aborted (skipped, with the seed), not passed.
        assumeThat(replayed)
                .as("blocks replayed over the runs (kills that left written blocks behind the commit); seed %s", seed)
                .isPositive();
    }

    /** Nothing left to poll: the producer is done and the group has committed every record. */
    private static boolean caughtUp(Thread producer, KafkaTestTopics topics, String topic, String group)
            throws Exception {
        return !producer.isAlive()
                && committed(topics.admin(), group).equals(endOffsets(topics.admin(), topic, PARTITIONS));
    }

    private static boolean alive(Process process, Path log) throws IOException {
        assertThat(process.isAlive()).as("child alive; log:\n%s", tail(log)).isTrue();
        return true;
    }

    private static void kill(Process process) throws InterruptedException {
        process.destroyForcibly(); // SIGKILL: no drain, no final commit
        assertThat(process.waitFor(20, TimeUnit.SECONDS)).isTrue();
    }

    /** Blocks the replicas dropped as duplicates so far (a ClickHouse profile event, summed over replicas). */
    private static long duplicatedBlocks(InfraEndpoints infra) {
        long total = 0;
        for (InfraEndpoints.ClickHouseShard shard : infra.clickhouseShards()) {
            for (String url : shard.replicaUrls()) {
                String value = ClickHouseHttp.query(
                                url,
                                "SELECT sum(value) FROM system.events WHERE event = "
                                        + "'DuplicatedInsertedBlocks' FORMAT TabSeparated")
                        .strip();
                total += value.isEmpty() ? 0 : Long.parseLong(value);
            }
        }
        return total;
    }

    private static Process start(
            InfraEndpoints infra,
            ClickHouseTestDatabase db,
            KafkaTestTopics topics,
            String topic,
            String group,
            Path log)
            throws IOException {
        String shards = infra.clickhouseShards().stream()
                .map(s -> String.join(",", s.replicaUrls()))
                .collect(Collectors.joining(";"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(
                java,
                "-Xmx256m",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                DedupChildPipeline.class.getName(),
                topics.bootstrapServers(),
                topic,
                group,
                db.name(),
                shards));
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
    }
}
