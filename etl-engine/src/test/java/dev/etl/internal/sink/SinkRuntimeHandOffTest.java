package dev.etl.internal.sink;

import static dev.etl.internal.sink.TestLane.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.internal.backpressure.InFlightBudget;
import dev.etl.internal.checkpoint.AckRef;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SinkRuntimeHandOffTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final SinkFixture fx = new SinkFixture();

    @AfterEach
    void close() {
        fx.close();
    }

    @Test
    void refusesWhenTheShardQueueIsFullAndLeavesTheChunkUntouched() {
        SinkRuntime sink = fx.create(fx.definition(2, 1000, Duration.ofHours(1)).toBuilder()
                .queueCapacity(2)
                .build());
        TestLane lane = new TestLane(fx.acks, 0);
        assertThat(sink.tryHandOff(lane.chunk(sink, 0, 0, 10))).isTrue();
        assertThat(sink.tryHandOff(lane.chunk(sink, 0, 10, 10))).isTrue();
        Chunk refused = lane.chunk(sink, 0, 20, 10);

        assertThat(sink.tryHandOff(refused)).isFalse();

        assertThat(refused.rowCount()).isEqualTo(10);
        assertThat(refused.byteCount()).isEqualTo(80);
        assertThat(refused.ackCount()).isEqualTo(1);
        assertThat(refused.ack(0).refCount()).isEqualTo(1);
        // The budget counts a handed-off chunk's buffer capacity (what the queue holds), not just its 80 bytes.
        assertThat(fx.budget.inFlightBytes())
                .as("budget of the refused chunk returned")
                .isEqualTo(2L * ChunkPool.INITIAL_CHUNK_BYTES);
        assertThat(sink.tryHandOff(lane.chunk(sink, 1, 0, 10)))
                .as("other shards have their own queue")
                .isTrue();
        assertThat(fx.registry
                        .get("etl.sink.queue.chunks")
                        .tag("shard", "0")
                        .gauge()
                        .value())
                .isEqualTo(2);
        refused.failAcks();
    }

    @Test
    void theQueueGaugeStillReadsTheQueuesAfterAGarbageCollection() {
        // Micrometer holds a gauge's object weakly: a gauge over an array only it references reads NaN
        // after the next collection (CI saw it as a flaky "queue.chunks == 3" in SinkRuntimeShutdownTest).
        SinkRuntime sink = fx.create(fx.definition(1, 1000, Duration.ofHours(1)));
        TestLane lane = new TestLane(fx.acks, 0);
        assertThat(sink.tryHandOff(lane.chunk(sink, 0, 0, 10))).isTrue();

        collectGarbage();

        assertThat(fx.registry.get("etl.sink.queue.chunks").gauge().value()).isEqualTo(1);
    }

    /** Runs collections until a weakly held object is gone (at most 50). */
    private static void collectGarbage() {
        java.lang.ref.WeakReference<Object> sentinel = new java.lang.ref.WeakReference<>(new Object());
        for (int i = 0; i < 50 && sentinel.get() != null; i++) {
            System.gc();
        }
        assertThat(sentinel.get()).as("a collection ran").isNull();
    }

    @Test
    void refusesWhenTheBudgetIsExhaustedAndLeavesTheChunkUntouched() {
        fx.budget = new InFlightBudget(100);
        SinkRuntime sink = fx.create(fx.definition(2, 1000, Duration.ofHours(1)));
        TestLane lane = new TestLane(fx.acks, 0);
        assertThat(sink.tryHandOff(lane.chunk(sink, 0, 0, 10))).isTrue();
        Chunk refused = lane.chunk(sink, 1, 10, 10);

        assertThat(sink.tryHandOff(refused)).isFalse();

        assertThat(fx.budget.inFlightBytes()).isEqualTo(ChunkPool.INITIAL_CHUNK_BYTES);
        assertThat(refused.rowCount()).isEqualTo(10);
        assertThat(refused.byteCount()).isEqualTo(80);
        assertThat(refused.ackCount()).isEqualTo(1);
        assertThat(fx.registry
                        .get("etl.sink.queue.chunks")
                        .tag("shard", "1")
                        .gauge()
                        .value())
                .isZero();
        refused.failAcks();
    }

    @Test
    void rejectsEmptyChunks() {
        SinkRuntime sink = fx.create(fx.definition(1, 1000, Duration.ofHours(1)));

        assertThatThrownBy(() -> sink.tryHandOff(sink.newChunk(0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("empty chunk");
        assertThatThrownBy(() -> sink.newChunk(1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has 1 shards");
    }

    @Test
    void budgetReturnsToZeroOnceEveryChunkIsWritten() {
        SinkRuntime sink = fx.start(fx.definition(3, 25, Duration.ofMillis(5)));
        TestLane lane = new TestLane(fx.acks, 0);
        for (int i = 0; i < 30; i++) {
            Chunk chunk = lane.chunk(sink, i % 3, i * 10L, 10);
            await("room for chunk " + i, TIMEOUT, () -> sink.tryHandOff(chunk));
        }

        await("everything written", TIMEOUT, sink::isIdle);
        assertThat(fx.budget.inFlightBytes()).isZero();
        assertThat(fx.writer.successfulRows()).isEqualTo(300);
        assertThat(TestLane.drain(fx.acks)).hasSize(30).allMatch(AckRef::succeeded);
    }

    @Test
    void chunksAreRecycledAfterTheirRowsAreMerged() {
        SinkRuntime sink = fx.start(fx.definition(1, 10, Duration.ZERO));
        TestLane lane = new TestLane(fx.acks, 0);
        Chunk first = lane.chunk(sink, 0, 0, 10);
        assertThat(sink.tryHandOff(first)).isTrue();
        await("written", TIMEOUT, sink::isIdle);

        Chunk next = sink.newChunk(0);

        assertThat(next).isSameAs(first);
        assertThat(next.isEmpty()).isTrue();
        assertThat(next.byteCount()).isZero();
    }

    @Test
    void ioThreadsAreNamedAfterPipelineAndSinkAndAreNotDaemons() {
        fx.ioThreads = 2;
        fx.start(fx.definition(3, 1000, Duration.ofHours(1)));

        Set<Thread> io = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("etl-io-" + fx.pipeline + "-orders-"))
                .collect(Collectors.toSet());
        assertThat(io)
                .extracting(Thread::getName)
                .containsExactlyInAnyOrder(
                        "etl-io-" + fx.pipeline + "-orders-0", "etl-io-" + fx.pipeline + "-orders-1");
        assertThat(io).noneMatch(Thread::isDaemon);
    }

    @Test
    void zeroIoThreadsMeansOneThreadPerShard() {
        fx.ioThreads = 0;
        fx.start(fx.definition(3, 1000, Duration.ofHours(1)));

        assertThat(Thread.getAllStackTraces().keySet())
                .extracting(Thread::getName)
                .filteredOn(name -> name.startsWith("etl-io-" + fx.pipeline + "-orders-"))
                .containsExactlyInAnyOrder(
                        "etl-io-" + fx.pipeline + "-orders-0",
                        "etl-io-" + fx.pipeline + "-orders-1",
                        "etl-io-" + fx.pipeline + "-orders-2");
    }
}
