package dev.etl.it.s3;

import static dev.etl.it.support.ConsumerGroupOffsets.committed;
import static dev.etl.it.support.ConsumerGroupOffsets.endOffsets;
import static dev.etl.it.support.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.deser.Deserializer;
import dev.etl.kafka.KafkaSourceConfig;
import dev.etl.ops.Chains;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.RunReport;
import dev.etl.s3.BackfillFormats;
import dev.etl.s3.BackfillPlanner;
import dev.etl.s3.S3BackfillConfig;
import dev.etl.s3.S3BackfillSource;
import dev.etl.s3.WorkItem;
import dev.etl.test.capture.CaptureScript;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.capture.TestEncoders;
import dev.etl.test.infra.InfraServer;
import dev.etl.test.infra.KafkaTestTopics;
import dev.etl.test.infra.LocalInfra;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsResult;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The backfill source's lane against a real broker (the work topic and its group), with an in-memory
 * object store and a line format: every row of every item arrives, the group commits the whole work
 * list, a stop mid-item resumes at the first uncommitted row, and the corrupt-item policy holds.
 */
@LocalInfra(InfraServer.KAFKA)
class BackfillLaneIT {
    private static final String BUCKET = "it";

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void everyRowOfEveryItemArrivesOnceAndTheGroupCommitsTheWholeList(KafkaTestTopics topics) throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        MemoryObjectStore store = new MemoryObjectStore();
        int n = 0;
        for (int object = 0; object < 30; object++) {
            int rows = object == 3 ? 0 : random.nextInt(5000);
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < rows; i++) {
                text.append(n++).append('\n');
            }
            store.put(BUCKET, "data/part-" + object + ".lines", text.toString().getBytes(StandardCharsets.US_ASCII));
        }
        String work = topics.create("backfill-work", 4);
        BackfillPlanner.Result plan = planner(topics, store, work, 4, 1000).plan();
        assertThat(plan.items()).as("seed " + seed).isGreaterThan(30);
        assertThat(planner(topics, store, work, 4, 1000).plan().alreadyPlanned())
                .as("a second plan writes nothing")
                .isTrue();

        store.failOpens.set(3); // the readers retry
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CaptureSink capture = CaptureSink.create("capture", 2);
        S3BackfillSource source = source(
                topics,
                store,
                work,
                "it-" + work,
                registry,
                b -> b.segmentBytes(4096).maxBatchRows(300));
        PipelineRuntime runtime = pipeline("backfill-lanes", 2, source, capture, true, registry);
        runtime.start();
        try {
            assertThat(source.awaitDone(Duration.ofSeconds(90)))
                    .as("the backfill ends (seed " + seed + ")")
                    .isTrue();
        } finally {
            runtime.shutdown();
            runtime.awaitTermination(Duration.ofSeconds(20));
        }
        Tally tally = Tally.of(capture.script());
        assertThat(tally.seen.cardinality())
                .as("distinct rows (seed " + seed + ")")
                .isEqualTo(n);
        assertThat(tally.rows)
                .as("rows written (no duplicates without a crash)")
                .isEqualTo(n);
        Map<TopicPartition, Long> lastItems = endOffsets(topics.admin(), work, 4);
        lastItems.replaceAll(
                (tp, end) -> end - 1); // the list is one transaction: its commit marker ends each partition
        assertThat(committed(topics.admin(), "it-" + work))
                .as("every work item committed")
                .isEqualTo(lastItems);
        assertThat(registry.get("etl.backfill.rows").counter().count()).isEqualTo(n);
        assertThat(registry.get("etl.backfill.done").gauge().value()).isEqualTo(1.0);
        assertThat(registry.get("etl.backfill.work.items").gauge().value()).isEqualTo(plan.items());
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aStopMidItemCommitsTheRowsWrittenAndTheNextRunResumesAtTheFirstUncommittedRow(KafkaTestTopics topics)
            throws Exception {
        MemoryObjectStore store = new MemoryObjectStore();
        int n = 0;
        for (int object = 0; object < 2; object++) {
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < 20_000; i++) {
                text.append(n++).append('\n');
                if (i % 2000 == 1999) {
                    text.append("SLOW\n");
                }
            }
            store.put(BUCKET, "slow/part-" + object + ".lines", text.toString().getBytes(StandardCharsets.US_ASCII));
        }
        String work = topics.create("backfill-resume", 1);
        planner(topics, store, work, 1, 1_000_000).plan();
        String group = "it-" + work;

        CaptureSink first = CaptureSink.create("capture", 1);
        S3BackfillSource source1 =
                source(topics, store, work, group, new SimpleMeterRegistry(), b -> b.maxBatchRows(500));
        PipelineRuntime run1 = pipeline("backfill-resume-1", 1, source1, first, true, new SimpleMeterRegistry());
        run1.start();
        await(
                Duration.ofSeconds(30),
                "run 1 to write 5000 rows",
                () -> first.script().rows() >= 5000);
        long atStop = first.script().rows();
        run1.shutdown();
        RunReport report1 = run1.awaitTermination(Duration.ofSeconds(30));
        assertThat(report1.exitCode()).isZero();
        long written1 = first.script().rows();
        assertThat(written1)
                .as("stopped mid-item (" + atStop + " rows written at the stop)")
                .isLessThan(20_000);
        ListConsumerGroupOffsetsResult offsets = topics.admin().listConsumerGroupOffsets(group);
        OffsetAndMetadata at = offsets.partitionsToOffsetAndMetadata().get().get(new TopicPartition(work, 0));
        assertThat(at.offset()).as("item 0 is not done").isZero();
        assertThat(at.metadata()).as("the row part of the commit").startsWith("etl-s3:" + written1);

        CaptureSink second = CaptureSink.create("capture", 1);
        S3BackfillSource source2 =
                source(topics, store, work, group, new SimpleMeterRegistry(), b -> b.maxBatchRows(500));
        PipelineRuntime run2 = pipeline("backfill-resume-2", 1, source2, second, true, new SimpleMeterRegistry());
        run2.start();
        try {
            assertThat(source2.awaitDone(Duration.ofSeconds(60))).isTrue();
        } finally {
            run2.shutdown();
            run2.awaitTermination(Duration.ofSeconds(20));
        }
        Tally tally = Tally.of(first.script()).add(second.script());
        assertThat(tally.seen.cardinality()).isEqualTo(n);
        assertThat(tally.rows).as("a graceful stop replays nothing").isEqualTo(n);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anItemWithNoRowsLastInItsPartitionIsCommittedAndTheBackfillEnds(KafkaTestTopics topics) throws Exception {
        MemoryObjectStore store = new MemoryObjectStore();
        store.put(BUCKET, "empty/a.lines", "0\n1\n2\n".getBytes(StandardCharsets.US_ASCII));
        store.put(BUCKET, "empty/z.lines", new byte[0]);
        String work = topics.create("backfill-empty", 1);
        planner(topics, store, work, 1, 1000).plan();
        CaptureSink capture = CaptureSink.create("capture", 1);
        S3BackfillSource source = source(topics, store, work, "it-" + work, new SimpleMeterRegistry(), b -> b);
        PipelineRuntime runtime = pipeline("backfill-empty", 1, source, capture, true, new SimpleMeterRegistry());
        runtime.start();
        try {
            assertThat(source.awaitDone(Duration.ofSeconds(30)))
                    .as("deterministic blocks seal and commit past an empty last item while running")
                    .isTrue();
        } finally {
            runtime.shutdown();
            runtime.awaitTermination(Duration.ofSeconds(20));
        }
        assertThat(Tally.of(capture.script()).rows).isEqualTo(3);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void corruptItemsFailThePipelineOrAreSkippedAndCountedUnderSkip(KafkaTestTopics topics) throws Exception {
        MemoryObjectStore store = new MemoryObjectStore();
        store.put(BUCKET, "bad/a.lines", "0\n1\n2\n".getBytes(StandardCharsets.US_ASCII));
        store.put(BUCKET, "bad/b.lines", "3\n4\nCORRUPT\n5\n".getBytes(StandardCharsets.US_ASCII));
        for (int i = 0; i < 10; i++) {
            store.put(BUCKET, "bad/c" + i + ".lines", (100 + i + "\n").getBytes(StandardCharsets.US_ASCII));
        }
        String work = topics.create("backfill-corrupt", 2);
        planner(topics, store, work, 2, 1000).plan();

        CaptureSink failing = CaptureSink.create("capture", 1);
        S3BackfillSource strict = source(topics, store, work, "it-strict-" + work, new SimpleMeterRegistry(), b -> b);
        PipelineRuntime run1 = pipeline("backfill-strict", 1, strict, failing, true, new SimpleMeterRegistry());
        run1.start();
        RunReport report = run1.awaitTermination(Duration.ofSeconds(60));
        assertThat(report.exitCode()).as("on-corrupt=fail fails the pipeline").isEqualTo(1);
        assertThat(String.valueOf(run1.failure())).contains("s3://it/bad/b.lines", "line 2", "on-corrupt");

        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CaptureSink capture = CaptureSink.create("capture", 1);
        S3BackfillSource lenient = source(
                topics,
                store,
                work,
                "it-lenient-" + work,
                registry,
                b -> b.onCorrupt(S3BackfillConfig.CorruptPolicy.SKIP));
        PipelineRuntime run2 = pipeline("backfill-lenient", 1, lenient, capture, true, registry);
        run2.start();
        try {
            assertThat(lenient.awaitDone(Duration.ofSeconds(60))).isTrue();
        } finally {
            run2.shutdown();
            run2.awaitTermination(Duration.ofSeconds(20));
        }
        Tally tally = Tally.of(capture.script());
        assertThat(tally.seen.get(3) && tally.seen.get(4))
                .as("the rows before the corruption")
                .isTrue();
        assertThat(tally.seen.get(5)).as("the rest of the item is given up").isFalse();
        assertThat(tally.rows).isEqualTo(3 + 2 + 10);
        assertThat(registry.get("etl.backfill.items")
                        .tag("outcome", "corrupt")
                        .counter()
                        .count())
                .isEqualTo(1.0);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void workItemsOutsideTheConfiguredScopeAreNeverReadAndFollowTheCorruptPolicy(KafkaTestTopics topics)
            throws Exception {
        MemoryObjectStore store = new MemoryObjectStore();
        for (int i = 0; i < 10; i++) {
            store.put(BUCKET, "data/p" + i + ".lines", (i + "\n").getBytes(StandardCharsets.US_ASCII));
        }
        store.put(BUCKET, "secret/keys.lines", "900\n".getBytes(StandardCharsets.US_ASCII));
        store.put(BUCKET, "secret.lines", "901\n".getBytes(StandardCharsets.US_ASCII));
        store.put("payroll", "data/p0.lines", "902\n".getBytes(StandardCharsets.US_ASCII));
        String work = topics.create("backfill-scope", 1);
        BackfillPlanner.builder()
                .store(store)
                .formats(BackfillFormats.of(List.of(new LinesFormat())))
                .kafka(Map.of("bootstrap.servers", topics.bootstrapServers()))
                .workTopic(work)
                .partitions(1)
                .bucket(BUCKET)
                .prefix("data/")
                .splitBytes(1000)
                .build()
                .plan();
        // Someone who can write to the work topic asks for objects the plan never listed.
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
                Map.of("bootstrap.servers", topics.bootstrapServers()),
                new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (WorkItem item : List.of(
                    new WorkItem("lines", BUCKET, "secret/keys.lines", 0, -1, 4, ""),
                    new WorkItem("lines", BUCKET, "data/../secret.lines", 0, -1, 4, ""),
                    new WorkItem("lines", "payroll", "data/p0.lines", 0, -1, 4, ""))) {
                producer.send(new ProducerRecord<>(work, 0, null, item.encode()))
                        .get();
            }
        }
        UnaryOperator<S3BackfillConfig.Builder> dataOnly = b -> b.prefix("data/");

        CaptureSink failing = CaptureSink.create("capture", 1);
        S3BackfillSource strict = source(topics, store, work, "it-strict-" + work, new SimpleMeterRegistry(), dataOnly);
        PipelineRuntime run1 = pipeline("backfill-scope-strict", 1, strict, failing, true, new SimpleMeterRegistry());
        run1.start();
        RunReport report = run1.awaitTermination(Duration.ofSeconds(60));
        assertThat(report.exitCode()).as("on-corrupt=fail fails the pipeline").isEqualTo(1);
        assertThat(String.valueOf(run1.failure()))
                .contains("s3://it/secret/keys.lines", "outside this backfill's scope", "prefix 'data/'");
        assertThat(Tally.of(failing.script()).seen.get(900)).as("never read").isFalse();

        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CaptureSink capture = CaptureSink.create("capture", 1);
        S3BackfillSource lenient = source(
                topics,
                store,
                work,
                "it-lenient-" + work,
                registry,
                b -> dataOnly.apply(b)
                        .onCorrupt(S3BackfillConfig.CorruptPolicy.SKIP)
                        .maxCorruptRatio(0.5, 10));
        PipelineRuntime run2 = pipeline("backfill-scope-lenient", 1, lenient, capture, true, registry);
        run2.start();
        try {
            assertThat(lenient.awaitDone(Duration.ofSeconds(60))).isTrue();
        } finally {
            run2.shutdown();
            run2.awaitTermination(Duration.ofSeconds(20));
        }
        Tally tally = Tally.of(capture.script());
        assertThat(tally.rows).as("the ten planned objects, nothing else").isEqualTo(10);
        assertThat(tally.seen.get(900) || tally.seen.get(901) || tally.seen.get(902))
                .isFalse();
        assertThat(registry.get("etl.backfill.items")
                        .tag("outcome", "corrupt")
                        .counter()
                        .count())
                .isEqualTo(3.0);
    }

    // ------------------------------------------------------------------------------------------------

    private static BackfillPlanner planner(
            KafkaTestTopics topics, MemoryObjectStore store, String work, int partitions, long split) {
        return BackfillPlanner.builder()
                .store(store)
                .formats(BackfillFormats.of(java.util.List.of(new LinesFormat())))
                .kafka(Map.of("bootstrap.servers", topics.bootstrapServers()))
                .workTopic(work)
                .partitions(partitions)
                .bucket(BUCKET)
                .prefix("")
                .splitBytes(split)
                .build();
    }

    private static S3BackfillSource source(
            KafkaTestTopics topics,
            MemoryObjectStore store,
            String work,
            String group,
            SimpleMeterRegistry registry,
            java.util.function.UnaryOperator<S3BackfillConfig.Builder> tune) {
        KafkaSourceConfig workConfig = KafkaSourceConfig.builder()
                .property("bootstrap.servers", topics.bootstrapServers())
                .property("group.id", group)
                .property("session.timeout.ms", 6000)
                .property("heartbeat.interval.ms", 500)
                .topics(work)
                .pipeline("backfill")
                .meterRegistry(registry)
                .build();
        S3BackfillConfig config = tune.apply(S3BackfillConfig.builder()
                        .workTopic(workConfig)
                        .store(store)
                        .bucket(BUCKET)
                        .readBackoff(Duration.ofMillis(10), Duration.ofMillis(50))
                        .progressInterval(Duration.ofMillis(500))
                        .meterRegistry(registry))
                .build();
        return new S3BackfillSource(config, BackfillFormats.of(java.util.List.of(new LinesFormat())));
    }

    private static PipelineRuntime pipeline(
            String name,
            int lanes,
            S3BackfillSource source,
            CaptureSink capture,
            boolean deterministic,
            SimpleMeterRegistry registry) {
        PipelineConfig config = PipelineConfig.builder(name)
                .lanes(lanes)
                .checkpointInterval(Duration.ofMillis(200))
                .drainTimeout(Duration.ofSeconds(10))
                .pollTimeout(Duration.ofMillis(50))
                .build();
        return Pipeline.builder(config)
                .source(source)
                .sink(capture.definition().toBuilder()
                        .deterministicBlocks(deterministic)
                        .build())
                .chains(ctx -> Chains.from(ctx, Deserializer.payload())
                        .sink(TestEncoders.payload(), (value, meta, shards) -> (int) (meta.offset() % shards)))
                .meterRegistry(registry)
                .build();
    }

    /** Distinct values and total rows of capture writes (values are decimal row numbers). */
    static final class Tally {
        final BitSet seen = new BitSet();
        long rows;

        static Tally of(CaptureScript script) {
            return new Tally().add(script);
        }

        Tally add(CaptureScript script) {
            for (CaptureScript.Write write : script.writes()) {
                for (String value : TestEncoders.decodeStrings(write.bytes())) {
                    seen.set(Integer.parseInt(value));
                    rows++;
                }
            }
            return this;
        }
    }
}
