package dev.etl.test.pipeline;

import static dev.etl.test.pipeline.PipelineFixture.WAIT;
import static dev.etl.test.pipeline.PipelineFixture.build;
import static dev.etl.test.pipeline.PipelineFixture.byPartition;
import static dev.etl.test.pipeline.PipelineFixture.eventually;
import static dev.etl.test.pipeline.PipelineFixture.fastConfig;
import static dev.etl.test.pipeline.PipelineFixture.strings;
import static dev.etl.test.pipeline.PipelineFixture.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.error.ErrorPolicy;
import dev.etl.ops.Chains;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.PipelineState;
import dev.etl.pipeline.RunReport;
import dev.etl.sink.RetryConfig;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.capture.TestEncoders;
import dev.etl.test.memory.MemorySource;
import dev.etl.test.memory.MemorySourceHandle;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Acks end to end: filters and skips commit, failures stall or fail, and only what was written commits. */
class PipelineDeliveryTest {
    private final MemorySource source = MemorySource.create();
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

    @Test
    void recordsDroppedByFilterResolveAsSuccessAndCommit() throws Exception {
        CaptureSink sink = CaptureSink.create("capture", 1);
        runtime = build(
                fastConfig("filter").build(),
                source,
                sink,
                ctx -> Chains.from(ctx, strings())
                        .filter("drop-all", s -> false)
                        .sink(TestEncoders.string(), byPartition()),
                registry);
        runtime.start();
        handle.assign(0, 0);
        for (int i = 0; i < 100; i++) {
            handle.push(0, null, utf8("v" + i));
        }
        assertThat(handle.awaitCommitted(0, 100, WAIT)).isTrue();
        assertThat(sink.script().writes()).isEmpty();
    }

    @Test
    void skippedBadPayloadIsCountedAndCommittedPast() throws Exception {
        CaptureSink sink = CaptureSink.create("capture", 1);
        runtime = build(
                fastConfig("skip").build(),
                source,
                sink,
                ctx -> Chains.from(ctx, strings(), ErrorPolicy.SKIP).sink(TestEncoders.string(), byPartition()),
                registry);
        runtime.start();
        handle.assign(0, 0);
        handle.push(0, null, utf8("a"));
        handle.push(0, null, utf8("bad"));
        handle.push(0, null, utf8("b"));
        assertThat(handle.awaitCommitted(0, 3, WAIT)).isTrue();
        assertThat(sink.script().writes())
                .flatMap(w -> TestEncoders.decodeStrings(w.bytes()))
                .containsExactly("a", "b");
        assertThat(registry.get("etl.errors")
                        .tag("error_type", "deserialization")
                        .counter()
                        .count())
                .isEqualTo(1.0);
    }

    @Test
    void failPolicyFailsThePipelineAndNothingIsCommittedPastTheBadRecord() throws Exception {
        CaptureSink sink = CaptureSink.create("capture", 1);
        runtime = build(fastConfig("fail").build(), source, sink, PipelineFixture.passThrough(), registry);
        runtime.start();
        handle.assign(0, 0);
        handle.push(0, null, utf8("a"));
        assertThat(handle.awaitCommitted(0, 1, WAIT)).isTrue();
        long bad = handle.push(0, null, utf8("bad"));
        handle.push(0, null, utf8("c"));

        RunReport report = runtime.awaitTermination(WAIT);
        assertThat(report).isNotNull();
        assertThat(report.state()).isEqualTo(PipelineState.FAILED);
        assertThat(report.exitCode()).isEqualTo(RunReport.EXIT_FAILED);
        assertThat(report.failure()).hasMessageContaining("memory-0").hasMessageContaining("@" + bad);
        assertThat(handle.lastCommitted(0)).isLessThanOrEqualTo(bad);
        assertThat(runtime.isLive()).isFalse();
    }

