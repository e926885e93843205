package dev.etl.it.kafka;

import static dev.etl.it.kafka.KafkaItSupport.produce;
import static dev.etl.it.support.ConsumerGroupOffsets.committed;
import static dev.etl.it.support.ConsumerGroupOffsets.endOffsets;
import static dev.etl.it.support.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deferred emission under kill -9 (issue 11 item 1): {@link BufferingChildPipeline} keeps up to
 * {@value BufferingChildPipeline#BUFFER} ids per lane in a {@code process} operator and emits them
 * together. It is SIGKILLed while it runs, restarted, and drained with SIGTERM; every produced id is
 * then in ClickHouse (duplicates are allowed: at-least-once). Before the operator held the acks of
 * what it buffered, the buffered ids' offsets were committed while the ids were only in memory, so
 * the restart skipped them and they were lost.
 */
@LocalInfra
class DeferredEmissionCrashIT {
    private static final Logger log = LoggerFactory.getLogger(DeferredEmissionCrashIT.class);
    private static final int PARTITIONS = 4;
    /** Not a multiple of the buffer per lane, so the last buffer of each lane stays held. */
    private static final int N = 60_500;

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aBufferingOperatorKilledWithSigkillLosesNothing(
            InfraEndpoints infra, ClickHouseTestDatabase db, KafkaTestTopics topics, @TempDir Path dir)
            throws Exception {
        String topic = topics.create("deferred-emission", PARTITIONS);
        String group = "it-" + topic;
        db.execute("CREATE TABLE " + db.table("orders") + " ON CLUSTER " + db.cluster()
                + " (id UInt64) ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/" + db.name()
                + "/orders', '{replica}') ORDER BY id");
        produce(topics.bootstrapServers(), topic, PARTITIONS, 0, N);
        Map<TopicPartition, Long> end = endOffsets(topics.admin(), topic, PARTITIONS);

        Path log1 = dir.resolve("run-1.log");
        Process run1 = start(infra, db, topics, topic, group, log1);
        long committedAtKill;
        try {
            await(Duration.ofSeconds(60), "run 1 to poll half of the orders (log " + log1 + ")", () -> {
                assertThat(run1.isAlive())
                        .as("run 1 alive; log:\n%s", tail(log1))
                        .isTrue();
                return recordsIn(log1) >= N / 2;
            });
            // Let commits happen behind what is buffered (the checkpoint interval is 200 ms).
            await(Duration.ofSeconds(30), "run 1 to commit something", () -> sum(committed(topics.admin(), group)) > 0);
            Thread.sleep(1_000);
        } finally {
            run1.destroyForcibly(); // SIGKILL: no flush, no drain, no final commit
            assertThat(run1.waitFor(20, TimeUnit.SECONDS)).isTrue();
        }
        committedAtKill = sum(committed(topics.admin(), group));
        long distinctAtKill = distinctIds(infra, db);
        log.info(
                "deferred emission: run 1 polled {} and had committed {} with {} distinct ids written at the kill",
                recordsIn(log1),
                committedAtKill,
                distinctAtKill);
        assertThat(committedAtKill).as("never committed past ids only buffered").isLessThanOrEqualTo(distinctAtKill);

        Path log2 = dir.resolve("run-2.log");
        Process run2 = start(infra, db, topics, topic, group, log2);
        try {
            long toReplay = N - committedAtKill;
            await(
                    Duration.ofSeconds(90),
                    "run 2 to poll the " + toReplay + " uncommitted orders (log " + log2 + ")",
                    () -> {
                        assertThat(run2.isAlive())
                                .as("run 2 alive; log:\n%s", tail(log2))
                                .isTrue();
                        return recordsIn(log2) >= toReplay;
                    });
        } finally {
            run2.destroy(); // SIGTERM: the drain flushes the operator, writes and commits
            if (!run2.waitFor(40, TimeUnit.SECONDS)) {
                run2.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        assertThat(Files.readString(log2)).as("run 2's log").contains("DRAINED exitCode=0");
        long distinct = distinctIds(infra, db);
        log.info(
                "deferred emission: after run 2, {} distinct ids of {} in ClickHouse; committed {}",
                distinct,
                N,
                committed(topics.admin(), group));
        assertThat(distinct).as("distinct ids in ClickHouse (no loss)").isEqualTo(N);
        assertThat(committed(topics.admin(), group))
                .as("everything committed after the drain")
                .isEqualTo(end);
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
                "-cp",
                System.getProperty("java.class.path"),
                BufferingChildPipeline.class.getName(),
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

    /** The last {@code IN <n>} progress line of a child's log. */
    private static long recordsIn(Path log) throws IOException {
        if (!Files.exists(log)) {
            return 0;
        }
        long in = 0;
        for (String line : Files.readAllLines(log)) {
            if (line.startsWith("IN ")) {
                try {
                    in = Long.parseLong(line.substring(3).strip());
                } catch (NumberFormatException torn) {
                    // a line being written
                }
            }
        }
        return in;
    }

    /** Distinct ids over both shards (first replica of each, after syncing it). */
    private static long distinctIds(InfraEndpoints infra, ClickHouseTestDatabase db) {
        long distinct = 0;
        for (InfraEndpoints.ClickHouseShard shard : infra.clickhouseShards()) {
            String url = shard.replicaUrl(1);
            ClickHouseHttp.query(url, "SYSTEM SYNC REPLICA " + db.table("orders"));
            distinct += Long.parseLong(ClickHouseHttp.query(
                            url, "SELECT uniqExact(id) FROM " + db.table("orders") + " FORMAT TabSeparated")
                    .strip());
        }
        return distinct;
    }

    private static long sum(Map<TopicPartition, Long> offsets) {
        return offsets.values().stream().mapToLong(Long::longValue).sum();
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log).stream()
                    .filter(l -> !l.startsWith("IN "))
                    .toList();
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }
}
