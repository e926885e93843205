package dev.etl.datagen;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.deser.Deserializer;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.RunReport;
import dev.etl.record.Payload;
import dev.etl.sink.BatchConfig;
import dev.etl.sink.KeyHashRouter;
import dev.etl.source.BatchHandler;
import dev.etl.source.CommitOffsets;
import dev.etl.source.PartitionListener;
import dev.etl.source.Source;
import dev.etl.source.SourceLane;
import dev.etl.test.capture.CaptureScript;
import dev.etl.test.capture.CaptureSink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A seeded randomized harness: random partitions, lanes, record counts, poll and batch sizes, filtered
 * records, transient sink failures and latency, against a reference model of what is durable — the
 * capture sink's successful writes. At every commit the source receives, every offset below the
 * committed one must already be written (or be a filtered record), and committed offsets never go
 * back; at the end every record not filtered is written exactly once and the run ends with exit code 0.
 *
 * <p>Replay one scenario with {@code -Ddatagen.properties.seed=<seed>}; {@code -Ddatagen.properties.runs=<n>}
 * runs more (default 6).
 */
class DatagenCommitPropertyTest {

    @Test
    void theCommittedWatermarkNeverPassesDataThatIsNotWritten() throws Exception {
        Long fixed = Long.getLong("datagen.properties.seed");
        int runs = fixed != null ? 1 : Integer.getInteger("datagen.properties.runs", 6);
        long base = System.nanoTime();
        for (int run = 0; run < runs; run++) {
            long seed = fixed != null ? fixed : base + run * 0x9E3779B97F4A7C15L;
            try {
                scenario(seed);
            } catch (AssertionError | Exception e) {
                throw new AssertionError(
                        "scenario failed; replay with -Ddatagen.properties.seed=" + seed + ": " + e.getMessage(), e);
            }
        }
    }

