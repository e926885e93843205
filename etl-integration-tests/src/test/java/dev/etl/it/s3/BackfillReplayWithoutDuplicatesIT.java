package dev.etl.it.s3;

import static dev.etl.it.support.ChildLogs.recordsIn;
import static dev.etl.it.support.ChildLogs.replayedIn;
import static dev.etl.it.support.ChildLogs.tail;
import static dev.etl.it.support.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.it.support.WrittenBlockKill;
import dev.etl.s3.BackfillPlanner;
import dev.etl.s3.S3ObjectStore;
import dev.etl.s3.WorkItem;
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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * Crash replay without duplicates for a backfill: {@link BackfillDedupChild} (deterministic blocks, the
 * dedup unit a row range inside a work item) is SIGKILLed up to {@value #KILLS} times, each time in the
 * state the feature exists for — a block written to ClickHouse whose rows the group has not committed
 * (work-item offset and row), found from the outside with the child frozen ({@link WrittenBlockKill}) —
 * then a last run ends by itself; every replica of the ReplicatedMergeTree table must hold every id
 * exactly once ({@code count()} against {@code uniqExact(id)}, no FINAL), and the servers must have dropped
 * replayed blocks ({@code DuplicatedInsertedBlocks}). Seeded ({@code -Detl.it.seed}).
 */
@LocalInfra({InfraServer.KAFKA, InfraServer.CLICKHOUSE, InfraServer.S3})
class BackfillReplayWithoutDuplicatesIT {
    private static final Logger log = LoggerFactory.getLogger(BackfillReplayWithoutDuplicatesIT.class);
    private static final int OBJECTS = 12;
    private static final int ROWS = 20_000;
    private static final int N = OBJECTS * ROWS;
    private static final int PARTITIONS = 4;
    private static final int KILLS = 3;
    private static final int MAX_RUNS = 10;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void sigkillBehindWrittenBlocksMidBackfillLosesNothingAndDuplicatesNothing(
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
        long duplicatedBefore = WrittenBlockKill.duplicatedInsertedBlocks(infra);
        String bucket = buckets.create("backfill-dedup");
        int n = 0;
        long[][] lineStarts = new long[OBJECTS][ROWS];
        for (int object = 0; object < OBJECTS; object++) {
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < ROWS; i++) {
                lineStarts[object][i] = text.length();
                text.append(n++).append('\n');
            }
            byte[] bytes = text.toString().getBytes(StandardCharsets.US_ASCII);
            String key = "ids/part-" + object + ".ndjson";
            buckets.client().putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(bytes));
        }
        String work = topics.create("backfill-dedup", PARTITIONS);
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
        List<ItemIds> items = items(topics, work, lineStarts);
        log.info("backfill replay without duplicates: {} work items", items.size());

        WrittenBlockKill killer = new WrittenBlockKill(() -> positions(infra, db, topics, group, items));
        int run = 0;
        int killedBehind = 0;
        while (killedBehind < KILLS) {
            assertThat(run).as("runs started for the kills").isLessThan(MAX_RUNS);
            Path logFile = dir.resolve("run-" + (++run) + ".log");
            Process p = start(infra, db, topics, buckets, bucket, work, group, logFile);
            try {
                int killedSoFar = killedBehind;
                await(Duration.ofSeconds(60), "run " + run + " to read rows (log " + logFile + ")", () -> {
                    if (!p.isAlive() && killedSoFar > 0 && p.exitValue() == 0) {
                        return true; // a killed run had written all but what this one replays
                    }
                    assertThat(p.isAlive())
                            .as("child alive; log:\n%s", tail(logFile))
                            .isTrue();
                    return recordsIn(logFile) > 0;
                });
                WrittenBlockKill.Kill kill = killer.kill(p, Duration.ofSeconds(60), random);
                if (kill == null) {
                    assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
                    if (p.exitValue() == 0) {
                        assertThat(killedBehind)
                                .as(
                                        "the first run ended by itself before a moment with a written block behind "
                                                + "the commit; log:\n%s",
                                        tail(logFile))
                                .isPositive();
                        log.info("run {} finished the backfill before such a moment: no more kills", run);
                        break;
                    }
                    log.info("run {}: a commit already on the wire as it froze covered the block; another run", run);
                    continue;
                }
                killedBehind++;
                log.info(
                        "kill {}: run {} after {} records, behind a written block: work partition {} committed up to "
                                + "item {} row {}, rows in ClickHouse up to item {} row {} ({} looks)",
                        killedBehind,
                        run,
                        recordsIn(logFile),
                        kill.partition(),
                        kill.committed() >>> 32,
                        kill.committed() & 0xFFFF_FFFFL,
                        kill.written() >>> 32,
                        kill.written() & 0xFFFF_FFFFL,
                        kill.attempts());
            } finally {
                if (p.isAlive()) {
                    p.destroyForcibly();
                    assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
                }
            }
        }
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
        long duplicated = WrittenBlockKill.duplicatedInsertedBlocks(infra) - duplicatedBefore;
        long replayed = 0;
        for (int r = 1; r <= run; r++) {
            replayed += replayedIn(dir.resolve("run-" + r + ".log"));
        }
        log.info(
                "backfill replay without duplicates: {} ids of {} after {} kills behind a written block ({} runs), "
                        + "{} blocks replayed at recorded boundaries, {} dropped by the servers "
                        + "(DuplicatedInsertedBlocks); seed {}",
                total,
                N,
                killedBehind,
                run,
                replayed,
                duplicated,
                seed);
        assertThat(total)
                .as("every id once over both shards (no loss; seed %s)", seed)
                .isEqualTo(N);
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
     * The ids of one work item: the item at {@code offset} of work-topic {@code partition} holds ids
     * {@code [from, to)}, row {@code r} of the item being id {@code from + r}.
     */
    record ItemIds(int partition, long offset, long from, long to) {}

    /**
     * The work list as planned (read_committed), each item's ids from its object's line positions: an
     * NDJSON split is the lines that start in its byte range.
     */
    private static List<ItemIds> items(KafkaTestTopics topics, String work, long[][] lineStarts) {
        List<ItemIds> items = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(
                Map.of("bootstrap.servers", topics.bootstrapServers(), "isolation.level", "read_committed"),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                partitions.add(new TopicPartition(work, p));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                assertThat(System.nanoTime() - deadline)
                        .as("work list read in time")
                        .isNegative();
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    WorkItem item = WorkItem.decode(record.value(), 0, record.value().length);
                    String name = item.key().substring("ids/part-".length());
                    int object = Integer.parseInt(name.substring(0, name.indexOf('.')));
                    long[] starts = lineStarts[object];
                    int first = firstLineFrom(starts, item.start());
                    int last = item.end() < 0 ? ROWS : firstLineFrom(starts, item.end());
                    items.add(new ItemIds(
                            record.partition(),
                            record.offset(),
                            (long) object * ROWS + first,
                            (long) object * ROWS + last));
                }
            }
        }
        items.sort(Comparator.comparingLong(ItemIds::from));
        long next = 0;
        for (ItemIds item : items) {
            assertThat(item.from())
                    .as("items cover the ids without gaps: %s", items)
                    .isEqualTo(next);
            next = item.to();
        }
        assertThat(next).isEqualTo(N);
        return items;
    }

    /** The first line starting at or after byte {@code position} ({@code ROWS} if none). */
    private static int firstLineFrom(long[] starts, long position) {
        int i = Arrays.binarySearch(starts, position);
        return i >= 0 ? i : -i - 1;
    }

    /**
     * Per work-topic partition, the committed position and the furthest position with a row on some
     * replica, both as {@code item offset << 32 | row} (the committed row is the commit metadata's
     * {@code etl-s3:<row>} part, when the commit is inside an item).
     */
    private static WrittenBlockKill.Positions positions(
            InfraEndpoints infra, ClickHouseTestDatabase db, KafkaTestTopics topics, String group, List<ItemIds> items)
            throws Exception {
        Map<Integer, Long> committed = new HashMap<>();
        Map<TopicPartition, OffsetAndMetadata> offsets = topics.admin()
                .listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(10, TimeUnit.SECONDS);
        offsets.forEach((tp, om) -> {
            if (om != null) {
                long row = 0;
                String metadata = om.metadata();
                if (metadata != null && metadata.startsWith("etl-s3:")) {
                    int bar = metadata.indexOf('|');
                    row = Long.parseLong(metadata.substring("etl-s3:".length(), bar < 0 ? metadata.length() : bar));
                }
                committed.put(tp.partition(), om.offset() << 32 | row);
            }
        });
        StringBuilder item = new StringBuilder("multiIf(");
        for (int i = 0; i < items.size() - 1; i++) {
            item.append("id < ")
                    .append(items.get(i).to())
                    .append(", ")
                    .append(i)
                    .append(", ");
        }
        item.append(items.size() - 1).append(')');
        Map<Integer, Long> written = new HashMap<>();
        for (InfraEndpoints.ClickHouseShard shard : infra.clickhouseShards()) {
            for (String url : shard.replicaUrls()) {
                String answer = ClickHouseHttp.query(
                        url,
                        "SELECT " + item + " AS item, max(id) FROM " + db.table("orders")
                                + " GROUP BY item FORMAT TabSeparated");
                for (String line : answer.strip().split("\n")) {
                    if (!line.isEmpty()) {
                        String[] f = line.split("\t");
                        ItemIds ids = items.get(Integer.parseInt(f[0]));
                        long position = ids.offset() << 32 | (Long.parseLong(f[1]) - ids.from());
                        written.merge(ids.partition(), position, Math::max);
                    }
                }
            }
        }
        return new WrittenBlockKill.Positions(committed, written);
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
