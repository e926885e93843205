package dev.etl.test.pipeline;

import static dev.etl.test.pipeline.PipelineFixture.WAIT;
import static dev.etl.test.pipeline.PipelineFixture.build;
import static dev.etl.test.pipeline.PipelineFixture.eventually;
import static dev.etl.test.pipeline.PipelineFixture.fastConfig;
import static dev.etl.test.pipeline.PipelineFixture.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.PipelineState;
import dev.etl.pipeline.RunReport;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.memory.MemorySource;
import dev.etl.test.memory.MemorySourceHandle;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The drain barrier: a clean drain commits everything; a deadline abandons loudly and commits nothing past. */
class ShutdownTest {
    private final MemorySource source = MemorySource.create();
    private final MemorySourceHandle handle = source.handle();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void gracefulShutdownDrainsInFlightDataAndCommitsItBeforeStopping() throws Exception {
        CaptureSink sink = CaptureSink.create("capture", 2);
        sink.script().latency(0, Duration.ofMillis(50)).latency(1, Duration.ofMillis(50));
        PipelineRuntime runtime = build(
                fastConfig("drain").checkpointInterval(Duration.ofHours(1)).build(),
                source,
                sink,
                PipelineFixture.passThrough(),
                registry);
        runtime.start();
        handle.assign(0, 0, 1);
        for (int i = 0; i < 2_000; i++) {
            handle.push(i % 2, null, utf8("v" + i));
        }
        // Wait until everything was polled, then shut down while writes are in flight.
        assertThat(eventually(() -> runtime.recordsIn() == 2_000, WAIT)).isTrue();
        runtime.shutdownHandle().trigger();
        RunReport report = runtime.awaitTermination(WAIT);

        assertThat(report.state()).isEqualTo(PipelineState.STOPPED);
        assertThat(report.exitCode()).isZero();
        assertThat(report.abandonedBatches()).isZero();
        assertThat(sink.script().rows()).isEqualTo(2_000);
        // The interval is an hour: these commits can only be the shutdown's synchronous ones.
        assertThat(handle.lastCommitted(0)).isEqualTo(1_000);
        assertThat(handle.lastCommitted(1)).isEqualTo(1_000);
    }

    @Test
    void drainDeadlineAbandonsUnwrittenBatchesCountsThemAndCommitsNothingPast() throws Exception {
        CaptureSink sink = CaptureSink.create("capture", 1);
        PipelineRuntime runtime = build(
                fastConfig("abandon").drainTimeout(Duration.ofMillis(500)).build(),
                source,
                sink,
                PipelineFixture.passThrough(),
                registry);
        runtime.start();
        handle.assign(0, 0);
        handle.push(0, null, utf8("written"));
        assertThat(handle.awaitCommitted(0, 1, WAIT)).isTrue();

        sink.script().block(0);
        for (int i = 0; i < 100; i++) {
            handle.push(0, null, utf8("stuck" + i));
        }
        assertThat(eventually(() -> sink.script().attempts(0) >= 2, WAIT)).isTrue();
        long started = System.nanoTime();
        runtime.shutdownHandle().trigger();
        RunReport report = runtime.awaitTermination(WAIT);
        sink.script().release(0);

        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
        assertThat(report.abandonedBatches()).isPositive();
        assertThat(report.exitCode()).isEqualTo(RunReport.EXIT_ABANDONED);
        assertThat(handle.lastCommitted(0)).isEqualTo(1);
        assertThat(registry.get("etl.sink.abandoned.batches").counters())
                .anySatisfy(c -> assertThat(c.count()).isPositive());
    }

    @Test
    void laneTeardownFailsAcksOfChunksNeverHandedOff() throws Exception {
        // The sink queue and budget are full (blocked sink, tiny budget); the fail path must
        // not commit what sits in the lane's pending chunks.
        CaptureSink sink = CaptureSink.create("capture", 1);
        sink.script().block(0);
        PipelineRuntime runtime = build(
                fastConfig("teardown")
                        .maxInFlightBytes(1024)
                        .drainTimeout(Duration.ofMillis(300))
                        .build(),
                source,
                sink,
                PipelineFixture.passThrough(),
                registry);
        runtime.start();
        handle.assign(0, 0);
        for (int i = 0; i < 1_000; i++) {
            handle.push(0, null, utf8("x".repeat(50) + i));
        }
        assertThat(eventually(() -> handle.isPaused(0), WAIT)).isTrue();
        runtime.shutdownHandle().trigger();
        RunReport report = runtime.awaitTermination(WAIT);
        sink.script().release(0);
        assertThat(report.exitCode()).isNotZero();
        assertThat(handle.lastCommitted(0)).isEqualTo(-1);
    }
}
