package dev.etl.internal.sink;

import static dev.etl.internal.sink.TestLane.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.error.ErrorClass;
import dev.etl.error.SinkWriteException;
import dev.etl.internal.checkpoint.AckRef;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Fault injection on the io thread: a throwable between {@code queue.poll()} and the end of a merge
 * must fail the acks of everything the shard holds, return its budget, count out its chunks and fail
 * the pipeline (through the fatal listener, which the pipeline wires to {@code PipelineRuntime.fail}).
 */
class SinkRuntimeFaultTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final SinkFixture fx = new SinkFixture();

    @AfterEach
    void close() {
        fx.close();
    }

    /** Throws {@code error} in the middle of the {@code nth} merge (1-based), only that one. */
    private static Runnable failingMerge(int nth, Error error) {
        AtomicInteger merges = new AtomicInteger();
        return () -> {
            if (merges.incrementAndGet() == nth) {
                throw error;
            }
        };
    }

    private static void assertAllFailed(List<AckRef> created, List<AckRef> posted) {
        assertThat(posted).as("every ack released exactly once").containsExactlyInAnyOrderElementsOf(created);
        assertThat(posted).as("none succeeded").noneMatch(AckRef::succeeded);
        assertThat(created).allSatisfy(a -> assertThat(a.refCount()).isZero());
    }

    @Test
    void anErrorMidMergeFailsTheAcksReturnsTheBudgetAndFailsThePipeline() {
        fx.ioThreads = 1;
        SinkRuntime sink = fx.create(fx.definition(1, 1_000_000, Duration.ofHours(1)));
        OutOfMemoryError injected = new OutOfMemoryError("injected mid-merge");
        sink.injectMidMergeFault(0, failingMerge(3, injected));
        TestLane lane = new TestLane(fx.acks, 0);
        for (int i = 0; i < 5; i++) {
            assertThat(sink.tryHandOff(lane.chunk(sink, 0, i * 10L, 10))).isTrue();
        }
        assertThat(fx.budget.inFlightBytes()).isEqualTo(5L * ChunkPool.INITIAL_CHUNK_BYTES);
        sink.start();

        await("the pipeline to be failed", TIMEOUT, () -> !fx.fatals.isEmpty());
        await("idle", TIMEOUT, sink::isIdle);
        assertThat(fx.fatals).singleElement().satisfies(f -> {
            assertThat(f.errorClass()).isEqualTo(ErrorClass.SINK_PERMANENT);
            assertThat(f.getCause()).isSameAs(injected);
            assertThat(f.getMessage()).contains("sink 'orders' shard 0").contains("unexpected failure");
        });
        assertThat(fx.budget.inFlightBytes()).as("budget returned").isZero();
        assertThat(fx.counter("etl.sink.io.failures", "shard", "0")).isEqualTo(1);
        assertThat(fx.writer.calls()).as("nothing was written").isZero();
        assertAllFailed(lane.created(), TestLane.drain(fx.acks));

        // Chunks arriving afterwards are failed as well, never stranded; no second fatal report.
        TestLane late = new TestLane(fx.acks, 1);
        assertThat(sink.tryHandOff(late.chunk(sink, 0, 100, 10))).isTrue();
        await("the late chunk to be settled", TIMEOUT, sink::isIdle);
        assertAllFailed(late.created(), TestLane.drain(fx.acks));
        assertThat(fx.budget.inFlightBytes()).isZero();
        assertThat(fx.fatals).hasSize(1);
        assertThat(sink.shutdown(System.nanoTime() + Duration.ofSeconds(5).toNanos()))
                .isZero();
    }

    @Test
    void anErrorMidMergeAlsoFailsTheSealedBatchWaitingForItsRetry() {
        fx.ioThreads = 1;
        // Every write fails transiently (unbounded retries): the first batch stays sealed, waiting.
        fx.writer.behave((batch, call) -> {
            throw SinkWriteException.transientFailure("scripted", null);
        });
        SinkRuntime sink = fx.create(fx.definition(1, 10, Duration.ofHours(1)));
        sink.injectMidMergeFault(0, failingMerge(2, new StackOverflowError("injected mid-merge")));
        TestLane lane = new TestLane(fx.acks, 0);
        assertThat(sink.tryHandOff(lane.chunk(sink, 0, 0, 10))).isTrue();
        sink.start();
        await("the first batch to be attempted", TIMEOUT, () -> fx.writer.calls() >= 1);
        assertThat(sink.tryHandOff(lane.chunk(sink, 0, 10, 10))).isTrue();
        assertThat(sink.tryHandOff(lane.chunk(sink, 0, 20, 10))).isTrue();

        await("the pipeline to be failed", TIMEOUT, () -> !fx.fatals.isEmpty());
        await("idle", TIMEOUT, sink::isIdle);
        assertThat(fx.budget.inFlightBytes()).isZero();
        assertAllFailed(lane.created(), TestLane.drain(fx.acks));
        assertThat(fx.counter("etl.sink.io.failures")).isEqualTo(1);
        assertThat(fx.counter("etl.sink.batches", "outcome", "success")).isZero();
    }

    @Test
    void otherShardsOnTheSameIoThreadKeepWriting() {
        fx.ioThreads = 1;
        SinkRuntime sink = fx.create(fx.definition(2, 10, Duration.ofHours(1)));
        sink.injectMidMergeFault(0, failingMerge(1, new AssertionError("injected mid-merge")));
        TestLane lane0 = new TestLane(fx.acks, 0);
        TestLane lane1 = new TestLane(fx.acks, 1);
        assertThat(sink.tryHandOff(lane0.chunk(sink, 0, 0, 10))).isTrue();
        assertThat(sink.tryHandOff(lane1.chunk(sink, 1, 0, 10))).isTrue();
        sink.start();
        await("idle", TIMEOUT, sink::isIdle);
        List<AckRef> posted = TestLane.drain(fx.acks);
        assertThat(posted).hasSize(2);
        assertThat(lane0.created().get(0).succeeded()).isFalse();
        assertThat(lane1.created().get(0).succeeded()).as("shard 1 unaffected").isTrue();
        assertThat(fx.budget.inFlightBytes()).isZero();
        assertThat(fx.fatals).hasSize(1);
    }
}
