package dev.etl.it.kafka;

import static dev.etl.it.kafka.KafkaItSupport.produce;
import static dev.etl.it.support.ConsumerGroupOffsets.committed;
import static dev.etl.it.support.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.test.infra.InfraServer;
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
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Restart speed after {@code kill -9}: a child JVM ({@link KafkaChildPipeline}, 2 lanes, 4
 * partitions) is SIGKILLed mid-run and started again; the time from starting the new process to the
 * group's first commit past what the killed one had committed is measured, with static membership
 * ({@code group.instance.id}, suffixed per lane) and without it, both with Kafka's default
 * {@code session.timeout.ms} (45 s) unless {@code -Detl.restart.session-timeout-ms} says otherwise.
 *
 * <p>Without static membership the restarted process waits for the broker to expire the dead
 * members (the session timeout) before a rebalance gives it their partitions; with it, the broker
 * recognises each lane's instance id, fences the dead member and hands back its partitions at once.
 * Rerun with {@code scripts/restart-bench.sh} ({@code -Detl.restart.repeats=N}); results are logged
 * as {@code restart-time static=… dynamic=…} lines and in {@code docs/BENCHMARKS.md}.
 */
@LocalInfra(InfraServer.KAFKA)
class KafkaRestartTimeIT {
    private static final Logger log = LoggerFactory.getLogger(KafkaRestartTimeIT.class);
    private static final int PARTITIONS = 4;

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void staticMembershipTakesThePartitionsBackAtOnceAfterKill9(KafkaTestTopics topics, @TempDir Path dir)
            throws Exception {
        int repeats = Integer.getInteger("etl.restart.repeats", 1);
        int sessionTimeoutMs = Integer.getInteger("etl.restart.session-timeout-ms", 45_000);
        List<Long> staticMs = new ArrayList<>();
        List<Long> dynamicMs = new ArrayList<>();
        for (int i = 0; i < repeats; i++) {
            staticMs.add(restartMs(topics, dir.resolve("static-" + i), true, sessionTimeoutMs));
            dynamicMs.add(restartMs(topics, dir.resolve("dynamic-" + i), false, sessionTimeoutMs));
        }
        log.info(
                "restart-time session.timeout.ms={} repeats={} static={} ms (median {}) dynamic={} ms (median {})",
                sessionTimeoutMs,
                repeats,
                staticMs,
                median(staticMs),
                dynamicMs,
                median(dynamicMs));
        System.out.println("restart-time session.timeout.ms=" + sessionTimeoutMs + " static=" + staticMs + " median="
                + median(staticMs) + " dynamic=" + dynamicMs + " median=" + median(dynamicMs));
        // Static membership must not wait for the session timeout; without it the restart does.
        assertThat(median(staticMs)).as("static restart → first commit, ms").isLessThan(sessionTimeoutMs / 2);
        assertThat(median(dynamicMs)).as("dynamic restart → first commit, ms").isGreaterThan(median(staticMs));
    }

    /** Kill -9 a running child, start a new one, return ms from its start to the group's next commit. */
    private static long restartMs(KafkaTestTopics topics, Path dir, boolean staticMembership, int sessionTimeoutMs)
            throws Exception {
        Files.createDirectories(dir);
        String topic = topics.create("kafka-restart-" + (staticMembership ? "static" : "dynamic"), PARTITIONS);
        String group = "it-" + topic;
        produce(topics.bootstrapServers(), topic, PARTITIONS, 0, 400_000);
        String extra = "session.timeout.ms=" + sessionTimeoutMs + ",heartbeat.interval.ms=3000"
                + (staticMembership ? ",group.instance.id=restart-" + topic : "");
        Process run1 = start(topics, topic, group, dir.resolve("run-1.txt"), extra, dir.resolve("run-1.log"));
        long committedAtKill;
        try {
            await(Duration.ofSeconds(60), "run 1 to commit", () -> sum(committed(topics.admin(), group)) > 0);
            Thread.sleep(1_000);
        } finally {
            run1.destroyForcibly();
            assertThat(run1.waitFor(20, TimeUnit.SECONDS)).isTrue();
        }
        committedAtKill = sum(committed(topics.admin(), group));
        long startNs = System.nanoTime();
        Process run2 = start(topics, topic, group, dir.resolve("run-2.txt"), extra, dir.resolve("run-2.log"));
        try {
            long deadlineNs = startNs + TimeUnit.MILLISECONDS.toNanos(sessionTimeoutMs + 60_000L);
            while (sum(committed(topics.admin(), group)) <= committedAtKill) {
                assertThat(System.nanoTime() - deadlineNs)
                        .as("waiting for run 2's first commit")
                        .isNegative();
                assertThat(run2.isAlive())
                        .as("run 2 alive (see %s)", dir.resolve("run-2.log"))
                        .isTrue();
                Thread.sleep(50);
            }
            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
        } finally {
            run2.destroyForcibly();
            run2.waitFor(20, TimeUnit.SECONDS);
        }
    }

    private static Process start(KafkaTestTopics topics, String topic, String group, Path out, String extra, Path log)
            throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // 25 ms per 1000-row batch: the backlog outlasts the measurement, so there is always a next commit.
        return new ProcessBuilder(List.of(
                        java,
                        "-Xmx256m",
                        "-cp",
                        System.getProperty("java.class.path"),
                        KafkaChildPipeline.class.getName(),
                        topics.bootstrapServers(),
                        topic,
                        group,
                        out.toString(),
                        "25",
                        extra))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
    }

    private static long sum(Map<TopicPartition, Long> offsets) {
        return offsets.values().stream().mapToLong(Long::longValue).sum();
    }

    private static long median(List<Long> values) {
        List<Long> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }
}
