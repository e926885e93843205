package dev.etl.internal.sink;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class SinkRuntimeIdleTest {
    /**
     * Sleeps longer than any wait of these tests: only a ring (or a deadline) wakes a thread in time, and a
     * broken ring fails a test instead of hanging its clean-up for long.
     */
    private static final long LONG_SLEEP_NS = TimeUnit.SECONDS.toNanos(60);

    private final SinkFixture fx = new SinkFixture();

    @AfterEach
    void close() {
        fx.close();
    }

    @Test
    void idleIoThreadsParkInsteadOfSpinning() throws InterruptedException {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Assumptions.assumeTrue(threads.isThreadCpuTimeSupported());
        fx.start(fx.definition(4, 1000, Duration.ofHours(1)));
        List<Thread> io = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("etl-io-" + fx.pipeline + "-"))
                .toList();
        assertThat(io).hasSize(2);

        long before =
                io.stream().mapToLong(t -> threads.getThreadCpuTime(t.getId())).sum();
        Thread.sleep(500);
        long cpuMs = TimeUnit.NANOSECONDS.toMillis(
                io.stream().mapToLong(t -> threads.getThreadCpuTime(t.getId())).sum() - before);

        assertThat(cpuMs).as("CPU time of two idle io threads over 500 ms").isLessThan(150);
    }

    /** A thread that parked at most 1 ms woke about 1,000 times a second; one that sleeps, about 10 times. */
    @Test
    void idleIoThreadsSleepUntilSomethingIsDueRatherThanWakingEveryMillisecond() throws InterruptedException {
        SinkRuntime sink = fx.start(fx.definition(4, 1000, Duration.ofHours(1)));
        TestLane.await("the io threads asleep", Duration.ofSeconds(10), () -> sink.idleSleeps() >= 2);

        long before = sink.idleSleeps();
        Thread.sleep(1_000);
        long sleeps = sink.idleSleeps() - before;

        // 2 threads x (1 s / 100 ms), with room for a late timer: far below a thousand wake-ups each
        assertThat(sleeps).as("sleeps of two idle io threads in one second").isBetween(1L, 40L);
    }

    /** With sleeps of up to a minute, only the lane's ring can wake the thread in time. */
    @Test
    void aChunkHandedToASleepingIoThreadIsWrittenAtOnce() {
        fx.maxIdleSleepNs = LONG_SLEEP_NS;
        SinkRuntime sink = fx.start(fx.definition(2, 1, Duration.ofHours(1)));
        TestLane.await("the io threads asleep", Duration.ofSeconds(10), () -> sink.idleSleeps() >= 2);
        TestLane lane = new TestLane(fx.acks, 0);

        assertThat(sink.tryHandOff(lane.chunk(sink, 1, 7, 1))).isTrue();
        TestLane.await(
                "the row written",
                Duration.ofSeconds(10),
                () -> fx.writer.successes().size() == 1);
        assertThat(fx.writer.successes().get(0).values()).containsExactly(7L);
    }

    /** A batch lingering on a sleeping thread is sealed when its linger ends (a deadline, not a ring). */
    @Test
    void aLingeringBatchIsSealedWhenItsLingerEndsWithoutARing() {
        fx.maxIdleSleepNs = LONG_SLEEP_NS;
        SinkRuntime sink = fx.start(fx.definition(2, 1000, Duration.ofMillis(200)));
        TestLane lane = new TestLane(fx.acks, 0);

        assertThat(sink.tryHandOff(lane.chunk(sink, 0, 1, 3))).isTrue();
        TestLane.await(
                "the lingering batch written",
                Duration.ofSeconds(10),
                () -> fx.writer.successes().size() == 1);
        assertThat(fx.writer.successes().get(0).values()).containsExactly(1L, 2L, 3L);
    }

    /** Shutdown rings: a drain does not wait for a minute-long sleep to end. */
    @Test
    void shutdownWakesSleepingIoThreads() {
        fx.maxIdleSleepNs = LONG_SLEEP_NS;
        SinkRuntime sink = fx.start(fx.definition(2, 1000, Duration.ofHours(1)));
        TestLane.await("the io threads asleep", Duration.ofSeconds(10), () -> sink.idleSleeps() >= 2);
        TestLane lane = new TestLane(fx.acks, 0);
        assertThat(sink.tryHandOff(lane.chunk(sink, 0, 5, 2))).isTrue();

        long started = System.nanoTime();
        assertThat(sink.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(30)))
                .as("abandoned")
                .isZero();

        assertThat(System.nanoTime() - started).isLessThan(TimeUnit.SECONDS.toNanos(10));
        assertThat(fx.writer.successes().get(0).values()).containsExactly(5L, 6L);
    }
}