    @Test
    void failedSinkWritesStallOnlyThePartitionWhoseDataTheyHeld() throws Exception {
        // Shard 0 holds partition 0's rows and always fails; after 2 attempts its batches fail.
        CaptureSink sink = CaptureSink.create(
                "capture",
                2,
                CaptureSink.TEST_BATCHING,
                new RetryConfig(2, Duration.ofMillis(1), Duration.ofMillis(2), 2.0, 0.0),
                64,
                ErrorPolicy.FAIL);
        sink.script().failNext(0, Integer.MAX_VALUE / 2);
        runtime = build(fastConfig("stall").build(), source, sink, PipelineFixture.passThrough(), registry);
        runtime.start();
        handle.assign(0, 0, 1);
        for (int i = 0; i < 50; i++) {
            handle.push(0, null, utf8("p0-" + i));
            handle.push(1, null, utf8("p1-" + i));
        }
        assertThat(handle.awaitCommitted(1, 50, WAIT)).isTrue();
        assertThat(eventually(() -> sink.script().attempts(0) >= 2, WAIT)).isTrue();
        Thread.sleep(300); // several commit intervals
        assertThat(handle.lastCommitted(0)).isEqualTo(-1);
        assertThat(runtime.state()).isEqualTo(PipelineState.RUNNING);
        assertThat(registry.get("etl.checkpoint.watermark.age").gauge().value()).isGreaterThan(0.0);
    }

    @Test
    void clearedFaultsAndAReassignLetAStalledPartitionCommit() throws Exception {
        CaptureSink sink = CaptureSink.create(
                "capture",
                2,
                CaptureSink.TEST_BATCHING,
                new RetryConfig(2, Duration.ofMillis(1), Duration.ofMillis(2), 2.0, 0.0),
                64,
                ErrorPolicy.FAIL);
        sink.script().failNext(0, Integer.MAX_VALUE / 2).latency(0, Duration.ofMillis(1));
        runtime = build(fastConfig("unstall").build(), source, sink, PipelineFixture.passThrough(), registry);
        runtime.start();
        handle.assign(0, 0);
        for (int i = 0; i < 50; i++) {
            handle.push(0, null, utf8("p0-" + i));
        }
        assertThat(eventually(() -> sink.script().attempts(0) >= 2, WAIT)).isTrue();
        handle.revoke(0);
        handle.assign(0, 0);
        Thread.sleep(300); // the re-read batch fails too while the faults stand
        assertThat(handle.lastCommitted(0)).isLessThan(50);

        sink.script().clearFaults(0);
        handle.revoke(0);
        handle.assign(0, 0);
        assertThat(handle.awaitCommitted(0, 50, WAIT)).isTrue();
        assertThat(sink.script().rows()).isGreaterThanOrEqualTo(50);
    }

    @Test
    void partitionStalledLongerThanStalledFailAfterFailsThePipeline() throws Exception {
        CaptureSink sink = CaptureSink.create("capture", 1);
        sink.script().failNext(0, Integer.MAX_VALUE / 2); // transient, retried forever
        runtime = build(
                fastConfig("stalled").stalledFailAfter(Duration.ofMillis(300)).build(),
                source,
                sink,
                PipelineFixture.passThrough(),
                registry);
        runtime.start();
        handle.assign(0, 0);
        handle.push(0, null, utf8("never-written"));

        RunReport report = runtime.awaitTermination(WAIT);
        assertThat(report).isNotNull();
        assertThat(report.state()).isEqualTo(PipelineState.FAILED);
        assertThat(report.failure()).hasMessageContaining("memory-0").hasMessageContaining("stalled-fail-after");
        assertThat(handle.lastCommitted(0)).isEqualTo(-1);
    }

    @Test
    void everyRecordOfSeveralPartitionsAndLanesIsWrittenAndCommitted() throws Exception {
        CaptureSink sink = CaptureSink.create("capture", 2);
        runtime = build(fastConfig("lanes").lanes(2).build(), source, sink, PipelineFixture.passThrough(), registry);
        runtime.start();
        handle.assign(0, 0, 1);
        handle.assign(1, 2, 3);
        int perPartition = 5_000;
        for (int i = 0; i < perPartition; i++) {
            for (int p = 0; p < 4; p++) {
                handle.push(p, null, utf8(p + ":" + i));
            }
        }
        for (int p = 0; p < 4; p++) {
            assertThat(handle.awaitCommitted(p, perPartition, WAIT))
                    .as("partition %d", p)
                    .isTrue();
        }
        Map<String, Long> counts = sink.script().writes().stream()
                .flatMap(w -> TestEncoders.decodeStrings(w.bytes()).stream())
                .collect(java.util.stream.Collectors.groupingBy(s -> s, java.util.stream.Collectors.counting()));
        assertThat(counts).hasSize(4 * perPartition);
        assertThat(counts.values()).allMatch(c -> c == 1L);
    }
}
