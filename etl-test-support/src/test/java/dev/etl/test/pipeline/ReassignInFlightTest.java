package dev.etl.test.pipeline;

import static dev.etl.test.pipeline.PipelineFixture.WAIT;
import static dev.etl.test.pipeline.PipelineFixture.build;
import static dev.etl.test.pipeline.PipelineFixture.eventually;
import static dev.etl.test.pipeline.PipelineFixture.fastConfig;
import static dev.etl.test.pipeline.PipelineFixture.strings;
import static dev.etl.test.pipeline.PipelineFixture.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.error.ErrorPolicy;
import dev.etl.ops.Chains;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.PipelineState;
import dev.etl.sink.RetryConfig;
import dev.etl.sink.Router;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.capture.TestEncoders;
import dev.etl.test.memory.MemorySource;
import dev.etl.test.memory.MemorySourceHandle;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Revoke, then re-assign the same partition to the same lane while acks of the old assignment are
 * still in flight, one succeeding late and one failing: the new assignment neither stalls (the old
 * failure must not fail its head) nor jumps ahead (the old late success must not make its unwritten
 * batch committable). Runs the real {@code Lane} through {@link PipelineRuntime} with the memory
 * source and a capture sink whose two shards are held and failed on cue.
 */
class ReassignInFlightTest {
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

    /** "A…" rows go to shard 0, everything else to shard 1. */
    private static Router<String> byLetter() {
        return (value, meta, shardCount) -> value.startsWith("A") ? 0 : 1;
    }

    @Test
    void reassignedPartitionNeitherStallsOnTheOldFailureNorJumpsAheadOnTheOldLateSuccess() throws Exception {
        // Two attempts per batch: an old batch whose both attempts fail has its acks failed.
        CaptureSink sink = CaptureSink.create(
                "capture",
                2,
                CaptureSink.TEST_BATCHING,
                new RetryConfig(2, Duration.ofMillis(1), Duration.ofMillis(2), 2.0, 0.0),
                64,
                ErrorPolicy.FAIL);
        sink.script().block(0).block(1);
        runtime = build(
                fastConfig("reassign").drainTimeout(Duration.ofMillis(200)).build(),
                source,
                sink,
                ctx -> Chains.from(ctx, strings()).sink(TestEncoders.string(), byLetter()),
                registry);
        runtime.start();
        handle.assign(0, 0);

        // Old assignment: batch 0 (offset 0) held in shard 0's writer, batch 1 (offset 1) in shard 1's.
        handle.push(0, null, utf8("A-0"));
        assertThat(eventually(() -> sink.script().attempts(0) >= 1, WAIT)).isTrue();
        handle.push(0, null, utf8("B-1"));
        assertThat(eventually(() -> sink.script().attempts(1) >= 1, WAIT)).isTrue();

        // Revoke (its drain gives up after 200 ms: nothing is committed) and re-assign to the same lane.
        handle.revoke(0);
        handle.assign(0, 0);
        assertThat(eventually(
                        () -> registry.get("etl.source.rebalance.events")
                                        .tag("event", "assigned")
                                        .counter()
                                        .count()
                                == 2.0,
                        WAIT))
                .isTrue();
        // The new assignment replays offsets 0..1 (one batch, its rows queued behind the held writers).
        assertThat(eventually(() -> runtime.recordsIn() >= 4, WAIT)).isTrue();
        assertThat(handle.lastCommitted(0)).isEqualTo(-1);

        // The old batch 0 succeeds late, and shard 0 writes the new A row; the new B row is still held.
        sink.script().release(0);
        assertThat(sink.script().awaitRows(2, WAIT)).isTrue();
        Thread.sleep(300); // several commit intervals
        assertThat(handle.lastCommitted(0))
                .as("jumped ahead of the new assignment's unwritten row")
                .isEqualTo(-1);

        // The old batch 1 fails (both attempts); the new B row is written after it.
        sink.script().failNext(1, 2);
        sink.script().release(1);
        assertThat(handle.awaitCommitted(0, 2, WAIT))
                .as("stalled on the old assignment's failure")
                .isTrue();
        assertThat(sink.script().attempts(1)).isGreaterThanOrEqualTo(3);

        // And it keeps going.
        handle.push(0, null, utf8("A-2"));
        handle.push(0, null, utf8("B-3"));
        assertThat(handle.awaitCommitted(0, 4, WAIT)).isTrue();
        assertThat(runtime.state()).isEqualTo(PipelineState.RUNNING);
        assertThat(runtime.heldPartitions()).isEmpty();
        // Both old acks arrived after the re-assign and were ignored.
        assertThat(eventually(
                        () -> registry.get("etl.checkpoint.stale.acks")
                                        .counter()
                                        .count()
                                >= 2.0,
                        WAIT))
                .isTrue();
    }
}
