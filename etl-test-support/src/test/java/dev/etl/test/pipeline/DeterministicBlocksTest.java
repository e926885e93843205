package dev.etl.test.pipeline;

import static dev.etl.test.pipeline.PipelineFixture.WAIT;
import static dev.etl.test.pipeline.PipelineFixture.eventually;
import static dev.etl.test.pipeline.PipelineFixture.fastConfig;
import static dev.etl.test.pipeline.PipelineFixture.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.error.ErrorPolicy;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.sink.BatchConfig;
import dev.etl.sink.RetryConfig;
import dev.etl.test.capture.CaptureScript;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.capture.TestEncoders;
import dev.etl.test.memory.MemorySource;
import dev.etl.test.memory.MemorySourceHandle;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Deterministic blocks through the real lanes and sink runtime (issue 14): rows are written in blocks
 * of one partition's offset range, each an insert of its own with a token named after the range; the
 * ends are recorded in the commit metadata before a block is written; and a replay — after a loss (the
 * in-process stand-in for a crash: the lane drops the partition without committing, while writes it
 * started still land) — seals at the recorded ends and rebuilds the same inserts, byte for byte, so a
 * deduplicating sink (by token, as a server with {@code insert_deduplication_token} does, or by content,
 * as ReplicatedMergeTree's block checksum does) keeps every row exactly once.
 */
class DeterministicBlocksTest {
    private static final BatchConfig SMALL_BLOCKS = new BatchConfig(50, 1 << 20, Duration.ofMillis(30));

    private final MemorySource source = MemorySource.create(37);
    private final MemorySourceHandle handle = source.handle();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private PipelineRuntime runtime;

    @AfterEach
    void stop() throws InterruptedException {
        if (runtime != null) {
            runtime.shutdown();
            runtime.awaitTermination(WAIT);
        }
    }

    private CaptureSink sink(int shards) {
        return CaptureSink.create(
                "capture",
                shards,
                SMALL_BLOCKS,
                new RetryConfig(0, Duration.ofMillis(5), Duration.ofMillis(50), 2.0, 0.0),
                64,
                ErrorPolicy.FAIL);
    }

    private PipelineRuntime start(CaptureSink sink, Duration checkpointInterval) {
        PipelineRuntime pipeline = withBlocks(
                fastConfig("blocks").checkpointInterval(checkpointInterval).build(), sink);
        pipeline.start();
        return pipeline;
    }

    /** A pipeline over the capture sink with deterministic blocks on (as the ClickHouse sink has them). */
    private PipelineRuntime withBlocks(PipelineConfig config, CaptureSink sink) {
        return Pipeline.builder(config)
                .source(source)
                .sink(sink.definition().toBuilder().deterministicBlocks(true).build())
                .chains(PipelineFixture.passThrough())
                .meterRegistry(registry)
                .build();
    }

    @Test
    void everyBlockHoldsOnePartitionsRowsAndIsWrittenAloneWithARangeToken() throws Exception {
        CaptureSink sink = sink(2);
        runtime = start(sink, Duration.ofMillis(50));
        handle.assign(0, 0, 1, 2);
        int perPartition = 400;
        for (int i = 0; i < perPartition; i++) {
            for (int p = 0; p < 3; p++) {
                handle.push(p, null, utf8(p + ":" + i));
            }
        }
        for (int p = 0; p < 3; p++) {
            assertThat(handle.awaitCommitted(p, perPartition, WAIT))
                    .as("partition %d committed", p)
                    .isTrue();
        }
        List<CaptureScript.Write> writes = sink.script().writes();
        assertThat(writes).isNotEmpty();
        Set<String> rows = new HashSet<>();
        for (CaptureScript.Write write : writes) {
            List<String> values = TestEncoders.decodeStrings(write.bytes());
            assertThat(values.stream().map(v -> v.substring(0, v.indexOf(':'))).distinct())
                    .as("one partition per block: %s", values)
                    .hasSize(1);
            assertThat(write.dedupToken())
                    .as("a range token, not a content hash")
                    .startsWith("b");
            assertThat(write.rows()).isLessThanOrEqualTo(SMALL_BLOCKS.maxRows());
            rows.addAll(values);
        }
        assertThat(rows).hasSize(3 * perPartition);
        assertThat(registry.get("etl.checkpoint.sealed.blocks").counters()).isNotEmpty();
    }

    @Test
    void aReplayAfterALossRebuildsTheSameBlocksSoDedupKeepsEveryRowOnce() throws Exception {
        CaptureSink sink = sink(2);
        // Slow writes: blocks are sealed and recorded well ahead of being written, so the loss below
        // leaves written-but-uncommitted blocks (which replay) and recorded-but-unwritten ones.
        sink.script().latency(0, Duration.ofMillis(15));
        sink.script().latency(1, Duration.ofMillis(15));
        // A long interval: only boundary commits move the committed offset; the loss replays a lot.
        runtime = start(sink, Duration.ofHours(1));
        handle.assign(0, 0);
        int records = 3_000;
        for (int i = 0; i < records; i++) {
            handle.push(0, utf8("k" + (i % 7)), utf8("0:" + i));
        }
        assertThat(eventually(() -> sink.script().writes().size() >= 5, WAIT)).isTrue();
        handle.lose(0);
        assertThat(eventually(() -> handle.lastCommitted(0) >= 0, WAIT)).isTrue();
        handle.assign(0, 0); // the same lane, a new epoch: replays from the committed offset and metadata
        assertThat(handle.awaitCommitted(0, records, WAIT)).isTrue();

        List<CaptureScript.Write> writes = sink.script().writes();
        Map<String, byte[]> byToken = new HashMap<>();
        int repeated = 0;
        List<String> rowsOfDistinctBlocks = new ArrayList<>();
        Set<String> contents = new HashSet<>();
        for (CaptureScript.Write write : writes) {
            byte[] earlier = byToken.putIfAbsent(write.dedupToken(), write.bytes());
            if (earlier != null) {
                repeated++;
                assertThat(write.bytes())
                        .as("a replayed block is byte-identical (block checksum dedup)")
                        .isEqualTo(earlier);
                continue;
            }
            assertThat(contents.add(Arrays.toString(write.bytes())))
                    .as("no two tokens for the same bytes")
                    .isTrue();
            rowsOfDistinctBlocks.addAll(TestEncoders.decodeStrings(write.bytes()));
        }
        assertThat(repeated)
                .as("the loss replayed blocks that were written before it")
                .isPositive();
        assertThat(rowsOfDistinctBlocks)
                .as("every row exactly once after dedup")
                .hasSize(records)
                .doesNotHaveDuplicates();
        assertThat(registry.get("etl.checkpoint.replayed.blocks").counter().count())
                .isPositive();
    }

    /**
     * Issue 30 item 6: a shutdown whose boundary commit fails (the group coordinator unreachable) cannot
     * record the ends of the blocks it just sealed, so it may not write them: it used to wait the whole
     * drain-timeout for them. Now they fail at once (their offsets stay uncommitted and replay) and the
     * shutdown ends promptly, reporting the data it left unwritten.
     */
    @Test
    void aShutdownWhoseBoundaryCommitFailsDoesNotWaitTheWholeDrainTimeout() throws Exception {
        CaptureSink sink = sink(1);
        runtime = withBlocks(
                fastConfig("blocks-no-commit")
                        .checkpointInterval(Duration.ofHours(1))
                        .drainTimeout(Duration.ofSeconds(20))
                        .build(),
                sink);
        runtime.start();
        handle.assign(0, 0);
        handle.push(0, null, utf8("0:0"));
        assertThat(handle.awaitCommitted(0, 1, WAIT)).isTrue();
        handle.failCommits(true);
        for (int i = 1; i < 40; i++) {
            handle.push(0, null, utf8("0:" + i));
        }
        assertThat(eventually(() -> runtime.recordsIn() == 40, WAIT)).isTrue();

        long started = System.nanoTime();
        runtime.shutdown();
        var report = runtime.awaitTermination(Duration.ofSeconds(30));
        long tookMs = (System.nanoTime() - started) / 1_000_000;
        runtime = null;

        assertThat(report).isNotNull();
        assertThat(tookMs)
                .as("the drain did not wait for blocks it could never write")
                .isLessThan(10_000);
        assertThat(report.exitCode()).as("data left unwritten, nothing lost").isEqualTo(2);
        assertThat(handle.lastCommitted(0)).isEqualTo(1);
    }

    @Test
    void aRevokeSealsRecordsAndWritesTheOpenBlocksSoTheNextOwnerCommitsPastThem() throws Exception {
        CaptureSink sink = sink(1);
        runtime = withBlocks(
                fastConfig("blocks-revoke")
                        .lanes(2)
                        .checkpointInterval(Duration.ofHours(1))
                        .build(),
                sink);
        runtime.start();
        handle.assign(0, 0);
        for (int i = 0; i < 120; i++) {
            handle.push(0, null, utf8("0:" + i));
        }
        assertThat(eventually(() -> runtime.recordsIn() == 120, WAIT)).isTrue();
        handle.revoke(0);
        assertThat(handle.awaitCommitted(0, 120, WAIT))
                .as("the revoke wrote every block and committed past it")
                .isTrue();
        handle.assign(1, 0);
        for (int i = 120; i < 200; i++) {
            handle.push(0, null, utf8("0:" + i));
        }
        assertThat(handle.awaitCommitted(0, 200, WAIT)).isTrue();
        List<String> rows = new ArrayList<>();
        sink.script().writes().forEach(w -> rows.addAll(TestEncoders.decodeStrings(w.bytes())));
        assertThat(rows).hasSize(200).doesNotHaveDuplicates();
    }
}
