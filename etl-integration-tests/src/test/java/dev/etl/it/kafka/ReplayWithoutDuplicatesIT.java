package dev.etl.it.kafka;

import static dev.etl.it.kafka.KafkaItSupport.produce;
import static dev.etl.it.support.ChildLogs.recordsIn;
import static dev.etl.it.support.ChildLogs.replayedIn;
import static dev.etl.it.support.ChildLogs.tail;
import static dev.etl.it.support.ConsumerGroupOffsets.committed;
import static dev.etl.it.support.ConsumerGroupOffsets.endOffsets;
import static dev.etl.it.support.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.it.support.WrittenBlockKill;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Crash replay without duplicates (issue 14), end to end against the local servers: while a producer
 * writes ids, {@link DedupChildPipeline} (deterministic blocks, an hour-long checkpoint interval) is
 * SIGKILLed {@value #KILLS_BEHIND_A_WRITTEN_BLOCK} times in the state the feature exists for — a block
 * written to ClickHouse whose offsets the group has not committed, found from the outside with the child
 * frozen ({@link WrittenBlockKill}) — and once more in the middle of a rebalance's revoke (two instances
 * in the group, one killed as the other joins); then one last run drains. Every replica of the
 * ReplicatedMergeTree table (18.16: no token setting, deduplication by block checksum) must then hold
 * every id exactly once, checked with {@code count()} against {@code uniqExact(id)} without FINAL, and
 * the servers must have dropped replayed blocks ({@code DuplicatedInsertedBlocks}): the written blocks the
 * kills left behind did come again.
 *
 * <p>Seeded ({@code -Detl.it.seed}); the seed and each kill's moment are logged.
 */
@LocalInfra
class ReplayWithoutDuplicatesIT {
    private static final Logger log = LoggerFactory.getLogger(ReplayWithoutDuplicatesIT.class);
    private static final int PARTITIONS = 4;
    private static final int KILLS_BEHIND_A_WRITTEN_BLOCK = 5;
    /** The rebalance kill comes after this many kills behind a written block. */
    private static final int REBALANCE_AFTER = 2;

