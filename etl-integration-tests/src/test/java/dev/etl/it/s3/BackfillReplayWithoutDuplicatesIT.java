package dev.etl.it.s3;

import static dev.etl.it.support.ChildLogs.recordsIn;
import static dev.etl.it.support.ChildLogs.replayedIn;
import static dev.etl.it.support.ChildLogs.tail;
import static dev.etl.it.support.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.s3.BackfillPlanner;
import dev.etl.s3.S3ObjectStore;
import dev.etl.test.infra.ClickHouseHttp;
import dev.etl.test.infra.ClickHouseTestDatabase;
import dev.etl.test.infra.InfraEndpoints;
import dev.etl.test.infra.InfraServer;
import dev.etl.test.infra.KafkaTestTopics;
import dev.etl.test.infra.LocalInfra;
import dev.etl.test.infra.S3InfraEndpoints;
import dev.etl.test.infra.S3TestBuckets;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * Crash replay without duplicates for a backfill: {@link BackfillDedupChild} (deterministic blocks, the
 * dedup unit a row range inside a work item) is SIGKILLed at random moments, then a last run ends by
 * itself; every replica of the ReplicatedMergeTree table must hold every id exactly once
 * ({@code count()} against {@code uniqExact(id)}, no FINAL). Seeded ({@code -Detl.it.seed}).
 */
@LocalInfra({InfraServer.KAFKA, InfraServer.CLICKHOUSE, InfraServer.S3})
class BackfillReplayWithoutDuplicatesIT {
    private static final Logger log = LoggerFactory.getLogger(BackfillReplayWithoutDuplicatesIT.class);
    private static final int OBJECTS = 12;
    private static final int ROWS = 20_000;
    private static final int N = OBJECTS * ROWS;
    private static final int KILLS = 3;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void sigkillMidBackfillLosesNothingAndDuplicatesNothing(
            InfraEndpoints infra,
            ClickHouseTestDatabase db,
            KafkaTestTopics topics,
            S3TestBuckets buckets,
            @TempDir Path dir)
            throws Exception {
        long seed = Long.getLong("etl.it.seed", System.nanoTime());
        Random random = new Random(seed);
        log.info("backfill replay without duplicates: seed {}", seed);
        db.execute("CREATE TABLE " + db.table("orders") + " ON CLUSTER " + db.cluster()
                + " (id UInt64) ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/" + db.name()
                + "/orders', '{replica}') ORDER BY id SETTINGS replicated_deduplication_window = 1000");
        String bucket = buckets.create("backfill-dedup");
        int n = 0;
        for (int object = 0; object < OBJECTS; object++) {
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < ROWS; i++) {
                text.append(n++).append('\n');
            }
            byte[] bytes = text.toString().getBytes(StandardCharsets.US_ASCII);
            String key = "ids/part-" + object + ".ndjson";
            buckets.client().putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(bytes));
        }
        String work = topics.create("backfill-dedup", 4);
        String group = "it-" + work;
        try (S3ObjectStore store = BackfillProcessesIT.store(buckets.endpoints())) {
            BackfillPlanner.builder()
                    .store(store)
                    .kafka(Map.of("bootstrap.servers", topics.bootstrapServers()))
                    .workTopic(work)
                    .bucket(bucket)
                    .prefix("ids/")
                    .splitBytes(256 * 1024)
                    .build()
                    .plan();
        }

        int run = 0;
        int killedMidway = 0;
        for (int kill = 0; kill < KILLS; kill++) {
            Path logFile = dir.resolve("run-" + (++run) + ".log");
            Process p = start(infra, db, topics, buckets, bucket, work, group, logFile);
            boolean finishedEarlier = false;
            try {
                int killedSoFar = killedMidway;
                await(Duration.ofSeconds(60), "run " + run + " to read rows (log " + logFile + ")", () -> {
                    if (!p.isAlive() && killedSoFar > 0 && p.exitValue() == 0) {
                        return true; // a killed run had committed the whole list already: nothing left to read
                    }
                    assertThat(p.isAlive())
                            .as("child alive; log:\n%s", tail(logFile))
                            .isTrue();
                    return recordsIn(logFile) > 0;
                });
                finishedEarlier = !p.isAlive();
                if (!finishedEarlier) {
                    Thread.sleep(200 + random.nextInt(1_200));
                }
            } finally {
                log.info("kill {}: run {} after {} records", kill + 1, run, recordsIn(logFile));
                p.destroyForcibly();
                assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
            }
            if (finishedEarlier) {
                log.info("run {} found the work list committed by an earlier, killed run: no more kills", run);
                break;
            }
            killedMidway++;
        }
        assertThat(killedMidway)
                .as("at least one run was killed while it read rows")
                .isPositive();
        Path last = dir.resolve("run-" + (++run) + ".log");
        Process end = start(infra, db, topics, buckets, bucket, work, group, last);
        assertThat(end.waitFor(180, TimeUnit.SECONDS))
                .as("the last run ends by itself")
                .isTrue();
        assertThat(end.exitValue())
                .as("the last run's exit status; log:\n%s", tail(last))
                .isZero();

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
        long replayed = 0;
        for (int r = 1; r <= run; r++) {
            replayed += replayedIn(dir.resolve("run-" + r + ".log"));
        }
        log.info(
                "backfill replay without duplicates: {} ids of {} after {} kills, {} blocks replayed at recorded boundaries;"
                        + " seed {}",
                total,
                N,
                KILLS,
                replayed,
                seed);
        assertThat(total)
                .as("every id once over both shards (no loss; seed %s)", seed)
                .isEqualTo(N);
    }

    private static Process start(
            InfraEndpoints infra,
            ClickHouseTestDatabase db,
            KafkaTestTopics topics,
            S3TestBuckets buckets,
            String bucket,
            String work,
            String group,
            Path log)
            throws IOException {
        String shards = infra.clickhouseShards().stream()
                .map(s -> String.join(",", s.replicaUrls()))
                .collect(Collectors.joining(";"));
        S3InfraEndpoints s3 = buckets.endpoints();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new ProcessBuilder(List.of(
                        java,
                        "-Xmx256m",
                        "-XX:TieredStopAtLevel=1",
                        "-cp",
                        System.getProperty("java.class.path"),
                        BackfillDedupChild.class.getName(),
                        topics.bootstrapServers(),
                        work,
                        group,
                        db.name(),
                        shards,
                        s3.endpoint(),
                        s3.accessKey(),
                        s3.secretKey(),
                        bucket))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
    }
}
