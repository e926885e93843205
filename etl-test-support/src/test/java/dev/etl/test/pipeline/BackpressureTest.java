package dev.etl.test.pipeline;

import static dev.etl.test.pipeline.PipelineFixture.WAIT;
import static dev.etl.test.pipeline.PipelineFixture.build;
import static dev.etl.test.pipeline.PipelineFixture.eventually;
import static dev.etl.test.pipeline.PipelineFixture.fastConfig;
import static dev.etl.test.pipeline.PipelineFixture.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.pipeline.PipelineRuntime;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.memory.MemorySource;
import dev.etl.test.memory.MemorySourceHandle;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A blocked sink pauses the lane, which keeps polling, stays under budget, and resumes on release. */
class BackpressureTest {
    private final MemorySource source = MemorySource.create(100);
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
    void blockedSinkPausesTheLaneWhichKeepsPollingUnderBudgetAndResumesOnRelease() throws Exception {
        long budget = 64 * 1024;
        CaptureSink sink = CaptureSink.create("capture", 1);
        sink.script().block(0);
        runtime = build(
                fastConfig("bp").maxInFlightBytes(budget).build(),
                source,
                sink,
                PipelineFixture.passThrough(),
                registry);
        runtime.start();
        handle.assign(0, 0);
        String padding = "x".repeat(200);
        int records = 5_000; // ~1 MB encoded, far above the 64 KiB budget
        for (int i = 0; i < records; i++) {
            handle.push(0, null, utf8(i + padding));
        }

        assertThat(eventually(() -> handle.isPaused(0), WAIT)).as("lane paused").isTrue();
        AtomicLong maxInFlight = new AtomicLong();
        long pollsAtPause = handle.polls(0);
        long watchUntil = System.nanoTime() + 500_000_000L;
        while (System.nanoTime() < watchUntil) {
            maxInFlight.accumulateAndGet(runtime.inFlightBytes(), Math::max);
            Thread.sleep(2);
        }
        assertThat(handle.polls(0) - pollsAtPause).as("polls while paused").isGreaterThan(10);
        assertThat(handle.isPaused(0)).isTrue();
        // One chunk may be admitted beyond the budget only when nothing else is in flight;
        // a chunk is at most one poll's worth of rows (100 records here).
        assertThat(maxInFlight.get()).isLessThanOrEqualTo(budget + 100 * 260);
        assertThat(handle.lastCommitted(0)).isEqualTo(-1);
        assertThat(registry.get("etl.backpressure.pauses").counter().count()).isGreaterThanOrEqualTo(1.0);

        sink.script().release(0);
        assertThat(handle.awaitCommitted(0, records, WAIT)).isTrue();
        assertThat(eventually(() -> !handle.isPaused(0), WAIT))
                .as("lane resumed")
                .isTrue();
        assertThat(sink.script().rows()).isEqualTo(records);
        assertThat(eventually(() -> runtime.inFlightBytes() == 0, WAIT)).isTrue();
    }
}
