package dev.etl.internal.sink;

import static dev.etl.internal.sink.TestLane.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.internal.checkpoint.AckRef;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SinkRuntimeBatchingTest {
    private static final Duration LONG = Duration.ofHours(1);
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final SinkFixture fx = new SinkFixture();

    @AfterEach
    void close() {
        fx.close();
    }

    @Test
    void chunksFromSeveralLanesMergeIntoOneBatch() {
        SinkRuntime sink = fx.start(fx.definition(1, 1000, LONG));
        TestLane[] lanes = {new TestLane(fx.acks, 0), new TestLane(fx.acks, 1), new TestLane(fx.acks, 2)};
        for (int lane = 0; lane < lanes.length; lane++) {
            assertThat(sink.tryHandOff(lanes[lane].chunk(sink, 0, lane * 100L, 10)))
                    .isTrue();
        }
        sink.flushNow();

        await("one batch", TIMEOUT, () -> fx.writer.successes().size() == 1 && sink.isIdle());
        RecordingShardWriter.Written batch = fx.writer.successes().get(0);
        assertThat(batch.rows()).isEqualTo(30);
        assertThat(batch.values())
                .containsExactlyInAnyOrder(LongStream.range(0, 10)
                        .flatMap(i -> LongStream.of(i, 100 + i, 200 + i))
                        .toArray());
        List<AckRef> posted = TestLane.drain(fx.acks);
        assertThat(posted).hasSize(3).allMatch(AckRef::succeeded);
        assertThat(posted).extracting(AckRef::partition).containsExactlyInAnyOrder(0, 1, 2);
    }

    @Test
    void sealsWhenTheBatchReachesMaxRows() {
        SinkRuntime sink = fx.start(fx.definition(1, 20, LONG));
        TestLane lane = new TestLane(fx.acks, 0);
        for (int i = 0; i < 4; i++) {
            assertThat(sink.tryHandOff(lane.chunk(sink, 0, i * 10L, 10))).isTrue();
        }

        await("two batches", TIMEOUT, () -> fx.writer.successes().size() == 2 && sink.isIdle());
        assertThat(fx.writer.successes())
                .extracting(RecordingShardWriter.Written::rows)
                .containsExactly(20, 20);
        assertThat(fx.writer.successes().get(0).values())
                .containsExactly(LongStream.range(0, 20).toArray());
    }

    @Test
    void sealsWhenTheBatchReachesMaxBytes() {
        // 10 rows of 8 bytes per chunk: two chunks fill 160 bytes
        SinkRuntime sink = fx.start(SinkFixture.definition(1, fx.writer, 1000, 160, LONG));
        TestLane lane = new TestLane(fx.acks, 0);
        for (int i = 0; i < 4; i++) {
            assertThat(sink.tryHandOff(lane.chunk(sink, 0, i * 10L, 10))).isTrue();
        }

        await("two batches", TIMEOUT, () -> fx.writer.successes().size() == 2 && sink.isIdle());
        assertThat(fx.writer.successes()).extracting(w -> w.bytes().length).containsExactly(160, 160);
    }

    @Test
    void sealsBeforeAChunkWouldTakeTheBatchPastMaxBytes() {
        SinkRuntime sink = fx.start(SinkFixture.definition(1, fx.writer, 1000, 200, LONG));
        TestLane lane = new TestLane(fx.acks, 0);
        for (int i = 0; i < 5; i++) {
            assertThat(sink.tryHandOff(lane.chunk(sink, 0, i * 10L, 10))).isTrue();
        }

        await("two batches", TIMEOUT, () -> fx.writer.successes().size() == 2);
        assertThat(fx.writer.successes()).extracting(w -> w.bytes().length).containsExactly(160, 160);
        assertThat(sink.isIdle())
                .as("the fifth chunk lingers in the open batch")
                .isFalse();
    }

    @Test
    void sealsOnceLingerHasPassedOnTheSinkClock() throws InterruptedException {
        AtomicLong now = new AtomicLong(1_000);
        fx.clock = now::get;
        SinkRuntime sink = fx.start(fx.definition(1, 1000, Duration.ofMillis(50)));
        TestLane lane = new TestLane(fx.acks, 0);
        assertThat(sink.tryHandOff(lane.chunk(sink, 0, 0, 10))).isTrue();

        Thread.sleep(30);
        now.addAndGet(Duration.ofMillis(49).toNanos());
        Thread.sleep(30);
        assertThat(fx.writer.calls()).as("written before linger passed").isZero();

        now.addAndGet(Duration.ofMillis(1).toNanos());
        await("the lingering batch", TIMEOUT, () -> fx.writer.successes().size() == 1);
        assertThat(fx.writer.successes().get(0).rows()).isEqualTo(10);
    }

    @Test
    void flushNowSealsBeforeLinger() {
        SinkRuntime sink = fx.start(fx.definition(2, 1000, LONG));
        TestLane lane = new TestLane(fx.acks, 0);
        assertThat(sink.tryHandOff(lane.chunk(sink, 0, 0, 10))).isTrue();
        assertThat(sink.tryHandOff(lane.chunk(sink, 1, 10, 10))).isTrue();

        sink.flushNow();

        await("both shards flushed", TIMEOUT, () -> sink.isIdle());
        assertThat(fx.writer.successes())
                .extracting(RecordingShardWriter.Written::shard)
                .containsExactlyInAnyOrder(0, 1);
        assertThat(TestLane.drain(fx.acks)).hasSize(2).allMatch(AckRef::succeeded);
    }

    @Test
    void sameBytesOfTheSameShardGetTheSameTokenAndOtherShardsAnother() {
        SinkRuntime sink = fx.start(fx.definition(2, 10, LONG));
        TestLane lane = new TestLane(fx.acks, 0);
        assertThat(sink.tryHandOff(lane.chunk(sink, 0, 0, 10))).isTrue();
        await("first", TIMEOUT, () -> fx.writer.successes().size() == 1);
        assertThat(sink.tryHandOff(lane.chunk(sink, 0, 0, 10))).isTrue();
        await("second", TIMEOUT, () -> fx.writer.successes().size() == 2);
        assertThat(sink.tryHandOff(lane.chunk(sink, 1, 0, 10))).isTrue();
        await("third", TIMEOUT, () -> fx.writer.successes().size() == 3);

        List<RecordingShardWriter.Written> written = fx.writer.successes();
        assertThat(Arrays.equals(written.get(0).bytes(), written.get(2).bytes()))
                .isTrue();
        assertThat(written.get(1).token()).isEqualTo(written.get(0).token()).hasSize(32);
        assertThat(written.get(2).token()).isNotEqualTo(written.get(0).token());
        assertThat(written.get(1).sequence()).isEqualTo(written.get(0).sequence() + 1);
    }
}
