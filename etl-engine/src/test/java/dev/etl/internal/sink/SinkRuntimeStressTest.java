package dev.etl.internal.sink;

import static dev.etl.internal.sink.TestLane.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.error.SinkWriteException;
import dev.etl.internal.backpressure.InFlightBudget;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two lanes hand chunks to a sink whose writer fails at random: every row is written once and every
 * ack posted once. The lanes take their acks from their own pooled queues and drain them while they
 * produce (at most {@link #MAX_OUTSTANDING_ACKS} acks outstanding, as backpressure would bound them),
 * so acks released by the sink's io threads are recycled and reused for later chunks. The lanes pause now and
 * then, so the io threads fall asleep at random moments; with sleeps of up to a minute (longer than the run's
 * waits), only the lanes' rings and the workers' own deadlines (linger, retry) can wake them in time, so a lost
 * wake-up fails the run.
 */
class SinkRuntimeStressTest {
    private static final int PRODUCERS = 2;
    private static final int ROWS_PER_PRODUCER = 50_000;
    private static final int SHARDS = 4;
    private static final int MAX_OUTSTANDING_ACKS = 64;

    private final SinkFixture fx = new SinkFixture();

    @AfterEach
    void close() {
        fx.close();
    }

    @ParameterizedTest(name = "idle io threads sleep up to {0} ns")
    @ValueSource(longs = {SinkRuntime.Threads.IDLE_SLEEP_NS, 60_000_000_000L})
    void everyRowIsWrittenOnceAndEveryAckPostedOnceDespiteRandomTransientFailures(long maxIdleSleepNs)
            throws Exception {
        fx.maxIdleSleepNs = maxIdleSleepNs;
        // Fails before the server "commits" or after it (a timeout after commit): both are retried with the
        // same bytes and token, so counting distinct tokens must see every row exactly once.
        fx.writer.behave((batch, call) -> {
            int dice = ThreadLocalRandom.current().nextInt(10);
            if (dice < 2) {
                throw SinkWriteException.transientFailure("flaky before commit", null);
            }
            if (dice == 2) {
                throw SinkWriteException.transientFailure("timeout after commit", null);
            }
        });
        fx.budget = new InFlightBudget(64 * 1024);
        SinkRuntime sink =
                fx.start(SinkFixture.definition(SHARDS, fx.writer, 2_000, 1 << 20, Duration.ofMillis(2)).toBuilder()
                        .queueCapacity(4)
                        .build());

        List<TestLane> lanes = new ArrayList<>();
        List<Thread> producers = new ArrayList<>();
        AtomicReference<Throwable> producerFailure = new AtomicReference<>();
        for (int p = 0; p < PRODUCERS; p++) {
            TestLane lane = TestLane.pooled(p);
            lanes.add(lane);
            long base = (long) p << 40;
            Thread producer = new Thread(
                    () -> {
                        try {
                            produce(sink, lane, base);
                        } catch (Throwable t) {
                            producerFailure.set(t);
                        }
                    },
                    "producer-" + p);
            producers.add(producer);
            producer.start();
        }
        for (Thread producer : producers) {
            producer.join(TimeUnit.SECONDS.toMillis(15));
            assertThat(producer.isAlive()).as("producer finished in time").isFalse();
        }
        assertThat(producerFailure.get()).isNull();
        sink.flushNow();
        await("everything written", Duration.ofSeconds(10), sink::isIdle);

        Map<String, RecordingShardWriter.Written> byToken = new HashMap<>();
        for (RecordingShardWriter.Written written : fx.writer.attempts()) {
            RecordingShardWriter.Written previous = byToken.putIfAbsent(written.token(), written);
            if (previous != null) {
                assertThat(written.bytes()).as("a retry resends the same bytes").isEqualTo(previous.bytes());
            }
        }
        long[] rows = byToken.values().stream()
                .flatMapToLong(w -> java.util.Arrays.stream(w.values()))
                .sorted()
                .toArray();
        assertThat(rows).hasSize(PRODUCERS * ROWS_PER_PRODUCER);
        for (int i = 1; i < rows.length; i++) {
            assertThat(rows[i]).as("row written once").isNotEqualTo(rows[i - 1]);
        }
        assertThat(fx.writer.successes().stream()
                        .map(RecordingShardWriter.Written::token)
                        .distinct()
                        .count())
                .as("every sealed batch eventually succeeded")
                .isEqualTo(byToken.size());

        // The producers are joined: this thread takes over draining their queues.
        for (TestLane lane : lanes) {
            lane.drainPosted();
            assertThat(lane.outstanding()).as("every ack posted").isZero();
            assertThat(lane.postings().toIntArray()).as("each ack posted once").containsOnly(1);
            assertThat(lane.failed()).as("acks posted failed").isZero();
            assertThat(lane.queue().acksReused())
                    .as("chunks ran on recycled acks: %s", lane.queue())
                    .isPositive();
        }
        assertThat(TestLane.drain(fx.acks))
                .as("nothing posted to the shared queue")
                .isEmpty();
        assertThat(fx.budget.inFlightBytes()).isZero();
        assertThat(fx.counter("etl.sink.rows")).isEqualTo(PRODUCERS * ROWS_PER_PRODUCER);
        assertThat(sink.idleSleeps())
                .as("io threads fell asleep between hand-offs")
                .isPositive();
    }

    /**
     * Hands off chunks of 1..300 rows to random shards, retrying refusals as a paused lane would, and
     * drains its lane's acks meanwhile (waiting while too many are outstanding).
     */
    private static void produce(SinkRuntime sink, TestLane lane, long base) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        int produced = 0;
        while (produced < ROWS_PER_PRODUCER) {
            lane.drainPosted();
            while (lane.outstanding() >= MAX_OUTSTANDING_ACKS) {
                if (System.nanoTime() - deadlineNs >= 0) {
                    throw new AssertionError("acks outstanding for 15 s: " + lane.outstanding());
                }
                LockSupport.parkNanos(50_000);
                lane.drainPosted();
            }
            if (random.nextInt(64) == 0) { // a pause: the io threads may fall asleep
                LockSupport.parkNanos(random.nextLong(2_000_000));
            }
            int rows = Math.min(ROWS_PER_PRODUCER - produced, 1 + random.nextInt(300));
            Chunk chunk = lane.chunk(sink, random.nextInt(SHARDS), base + produced, rows);
            while (!sink.tryHandOff(chunk)) {
                if (System.nanoTime() - deadlineNs >= 0) {
                    chunk.failAcks();
                    throw new AssertionError("hand-off refused for 15 s");
                }
                LockSupport.parkNanos(50_000);
                lane.drainPosted();
            }
            produced += rows;
        }
    }
}