    private static void scenario(long seed) throws Exception {
        Random random = new Random(seed);
        int partitions = 1 + random.nextInt(6);
        int lanes = 1 + random.nextInt(3);
        int records = 1 + random.nextInt(6_000);
        int maxPoll = 1 + random.nextInt(700);
        int shards = 1 + random.nextInt(3);
        int filterModulus = 2 + random.nextInt(9); // ids divisible by it are filtered out
        boolean filter = random.nextBoolean();
        PipelineConfig config = PipelineConfig.builder("datagen-props")
                .lanes(lanes)
                .checkpointInterval(Duration.ofMillis(1 + random.nextInt(30)))
                .pollTimeout(Duration.ofMillis(5))
                .drainTimeout(Duration.ofSeconds(20))
                .minPause(Duration.ofMillis(2))
                .maxInFlightBytes(random.nextBoolean() ? 256L << 20 : 16 * 1024)
                .build();
        DatagenSource source = DatagenSource.builder(ID_VALUE)
                .partitions(partitions)
                .records(records)
                .lanes(lanes)
                .maxPollRecords(maxPoll)
                .seed(seed)
                .build();
        CaptureSink sink = CaptureSink.create(
                "capture",
                shards,
                new BatchConfig(1 + random.nextInt(3_000), 8L << 20, Duration.ofMillis(1 + random.nextInt(20))),
                CaptureSink.TEST_RETRY,
                64,
                dev.etl.error.ErrorPolicy.FAIL);
        for (int s = 0; s < shards; s++) {
            sink.script().failNext(s, random.nextInt(4));
            if (random.nextInt(3) == 0) {
                sink.script().latency(s, Duration.ofMillis(random.nextInt(5)));
            }
        }
        List<String> violations = new ArrayList<>();
        ObservedSource observed =
                new ObservedSource(source, sink.script(), partitions, filter ? filterModulus : 0, violations);
        ChainFactory chain = ctx -> Chains.from(ctx, Deserializer.payload())
                .filter("some", (Payload value) -> !filter || (idOf(value) % filterModulus != 0))
                .sink(CapturedRows.POSITION, KeyHashRouter.byRecordKey());
        PipelineRuntime runtime = Pipeline.builder(config)
                .source(observed)
                .sink(sink.definition())
                .chains(chain)
                .build();
        source.onDone(runtime::shutdown);
        runtime.start();
        RunReport report = runtime.awaitTermination(Duration.ofSeconds(90));

        String scenario = "partitions=" + partitions + " lanes=" + lanes + " records=" + records + " maxPoll=" + maxPoll
                + " shards=" + shards + (filter ? " filter%" + filterModulus : "");
        assertThat(report).as("ended by itself: %s", scenario).isNotNull();
        assertThat(violations).as("commits past unwritten data: %s", scenario).isEmpty();
        assertThat(report.exitCode()).as(scenario).isZero();
        Map<Long, Integer> counts = CapturedRows.counts(sink.script());
        int expected = 0;
        for (int p = 0; p < partitions; p++) {
            if (source.endOffset(p) == 0) {
                // a partition without records has nothing to commit: it may stay uncommitted (-1)
                assertThat(source.committedOffset(p))
                        .as("%s: empty partition %d", scenario, p)
                        .isIn(-1L, 0L);
            } else {
                assertThat(source.committedOffset(p))
                        .as("%s: partition %d committed to its end", scenario, p)
                        .isEqualTo(source.endOffset(p));
            }
            for (long offset = 0; offset < source.endOffset(p); offset++) {
                long id = offset * partitions + p;
                boolean kept = !filter || id % filterModulus != 0;
                assertThat(counts.getOrDefault(CapturedRows.key(p, offset), 0))
                        .as("%s: datagen-%d offset %d", scenario, p, offset)
                        .isEqualTo(kept ? 1 : 0);
                expected += kept ? 1 : 0;
            }
        }
        assertThat(counts.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(expected);
    }

    /** The id as the key and at the start of the value, then random bytes. */
    static final RecordGenerator ID_VALUE = (partition, sequence, random, out) -> {
        out.key().writeLongBE(out.id());
        out.value().writeLongBE(out.id()).writeRandomBytes(random, random.nextInt(24));
    };

    /** The record's id from the start of its value. */
    private static long idOf(Payload value) {
        long id = 0;
        for (int i = 0; i < 8; i++) {
            id = (id << 8) | (value.get(i) & 0xff);
        }
        return id;
    }

    /**
     * The datagen source with every commit checked against the reference model: the (partition, offset)s
     * the capture sink has durably written, plus the ones the chain filters out.
     */
    static final class ObservedSource implements Source {
        private final DatagenSource source;
        private final CaptureScript written;
        private final int partitions;
        private final int filterModulus;
        private final List<String> violations;

        ObservedSource(
                DatagenSource source,
                CaptureScript written,
                int partitions,
                int filterModulus,
                List<String> violations) {
            this.source = source;
            this.written = written;
            this.partitions = partitions;
            this.filterModulus = filterModulus;
            this.violations = violations;
        }

        @Override
        public SourceLane openLane(int laneIndex, PartitionListener listener) {
            SourceLane lane = source.openLane(laneIndex, listener);
            return new SourceLane() {
                @Override
                public void poll(long timeoutMs, BatchHandler handler) {
                    lane.poll(timeoutMs, handler);
                }

                @Override
                public void pause() {
                    lane.pause();
                }

                @Override
                public void resume() {
                    lane.resume();
                }

                @Override
                public boolean isPaused() {
                    return lane.isPaused();
                }

                @Override
                public void pausePartition(int partition) {
                    lane.pausePartition(partition);
                }

                @Override
                public void resumePartition(int partition) {
                    lane.resumePartition(partition);
                }

                @Override
                public void commit(CommitOffsets offsets, boolean sync, CommitCallback callback) {
                    check(offsets);
                    lane.commit(offsets, sync, callback);
                }

                @Override
                public String describe(int partition) {
                    return lane.describe(partition);
                }

                @Override
                public String topic(int partition) {
                    return lane.topic(partition);
                }

                @Override
                public void wakeup() {
                    lane.wakeup();
                }

                @Override
                public void close() {
                    lane.close();
                }
            };
        }

        private void check(CommitOffsets offsets) {
            Map<Long, Integer> durable = CapturedRows.counts(written);
            for (int i = 0; i < offsets.size(); i++) {
                int partition = offsets.partition(i);
                long committed = offsets.offset(i);
                long previous = source.committedOffset(partition);
                if (committed < previous) {
                    synchronized (violations) {
                        violations.add("datagen-" + partition + " went back from " + previous + " to " + committed);
                    }
                }
                for (long offset = Math.max(0, previous); offset < committed; offset++) {
                    long id = offset * partitions + partition;
                    boolean filtered = filterModulus > 0 && id % filterModulus == 0;
                    if (!filtered && !durable.containsKey(CapturedRows.key(partition, offset))) {
                        synchronized (violations) {
                            violations.add("commit of datagen-" + partition + " at " + committed + " covers offset "
                                    + offset + ", which is not written");
                        }
                        break;
                    }
                }
            }
        }

        @Override
        public String describe() {
            return "observed " + source.describe();
        }

        @Override
        public void close() {
            source.close();
        }
    }
}
