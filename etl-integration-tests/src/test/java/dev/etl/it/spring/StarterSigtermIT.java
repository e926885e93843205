package dev.etl.it.spring;

import static dev.etl.it.spring.StarterItSupport.sum;
import static dev.etl.it.support.ConsumerGroupOffsets.committed;
import static dev.etl.it.support.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.it.spring.StarterItSupport.OrderProducer;
import dev.etl.it.spring.StarterItSupport.PartitionRows;
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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link StarterApplication} in a child JVM receives SIGTERM under load (a backlog, and a producer
 * that keeps writing through the drain): it exits 0 within the drain timeout, and the committed
 * offsets equal exactly what reached ClickHouse, offset by offset (the replicated table has no
 * duplicates after a clean drain, and nothing below a committed offset is missing).
 */
@LocalInfra
class StarterSigtermIT {

    private static final Logger log = LoggerFactory.getLogger(StarterSigtermIT.class);

    private static final int PARTITIONS = 4;

    private static final int BACKLOG = 200_000;

    /** {@code etl.checkpoint.drain-timeout} in {@link StarterApplication#properties}. */
    private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(10);

    /** Lane join grace, context close and JVM exit beyond the drain timeout. */
    private static final Duration EXIT_MARGIN = Duration.ofSeconds(10);

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void sigtermUnderLoadExitsZeroAndCommittedOffsetsEqualTheRowsInClickHouse(
            InfraEndpoints infra, ClickHouseTestDatabase db, KafkaTestTopics topics, @TempDir Path dir)
            throws Exception {
        String topic = topics.create("starter-sigterm", PARTITIONS);
        String group = "it-" + topic;
        StarterItSupport.createOrdersTable(db);
        int schemaId = StarterItSupport.registerSchema(infra, topic);
        Path childLog = dir.resolve("child.log");

        try (OrderProducer producer = new OrderProducer(infra.kafkaBootstrap(), topic, PARTITIONS, schemaId)) {
            producer.send(0, BACKLOG);
            producer.flush();

            Process child = start(StarterApplication.properties(infra, topic, group, db.name()), childLog);
            AtomicBoolean producing = new AtomicBoolean(true);
            AtomicLong produced = new AtomicLong(BACKLOG);
            AtomicReference<Throwable> producerFailure = new AtomicReference<>();
            Thread load = new Thread(
                    () -> {
                        try {
                            while (producing.get()) {
                                long from = produced.get();
                                producer.send(from, from + 2_000);
                                producer.flush();
                                produced.set(from + 2_000);
                            }
                        } catch (Throwable ex) {
                            producerFailure.set(ex);
                        }
                    },
                    "it-producer");
            int exitCode;
            long exitMs;
            long committedAtSignal;
            try {
                await(Duration.ofSeconds(45), "the child to commit 30k offsets (log " + childLog + ")", () -> {
                    assertThat(child.isAlive())
                            .as("child alive; log:\n%s", tail(childLog))
                            .isTrue();
                    return sum(committed(topics.admin(), group)) >= 30_000;
                });
                load.start();
                Thread.sleep(500); // the producer writes while the pipeline works through the backlog
                committedAtSignal = sum(committed(topics.admin(), group));
                long signalled = System.nanoTime();
                child.destroy(); // SIGTERM
                boolean exited = child.waitFor(DRAIN_TIMEOUT.plus(EXIT_MARGIN).toMillis(), TimeUnit.MILLISECONDS);
                exitMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - signalled);
                assertThat(exited)
                        .as("exited within %s after SIGTERM; log:\n%s", DRAIN_TIMEOUT.plus(EXIT_MARGIN), tail(childLog))
                        .isTrue();
                exitCode = child.exitValue();
            } finally {
                producing.set(false);
                load.join(30_000);
                if (child.isAlive()) {
                    child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
            assertThat(producerFailure.get()).as("producer failure").isNull();
            assertThat(exitCode)
                    .as("exit code after SIGTERM; log:\n%s", tail(childLog))
                    .isZero();

            Map<TopicPartition, Long> committed = committed(topics.admin(), group);
            Map<Integer, PartitionRows> rows = StarterItSupport.rowsByPartition(infra, db, PARTITIONS);
            long totalRows =
                    rows.values().stream().mapToLong(PartitionRows::rows).sum();
            log.info(
                    "SIGTERM with {} committed and {} produced so far; exit {} after {} ms; committed {} ({}), "
                            + "rows in ClickHouse {}",
                    committedAtSignal,
                    produced.get(),
                    exitCode,
                    exitMs,
                    sum(committed),
                    committed,
                    totalRows);
            assertThat(sum(committed)).as("committed offsets after the drain").isGreaterThan(committedAtSignal);
            assertThat(sum(committed))
                    .as("committed offsets == rows in ClickHouse")
                    .isEqualTo(totalRows);
            for (int p = 0; p < PARTITIONS; p++) {
                long c = committed.getOrDefault(new TopicPartition(topic, p), 0L);
                // offset o of partition p holds id o * PARTITIONS + p: exactly offsets 0..c-1, once each
                PartitionRows expected = (c == 0) ? null : new PartitionRows(c, c, (c - 1) * PARTITIONS + p);
                assertThat(rows.get(p)).as("partition %d, committed %d", p, c).isEqualTo(expected);
            }
            assertThat(Files.readString(childLog)).contains("Exiting with status 0 after SIGTERM");
        }
    }

    private static Process start(List<String> properties, Path log) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(
                java, "-Xmx512m", "-cp", System.getProperty("java.class.path"), StarterApplication.class.getName()));
        properties.forEach((property) -> command.add("--" + property));
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException ex) {
            return "(no log: " + ex + ")";
        }
    }
}
