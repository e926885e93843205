package dev.etl.it.spring;

import static dev.etl.it.spring.StarterItSupport.sum;
import static dev.etl.it.support.ConsumerGroupOffsets.committed;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.test.infra.ClickHouseHttp;
import dev.etl.test.infra.ClickHouseTestDatabase;
import dev.etl.test.infra.InfraEndpoints;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * An application that uses only the starter ({@link StarterBackfillApplication}), configured with the
 * {@code etl.source.s3.*} properties of docs/connectors/s3.md and nothing of its own, backfills from the
 * local S3Proxy into the 2 × 2 ClickHouse cluster in child JVMs: Avro object container files through the
 * chain of its Kafka topic (a run in mode {@code plan}, then one in mode {@code run}), and NDJSON, plain and
 * gzipped, through the chain of its JSON topic (mode {@code plan-and-run}). Each run ends by itself with
 * exit status 0; the plan starts no pipeline (the group commits nothing); every row is in ClickHouse exactly
 * once.
 */
@LocalInfra({InfraServer.ZOOKEEPER, InfraServer.CLICKHOUSE, InfraServer.KAFKA, InfraServer.REGISTRY, InfraServer.S3})
class StarterBackfillIT {

    private static final Logger log = LoggerFactory.getLogger(StarterBackfillIT.class);

    private static final int AVRO_FILES = 4;

    private static final int AVRO_ROWS_PER_FILE = 5_000;

    private static final int JSON_ROWS_PER_FILE = 5_000;

    private static final int AVRO_ROWS = AVRO_FILES * AVRO_ROWS_PER_FILE;

    /** One plain and one gzipped NDJSON object; their ids follow the Avro ones. */
    private static final int JSON_ROWS = 2 * JSON_ROWS_PER_FILE;

