package dev.etl.it.s3;

import static dev.etl.it.support.ConsumerGroupOffsets.committed;
import static dev.etl.it.support.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.s3.BackfillPlanner;
import dev.etl.s3.S3ObjectStore;
import dev.etl.test.infra.InfraServer;
import dev.etl.test.infra.KafkaTestTopics;
import dev.etl.test.infra.LocalInfra;
import dev.etl.test.infra.S3InfraEndpoints;
import dev.etl.test.infra.S3TestBuckets;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * The backfill in child JVMs against the local S3Proxy and Kafka: an instance killed with SIGKILL
 * mid-backfill loses nothing and its restart skips what was committed and ends by itself; two instances
 * share one backfill, and both end by themselves when the group has committed the whole work list.
 */
@LocalInfra({InfraServer.KAFKA, InfraServer.S3})
class BackfillProcessesIT {
    private static final Logger log = LoggerFactory.getLogger(BackfillProcessesIT.class);
    private static final int OBJECTS = 40;
    private static final int ROWS_PER_OBJECT = 5_000;
    private static final int N = OBJECTS * ROWS_PER_OBJECT;

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void aBackfillKilledWithSigkillLosesNothingAndItsRestartSkipsWhatWasCommitted(
            KafkaTestTopics topics, S3TestBuckets buckets, @TempDir Path dir) throws Exception {
        String work = topics.create("backfill-crash", 4);
        String group = "it-" + work;
        String bucket = upload(buckets);
        plan(topics, buckets, bucket, work);

        Path out1 = dir.resolve("run-1.txt");
        Process run1 = start(topics, buckets, bucket, work, group, out1, 25, dir.resolve("run-1.log"));
        try {
            await(Duration.ofSeconds(90), "run 1 to write 40k rows durably", () -> lines(out1) >= 40_000);
            await(
                    Duration.ofSeconds(20),
                    "run 1 to commit a work item",
                    () -> sum(committed(topics.admin(), group)) > 0);
        } finally {
            run1.destroyForcibly(); // SIGKILL: no drain, no final commit
            assertThat(run1.waitFor(20, TimeUnit.SECONDS)).isTrue();
        }
        long written1 = lines(out1);
        assertThat(written1).as("killed mid-backfill").isLessThan(N);

        Path out2 = dir.resolve("run-2.txt");
        Process run2 = start(topics, buckets, bucket, work, group, out2, 0, dir.resolve("run-2.log"));
        assertThat(run2.waitFor(150, TimeUnit.SECONDS))
                .as("run 2 ends by itself")
                .isTrue();
        assertThat(run2.exitValue())
                .as("run 2's exit status; log: " + tail(dir.resolve("run-2.log")))
                .isZero();
        long written2 = lines(out2);
        BitSet union = new BitSet();
        read(out1, union);
        read(out2, union);
        log.info(
                "backfill crash: run 1 wrote {} rows before the kill, run 2 wrote {}; union {} of {}",
                written1,
                written2,
                union.cardinality(),
                N);
        assertThat(union.nextClearBit(0)).as("first row never written durably").isGreaterThanOrEqualTo(N);
        assertThat(written2).as("run 2 skips the work items run 1 committed").isLessThan(N);
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void twoInstancesShareOneBackfillAndBothEndWhenTheGroupHasCommittedTheWholeList(
            KafkaTestTopics topics, S3TestBuckets buckets, @TempDir Path dir) throws Exception {
        String work = topics.create("backfill-shared", 4);
        String group = "it-" + work;
        String bucket = upload(buckets);
        plan(topics, buckets, bucket, work);

        Path outA = dir.resolve("a.txt");
        Path outB = dir.resolve("b.txt");
        Process a = start(topics, buckets, bucket, work, group, outA, 10, dir.resolve("a.log"));
        Process b = start(topics, buckets, bucket, work, group, outB, 10, dir.resolve("b.log"));
        assertThat(a.waitFor(180, TimeUnit.SECONDS))
                .as("instance a ends by itself")
                .isTrue();
        assertThat(b.waitFor(60, TimeUnit.SECONDS))
                .as("instance b ends by itself")
                .isTrue();
        assertThat(a.exitValue())
                .as("a's exit status; log: " + tail(dir.resolve("a.log")))
                .isZero();
        assertThat(b.exitValue())
                .as("b's exit status; log: " + tail(dir.resolve("b.log")))
                .isZero();
        BitSet union = new BitSet();
        read(outA, union);
        read(outB, union);
        long rows = lines(outA) + lines(outB);
        log.info(
                "shared backfill: a wrote {}, b wrote {}, union {} of {}",
                lines(outA),
                lines(outB),
                union.cardinality(),
                N);
        assertThat(union.nextClearBit(0)).as("first row never written").isGreaterThanOrEqualTo(N);
        assertThat(lines(outA)).as("a took part").isPositive();
        assertThat(lines(outB)).as("b took part").isPositive();
        assertThat(rows - union.cardinality())
                .as("rows written twice (a rebalance drains and commits)")
                .isZero();
        Map<TopicPartition, Long> end = dev.etl.it.support.ConsumerGroupOffsets.endOffsets(topics.admin(), work, 4);
        end.replaceAll((tp, e) -> e - 1); // the list is one transaction: its commit marker ends each partition
        assertThat(committed(topics.admin(), group))
                .as("every work item committed")
                .isEqualTo(end);
    }

    /** 40 NDJSON objects of 5000 rows each (row values are their global index): half plain, half gzip. */
    private static String upload(S3TestBuckets buckets) throws IOException {
        String bucket = buckets.create("backfill");
        int n = 0;
        for (int object = 0; object < OBJECTS; object++) {
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < ROWS_PER_OBJECT; i++) {
                text.append(n++).append('\n');
            }
            byte[] plain = text.toString().getBytes(StandardCharsets.US_ASCII);
            boolean gzip = object % 2 == 1;
            String key = "orders/part-" + object + ".ndjson" + (gzip ? ".gz" : "");
            byte[] bytes = plain;
            if (gzip) {
                ByteArrayOutputStream gz = new ByteArrayOutputStream();
                try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
                    out.write(plain);
                }
                bytes = gz.toByteArray();
            }
            buckets.client().putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(bytes));
        }
        return bucket;
    }

    private static void plan(KafkaTestTopics topics, S3TestBuckets buckets, String bucket, String work)
            throws IOException {
        S3InfraEndpoints s3 = buckets.endpoints();
        try (S3ObjectStore store = store(s3)) {
            BackfillPlanner.Result result = BackfillPlanner.builder()
                    .store(store)
                    .kafka(Map.of("bootstrap.servers", topics.bootstrapServers()))
                    .workTopic(work)
                    .bucket(bucket)
                    .prefix("orders/")
                    .splitBytes(8 * 1024)
                    .build()
                    .plan();
            assertThat(result.items())
                    .as("plain objects split, gzip ones whole")
                    .isGreaterThan(OBJECTS);
        }
    }

    static S3ObjectStore store(S3InfraEndpoints s3) {
        return S3ObjectStore.builder()
                .endpoint(s3.endpointUri())
                .region(s3.region())
                .credentials(s3.accessKey(), s3.secretKey())
                .pathStyleAccess(true)
                .build();
    }

    private static Process start(
            KafkaTestTopics topics,
            S3TestBuckets buckets,
            String bucket,
            String work,
            String group,
            Path out,
            long delayMs,
            Path log)
            throws IOException {
        S3InfraEndpoints s3 = buckets.endpoints();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new ProcessBuilder(List.of(
                        java,
                        "-Xmx256m",
                        "-cp",
                        System.getProperty("java.class.path"),
                        BackfillChildPipeline.class.getName(),
                        topics.bootstrapServers(),
                        work,
                        group,
                        out.toString(),
                        Long.toString(delayMs),
                        s3.endpoint(),
                        s3.accessKey(),
                        s3.secretKey(),
                        bucket))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
    }

    static long lines(Path file) throws IOException {
        if (!Files.exists(file)) {
            return 0;
        }
        long lines = 0;
        for (byte b : Files.readAllBytes(file)) {
            lines += b == '\n' ? 1 : 0;
        }
        return lines;
    }

    static void read(Path file, BitSet into) throws IOException {
        if (!Files.exists(file)) {
            return;
        }
        String text = Files.readString(file, StandardCharsets.US_ASCII);
        int end = text.lastIndexOf('\n');
        if (end < 0) {
            return;
        }
        for (String line : text.substring(0, end).split("\n")) {
            into.set(Integer.parseInt(line.trim()));
        }
    }

    private static String tail(Path log) throws IOException {
        if (!Files.exists(log)) {
            return "(no log)";
        }
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    }

    private static long sum(Map<TopicPartition, Long> offsets) {
        return offsets.values().stream().mapToLong(Long::longValue).sum();
    }
}