    private static final int MAX_RUNS = 20;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void sigkillBehindWrittenBlocksLosesNothingAndDuplicatesNothing(
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
        long duplicatedBefore = WrittenBlockKill.duplicatedInsertedBlocks(infra);

        // Ids arrive, 1,500 a second, for as long as the kills take: every run has records to poll and
        // blocks to write.
        AtomicBoolean killing = new AtomicBoolean(true);
        AtomicInteger produced = new AtomicInteger();
        AtomicReference<Throwable> producerFailure = new AtomicReference<>();
        Thread producer = new Thread(
                () -> {
                    try {
                        for (int from = 0; killing.get(); from += 600) {
                            produce(topics.bootstrapServers(), topic, PARTITIONS, from, from + 600);
                            produced.set(from + 600);
                            Thread.sleep(400);
                        }
                    } catch (Throwable t) {
                        producerFailure.set(t);
                    }
                },
                "it-producer");
        producer.start();

        WrittenBlockKill killer = new WrittenBlockKill(() -> positions(infra, db, topics, group));
        int run = 0;
        int behind = 0;
        boolean rebalanced = false;
        long killsStarted = System.nanoTime();
        while (behind < KILLS_BEHIND_A_WRITTEN_BLOCK || !rebalanced) {
            assertThat(run).as("runs started for the kills").isLessThan(MAX_RUNS);
            Path logA = dir.resolve("run-" + (++run) + ".log");
            Process a = start(infra, db, topics, topic, group, logA);
            try {
                await(
                        Duration.ofSeconds(60),
                        "run " + run + " to poll (log " + logA + ")",
                        () -> alive(a, logA) && recordsIn(logA) > 0);
                if (behind == REBALANCE_AFTER && !rebalanced) {
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
                        log.info("rebalance kill: run {} during the rebalance", run - 1);
                        kill(a);
                        await(
                                Duration.ofSeconds(60),
                                "run " + run + " to poll",
                                () -> alive(b, logB) && recordsIn(logB) > 0);
                        Thread.sleep(500 + random.nextInt(1_500));
                    } finally {
                        log.info("rebalance kill: run {}", run);
                        kill(b);
                    }
                    killer.killedElsewise();
                    rebalanced = true;
                    continue;
                }
                WrittenBlockKill.Kill kill = killer.kill(a, Duration.ofSeconds(60), random);
                if (kill == null) {
                    log.info("run {}: a commit already on the wire as it froze covered the block; another run", run);
                    continue;
                }
                behind++;
                log.info(
                        "kill {}: run {} after {} records, behind a written block: partition {} committed up to "
                                + "offset {}, rows in ClickHouse up to offset {} ({} looks)",
                        behind,
                        run,
                        recordsIn(logA),
                        kill.partition(),
                        kill.committed(),
                        kill.written(),
                        kill.attempts());
            } finally {
                if (a.isAlive()) {
                    kill(a);
                }
            }
        }
        long killSeconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - killsStarted);
        killing.set(false);
        producer.join(TimeUnit.SECONDS.toMillis(60));
        assertThat(producerFailure.get()).as("producer").isNull();
        int ids = produced.get();

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
                        .as("rows on %s equal distinct ids: no duplicate (seed %s)", url, seed)
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
        long duplicated = WrittenBlockKill.duplicatedInsertedBlocks(infra) - duplicatedBefore;
        long replayed = 0;
        for (int r = 1; r <= run; r++) {
            replayed += replayedIn(dir.resolve("run-" + r + ".log"));
        }
        log.info(
                "replay without duplicates: {} ids in ClickHouse of {} after {} kills behind a written block and one "
                        + "in a rebalance ({} runs, {} s of kills); {} blocks replayed at recorded boundaries, {} "
                        + "dropped by the servers (DuplicatedInsertedBlocks); seed {}",
                total,
                ids,
                behind,
                run,
                killSeconds,
                replayed,
                duplicated,
                seed);
        assertThat(total)
                .as("every id once over both shards (no loss; seed %s)", seed)
                .isEqualTo(ids);
        assertThat(replayed)
                .as("blocks the runs rebuilt at recorded boundaries (seed %s)", seed)
                .isPositive();
        assertThat(duplicated)
                .as(
                        "replayed blocks the servers dropped: the written blocks the kills left behind came again "
                                + "(seed %s)",
                        seed)
                .isPositive();
    }

    /**
     * Per partition, the group's committed offset and the largest offset with a row on some replica: order
     * {@code i} is offset {@code i / PARTITIONS} of partition {@code i % PARTITIONS} (produced in order, one
     * request in flight).
     */
    private static WrittenBlockKill.Positions positions(
            InfraEndpoints infra, ClickHouseTestDatabase db, KafkaTestTopics topics, String group) throws Exception {
        Map<Integer, Long> committed = new HashMap<>();
        committed(topics.admin(), group).forEach((tp, offset) -> committed.put(tp.partition(), offset));
        Map<Integer, Long> written = new HashMap<>();
        for (InfraEndpoints.ClickHouseShard shard : infra.clickhouseShards()) {
            for (String url : shard.replicaUrls()) {
                String answer = ClickHouseHttp.query(
                        url,
                        "SELECT id % " + PARTITIONS + " AS p, max(intDiv(id, " + PARTITIONS + ")) FROM "
                                + db.table("orders") + " GROUP BY p FORMAT TabSeparated");
                for (String line : answer.strip().split("\n")) {
                    if (!line.isEmpty()) {
                        String[] f = line.split("\t");
                        written.merge(Integer.parseInt(f[0]), Long.parseLong(f[1]), Math::max);
                    }
                }
            }
        }
        return new WrittenBlockKill.Positions(committed, written);
    }

    private static boolean alive(Process process, Path log) throws IOException {
        assertThat(process.isAlive()).as("child alive; log:\n%s", tail(log)).isTrue();
        return true;
    }

    private static void kill(Process process) throws InterruptedException {
        process.destroyForcibly(); // SIGKILL: no drain, no final commit
        assertThat(process.waitFor(20, TimeUnit.SECONDS)).isTrue();
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
