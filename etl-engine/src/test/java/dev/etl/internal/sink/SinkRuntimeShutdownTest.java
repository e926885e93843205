package dev.etl.internal.sink;

import static dev.etl.internal.sink.TestLane.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.error.SinkWriteException;
import dev.etl.internal.checkpoint.AckRef;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SinkRuntimeShutdownTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final SinkFixture fx = new SinkFixture();
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void close() {
        release.countDown();
        fx.close();
    }

    private boolean ioThreadsAlive() {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().startsWith("etl-io-" + fx.pipeline + "-") && t.isAlive());
    }

    @Test
    void shutdownWithABlockedWriterAbandonsEverythingAtTheDeadline() {
        fx.writer.blockUntil(release);
        // one chunk per batch; per shard one batch being written (blocking its io thread) and three chunks queued
        SinkRuntime sink = fx.start(fx.definition(2, 10, Duration.ZERO));
        TestLane lane = new TestLane(fx.acks, 0);
        for (int i = 0; i < 4; i++) {
            assertThat(sink.tryHandOff(lane.chunk(sink, 0, i * 10L, 10))).isTrue();
            assertThat(sink.tryHandOff(lane.chunk(sink, 1, i * 10L, 10))).isTrue();
        }
        await("both shards writing", TIMEOUT, () -> fx.writer.calls() == 2);
        assertThat(fx.registry.get("etl.sink.queue.chunks").gauges()).allMatch(g -> g.value() == 3);

        long startNs = System.nanoTime();
        int abandoned = sink.shutdown(startNs + TimeUnit.MILLISECONDS.toNanos(200));
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);

        assertThat(tookMs).isBetween(150L, 3_000L);
        assertThat(abandoned)
                .as("per shard: the batch being written, the queued chunks")
                .isEqualTo(4);
        List<AckRef> posted = TestLane.drain(fx.acks);
        assertThat(posted).hasSize(8).noneMatch(AckRef::succeeded);
        assertThat(posted).containsExactlyInAnyOrderElementsOf(lane.created());
        assertThat(fx.counter("etl.sink.abandoned.batches", "shard", "0")).isEqualTo(2);
        assertThat(fx.counter("etl.sink.abandoned.batches", "shard", "1")).isEqualTo(2);
        assertThat(fx.counter("etl.sink.batches", "outcome", "abandoned")).isEqualTo(4);
        assertThat(fx.budget.inFlightBytes()).isZero();
        assertThat(sink.isIdle()).isTrue();
        assertThat(fx.writer.closes()).isEqualTo(2);

        release.countDown(); // the stuck writes now return "success": they must not settle anything again
        await("io threads to exit", TIMEOUT, () -> !ioThreadsAlive());
        assertThat(fx.acks.isEmpty()).isTrue();
        assertThat(fx.counter("etl.sink.batches", "outcome", "success")).isZero();
    }

    @Test
    void shutdownWithAnAlwaysFailingWriterAbandonsAtTheDeadline() {
        fx.writer.behave((batch, call) -> {
            throw SinkWriteException.transientFailure("connection refused", null);
        });
        SinkRuntime sink = fx.start(fx.definition(2, 10, Duration.ZERO));
        TestLane lane = new TestLane(fx.acks, 0);
        for (int i = 0; i < 3; i++) {
            assertThat(sink.tryHandOff(lane.chunk(sink, i % 2, i * 10L, 10))).isTrue();
        }
        await("retries", TIMEOUT, () -> fx.writer.calls() >= 4);

        long startNs = System.nanoTime();
        int abandoned = sink.shutdown(startNs + TimeUnit.MILLISECONDS.toNanos(100));

        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs)).isLessThan(3_000L);
        assertThat(abandoned).isBetween(2, 3);
        assertThat(fx.counter("etl.sink.abandoned.batches")).isEqualTo(abandoned);
        assertThat(TestLane.drain(fx.acks)).hasSize(3).noneMatch(AckRef::succeeded);
        assertThat(fx.counter("etl.sink.retries")).isPositive();
        assertThat(fx.budget.inFlightBytes()).isZero();
        assertThat(sink.isIdle()).isTrue();
        await("io threads to exit", TIMEOUT, () -> !ioThreadsAlive());
    }

    @Test
    void shutdownWithAHealthyWriterWritesEverythingBeforeTheDeadline() {
        SinkRuntime sink = fx.start(fx.definition(3, 1000, Duration.ofHours(1)));
        TestLane lane = new TestLane(fx.acks, 0);
        for (int i = 0; i < 9; i++) {
            assertThat(sink.tryHandOff(lane.chunk(sink, i % 3, i * 10L, 10))).isTrue();
        }

        int abandoned = sink.shutdown(System.nanoTime() + TIMEOUT.toNanos());

        assertThat(abandoned).isZero();
        assertThat(fx.writer.successfulRows()).isEqualTo(90);
        assertThat(TestLane.drain(fx.acks)).hasSize(9).allMatch(AckRef::succeeded);
        assertThat(fx.budget.inFlightBytes()).isZero();
        assertThat(fx.counter("etl.sink.abandoned.batches")).isZero();
        assertThat(ioThreadsAlive()).as("shutdown waits for the io threads").isFalse();
    }

    @Test
    void shutdownRefusesLaterHandOffsAndIsSafeToCallTwice() {
        SinkRuntime sink = fx.start(fx.definition(1, 1000, Duration.ofHours(1)));
        TestLane lane = new TestLane(fx.acks, 0);
        assertThat(sink.tryHandOff(lane.chunk(sink, 0, 0, 10))).isTrue();
        assertThat(sink.shutdown(System.nanoTime() + TIMEOUT.toNanos())).isZero();

        Chunk late = lane.chunk(sink, 0, 10, 10);
        assertThat(sink.tryHandOff(late)).isFalse();
        assertThat(sink.shutdown(System.nanoTime())).isZero();
        sink.close();

        assertThat(fx.writer.closes()).isEqualTo(1);
        assertThat(fx.budget.inFlightBytes()).isZero();
        late.failAcks();
    }

    @Test
    void shutdownBeforeStartAbandonsQueuedChunks() {
        SinkRuntime sink = fx.create(fx.definition(2, 1000, Duration.ofHours(1)));
        TestLane lane = new TestLane(fx.acks, 0);
        for (int i = 0; i < 3; i++) {
            assertThat(sink.tryHandOff(lane.chunk(sink, 0, i * 10L, 10))).isTrue();
        }

        assertThat(sink.shutdown(System.nanoTime() + TIMEOUT.toNanos())).isEqualTo(1);

        assertThat(TestLane.drain(fx.acks)).hasSize(3).noneMatch(AckRef::succeeded);
        assertThat(fx.budget.inFlightBytes()).isZero();
        assertThat(fx.counter("etl.sink.abandoned.batches", "shard", "0")).isEqualTo(1);
        assertThat(fx.counter("etl.sink.abandoned.batches", "shard", "1")).isZero();
    }
}