    private static final int WORK_PARTITIONS = 4;

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void avroAndNdjsonObjectsAreBackfilledExactlyOnceByRunsThatEndByThemselves(
            InfraEndpoints infra,
            ClickHouseTestDatabase db,
            KafkaTestTopics topics,
            S3TestBuckets buckets,
            @TempDir Path dir)
            throws Exception {
        StarterItSupport.createOrdersTable(db);
        String bucket = buckets.create("starter-backfill");
        writeAvro(buckets.client(), bucket);
        writeNdjson(buckets.client(), bucket);
        String avroWork = StarterItSupport.unique("avro-backfill-work");
        String avroGroup = StarterItSupport.unique("avro-backfill");
        List<String> avro = backfill(infra, db, bucket, "avro/", avroWork, avroGroup);

        // 1. mode plan: a command; the work list is written, no pipeline reads it
        long started = System.nanoTime();
        Run plan = run(with(avro, "etl.source.s3.mode=plan"), buckets.endpoints(), dir.resolve("plan.log"), 90);
        long planMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertThat(plan.exitCode())
                .as("plan's exit status; log:\n%s", plan.tail())
                .isZero();
        assertThat(plan.log())
                .contains("planned ")
                .doesNotContain("PipelineRuntime")
                .doesNotContain("started on port");
        Map<TopicPartition, Long> end =
                dev.etl.it.support.ConsumerGroupOffsets.endOffsets(topics.admin(), avroWork, WORK_PARTITIONS);
        end.replaceAll((tp, e) -> e - 1); // the list is one transaction: its commit marker ends each partition
        long items = sum(end);
        assertThat(items).as("work items: the Avro files split at sync markers").isGreaterThan(AVRO_FILES);
        assertThat(committed(topics.admin(), avroGroup))
                .as("offsets of a group no pipeline joined")
                .isEmpty();

        // 2. mode run: reads the list, ends by itself once the group committed it all
        started = System.nanoTime();
        Run read = run(avro, buckets.endpoints(), dir.resolve("run.log"), 120);
        long runMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertThat(read.exitCode())
                .as("run's exit status; log:\n%s", read.tail())
                .isZero();
        assertThat(read.log()).contains("backfill complete");
        assertThat(committed(topics.admin(), avroGroup))
                .as("every work item committed")
                .isEqualTo(end);

        // 3. mode plan-and-run, NDJSON through the JSON topic's chain
        List<String> json = with(
                backfill(
                        infra,
                        db,
                        bucket,
                        "json/",
                        StarterItSupport.unique("json-backfill-work"),
                        StarterItSupport.unique("json-backfill")),
                "etl.source.s3.mode=plan-and-run",
                "etl.source.s3.topic=" + StarterBackfillApplication.JSON_TOPIC);
        started = System.nanoTime();
        Run both = run(json, buckets.endpoints(), dir.resolve("plan-and-run.log"), 120);
        long bothMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertThat(both.exitCode())
                .as("plan-and-run's exit status; log:\n%s", both.tail())
                .isZero();
        assertThat(both.log()).contains("planned ", "backfill complete");

        String secret = buckets.endpoints().secretKey();
        for (Run r : List.of(plan, read, both)) {
            assertThat(r.log()).as("a child's log").doesNotContain(secret);
        }

        long[] rows = new long[3];
        long[] perShard = new long[infra.clickhouseShards().size()];
        for (int s = 0; s < perShard.length; s++) {
            String url = infra.clickhouseShards().get(s).replicaUrl(1);
            ClickHouseHttp.query(url, "SYSTEM SYNC REPLICA " + db.table("orders"));
            String[] f = ClickHouseHttp.query(
                            url,
                            "SELECT count(), uniqExact(id), max(id) FROM " + db.table("orders")
                                    + " FORMAT TabSeparated")
                    .strip()
                    .split("\t");
            perShard[s] = Long.parseLong(f[0]);
            rows[0] += Long.parseLong(f[0]);
            rows[1] += Long.parseLong(f[1]); // ids are routed by id: no id is on both shards
            rows[2] = Math.max(rows[2], Long.parseLong(f[2]));
        }
        log.info(
                "plan {} ms ({} work items), run {} ms, plan-and-run {} ms; rows per shard {}",
                planMs,
                items,
                runMs,
                bothMs,
                java.util.Arrays.toString(perShard));
        assertThat(rows)
                .as("rows, distinct ids, largest id")
                .containsExactly(AVRO_ROWS + JSON_ROWS, AVRO_ROWS + JSON_ROWS, AVRO_ROWS + JSON_ROWS - 1);
        assertThat(java.util.Arrays.stream(perShard).min().orElse(0))
                .as("rows on the emptier shard (routed by order id)")
                .isPositive();
    }

    /**
     * The application's configuration: the starter's (Kafka, registry, ClickHouse, lanes) and the
     * backfill's, only properties of docs/connectors/s3.md; the secret key from the child's environment.
     */
    private static List<String> backfill(
            InfraEndpoints infra,
            ClickHouseTestDatabase db,
            String bucket,
            String prefix,
            String workTopic,
            String group) {
        List<String> properties = new ArrayList<>(
                StarterApplication.properties(infra, StarterItSupport.unique("orders"), group, db.name()));
        S3InfraEndpoints s3 = infra.s3();
        properties.addAll(List.of(
                "etl.source.s3.bucket=" + bucket,
                "etl.source.s3.prefix=" + prefix,
                "etl.source.s3.endpoint=" + s3.endpoint(),
                "etl.source.s3.region=" + s3.region(),
                "etl.source.s3.path-style=true",
                "etl.source.s3.access-key=" + s3.accessKey(),
                "etl.source.s3.secret-key=${S3_SECRET_KEY}",
                "etl.source.s3.work-topic=" + workTopic,
                "etl.source.s3.work-topic-partitions=" + WORK_PARTITIONS,
                "etl.source.s3.group-id=" + group,
                "etl.source.s3.split-size=16KB",
                "etl.source.s3.max-batch-rows=2000",
                "etl.source.s3.progress-interval=1s"));
        return properties;
    }

