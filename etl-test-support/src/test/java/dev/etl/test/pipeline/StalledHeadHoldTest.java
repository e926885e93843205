package dev.etl.test.pipeline;

import static dev.etl.test.pipeline.PipelineFixture.WAIT;
import static dev.etl.test.pipeline.PipelineFixture.build;
import static dev.etl.test.pipeline.PipelineFixture.eventually;
import static dev.etl.test.pipeline.PipelineFixture.fastConfig;
import static dev.etl.test.pipeline.PipelineFixture.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.error.ErrorPolicy;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.PipelineState;
import dev.etl.sink.RetryConfig;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.memory.MemorySource;
import dev.etl.test.memory.MemorySourceHandle;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A stalled head pushes back on its own partition only: a failed head batch, or 4,096 batches
 * outstanding behind an unwritten one, pauses that partition (metric and name), so its checkpoint
 * bookkeeping and replay distance stop growing, while the other partitions keep flowing.
 */
class StalledHeadHoldTest {
    private final MemorySource source = MemorySource.create(1); // one record per batch
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
    void stalledFailAfterIsOnByDefault() {
        assertThat(PipelineConfig.builder("defaults").build().stalledFailAfter())
                .isEqualTo(PipelineConfig.DEFAULT_STALLED_FAIL_AFTER)
                .isEqualTo(Duration.ofMinutes(10));
    }

    @Test
    void failedHeadPausesOnlyItsPartition() throws Exception {
        CaptureSink sink = CaptureSink.create(
                "capture",
                2,
                CaptureSink.TEST_BATCHING,
                new RetryConfig(2, Duration.ofMillis(1), Duration.ofMillis(2), 2.0, 0.0),
                64,
                ErrorPolicy.FAIL);
        sink.script().failNext(0, Integer.MAX_VALUE / 2); // partition 0's rows (shard 0) always fail
        runtime = build(fastConfig("failed-head").build(), source, sink, PipelineFixture.passThrough(), registry);
        runtime.start();
        handle.assign(0, 0, 1);
        handle.push(0, null, utf8("p0-0"));
        assertThat(eventually(() -> sink.script().attempts(0) >= 2, WAIT)).isTrue(); // head failed
        for (int i = 1; i <= 50; i++) {
            handle.push(0, null, utf8("p0-" + i));
            handle.push(1, null, utf8("p1-" + i));
        }
        assertThat(eventually(() -> runtime.heldPartitions().contains("memory-0"), WAIT))
                .isTrue();
        assertThat(handle.awaitCommitted(1, 50, WAIT))
                .as("the other partition keeps flowing")
                .isTrue();
        long polledAfterHold = runtime.recordsIn();
        Thread.sleep(200);
        assertThat(runtime.recordsIn()).as("partition 0 is no longer polled").isEqualTo(polledAfterHold);
        assertThat(polledAfterHold).isLessThan(101);
        assertThat(runtime.heldPartitions()).containsExactly("memory-0");
        assertThat(registry.get("etl.checkpoint.partition.holds")
                        .tag("partition", "memory-0")
                        .counter()
                        .count())
                .isEqualTo(1.0);
        assertThat(registry.get("etl.checkpoint.held.partitions").gauge().value())
                .isEqualTo(1.0);
        assertThat(handle.lastCommitted(0)).isEqualTo(-1);

        // A new assignment of the partition starts unpaused (and stalls again on the same failure).
        handle.revoke(0);
        handle.assign(0, 0);
        assertThat(eventually(() -> runtime.recordsIn() > polledAfterHold, WAIT))
                .isTrue();
        assertThat(runtime.state()).isEqualTo(PipelineState.RUNNING);
    }

    @Test
    void tooManyBatchesBehindAnUnwrittenHeadPauseThePartitionUntilItCatchesUp() throws Exception {
        CaptureSink sink = CaptureSink.create(
                "capture", 2, CaptureSink.TEST_BATCHING, CaptureSink.TEST_RETRY, 4096, ErrorPolicy.FAIL);
        sink.script().block(0);
        runtime = build(fastConfig("distance").build(), source, sink, PipelineFixture.passThrough(), registry);
        runtime.start();
        handle.assign(0, 0, 1);
        int limit = PipelineConfig.MAX_OUTSTANDING_BATCHES_PER_PARTITION;
        int records = limit + 400;
        for (int i = 0; i < records; i++) {
            handle.push(0, null, utf8("p0-" + i));
        }
        handle.push(1, null, utf8("p1-0"));
        assertThat(eventually(() -> runtime.heldPartitions().contains("memory-0"), WAIT))
                .isTrue();
        assertThat(handle.awaitCommitted(1, 1, WAIT)).isTrue();
        long polled = runtime.recordsIn();
        Thread.sleep(200);
        assertThat(runtime.recordsIn()).isEqualTo(polled);
        // The limit's one-record batches of partition 0 outstanding, plus partition 1's record.
        assertThat(polled).isEqualTo(limit + 1);

        sink.script().release(0);
        assertThat(handle.awaitCommitted(0, records, WAIT)).isTrue();
        assertThat(runtime.heldPartitions()).isEmpty();
        assertThat(registry.get("etl.checkpoint.partition.holds")
                        .tag("partition", "memory-0")
                        .counter()
                        .count())
                .isGreaterThanOrEqualTo(1.0);
    }
}