    private static List<String> with(List<String> properties, String... more) {
        List<String> all = new ArrayList<>(properties);
        all.addAll(List.of(more));
        return all;
    }

    /** What a child run did. */
    private record Run(int exitCode, Path logFile) {

        String log() throws IOException {
            return Files.readString(this.logFile);
        }

        String tail() {
            try {
                List<String> lines = Files.readAllLines(this.logFile);
                return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
            } catch (IOException ex) {
                return "(no log: " + ex + ")";
            }
        }
    }

    /** Runs the application in a child JVM until it exits by itself (killed after {@code timeoutS}: -1). */
    private static Run run(List<String> properties, S3InfraEndpoints s3, Path log, long timeoutS) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(
                java,
                "-Xmx512m",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                StarterBackfillApplication.class.getName()));
        properties.forEach((property) -> command.add("--" + property));
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().put("S3_SECRET_KEY", s3.secretKey());
        Process child = builder.start();
        if (!child.waitFor(timeoutS, TimeUnit.SECONDS)) {
            child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            return new Run(-1, log);
        }
        return new Run(child.exitValue(), log);
    }

    /** Orders {@code 0..AVRO_ROWS-1}, deflate, a sync marker every ~4 KiB (so split-size 16KB splits them). */
    private static void writeAvro(S3Client s3, String bucket) throws IOException {
        GenericData.Record order = new GenericData.Record(StarterApplication.ORDER);
        for (int f = 0; f < AVRO_FILES; f++) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataFileWriter<GenericRecord> writer = new DataFileWriter<GenericRecord>(
                            new GenericDatumWriter<>(StarterApplication.ORDER))
                    .setCodec(CodecFactory.deflateCodec(6))
                    .setSyncInterval(4096)) {
                writer.create(StarterApplication.ORDER, bytes);
                for (long i = (long) f * AVRO_ROWS_PER_FILE; i < (long) (f + 1) * AVRO_ROWS_PER_FILE; i++) {
                    order.put("id", i);
                    order.put("customer", "customer-" + (i % 1000));
                    order.put("amount_cents", i * 7 % 100_000);
                    writer.append(order);
                }
            }
            put(s3, bucket, "avro/orders-" + f + ".avro", bytes.toByteArray());
        }
        put(s3, bucket, "avro/_SUCCESS", new byte[0]); // no format reads it: skipped by the plan
    }

    /** Orders {@code AVRO_ROWS..}: one plain NDJSON object (split by lines) and one gzipped (read whole). */
    private static void writeNdjson(S3Client s3, String bucket) throws IOException {
        for (int f = 0; f < 2; f++) {
            StringBuilder lines = new StringBuilder();
            long first = AVRO_ROWS + (long) f * JSON_ROWS_PER_FILE;
            for (long i = first; i < first + JSON_ROWS_PER_FILE; i++) {
                lines.append("{\"id\":")
                        .append(i)
                        .append(",\"customer\":\"customer-")
                        .append(i % 1000)
                        .append("\",\"amountCents\":")
                        .append(i * 7 % 100_000)
                        .append("}\n");
            }
            byte[] plain = lines.toString().getBytes(StandardCharsets.UTF_8);
            if (f == 0) {
                put(s3, bucket, "json/orders-0.ndjson", plain);
            } else {
                ByteArrayOutputStream gzipped = new ByteArrayOutputStream();
                try (GZIPOutputStream gzip = new GZIPOutputStream(gzipped)) {
                    gzip.write(plain);
                }
                put(s3, bucket, "json/orders-1.ndjson.gz", gzipped.toByteArray());
            }
        }
    }

    private static void put(S3Client s3, String bucket, String key, byte[] content) {
        s3.putObject((request) -> request.bucket(bucket).key(key), RequestBody.fromBytes(content));
    }
}
