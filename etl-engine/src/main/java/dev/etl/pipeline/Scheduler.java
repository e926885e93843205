package dev.etl.pipeline;

import dev.etl.internal.pipeline.SystemScheduler;
import java.util.concurrent.locks.LockSupport;
import java.util.random.RandomGenerator;

/**
 * Where a pipeline's time and threads come from: the monotonic clock every deadline, linger, backoff and
 * timer is read on, the threads it runs (lanes, io threads, the controller), and every way one of them
 * waits. The default, {@link #system()}, is the JVM's ({@link System#nanoTime()}, platform threads,
 * {@link LockSupport}); a deterministic simulation supplies its own, which runs the real engine on one
 * seeded schedule and a virtual clock (the {@code etl-simulation} test module does; see
 * {@code docs/design/simulation.md}).
 *
 * <p>The engine waits only through this interface: {@link #parkNanos} (an idle lane or io thread, a
 * drain), {@link Latch#await} (the controller waiting for a stop, a caller waiting for the end) and
 * {@link #join} (the controller waiting for lanes and io threads). A source or a shard writer that
 * blocks does so on its own (a Kafka poll, an HTTP insert); a simulated one parks through the same
 * scheduler. Implementations must be thread-safe.
 */
public interface Scheduler {
    /** The JVM's clock and threads. */
    static Scheduler system() {
        return SystemScheduler.INSTANCE;
    }

    /** The monotonic clock, in nanoseconds (only differences mean anything). */
    long nanoTime();

    /** Parks the calling engine thread for up to {@code nanos} (0: lets others run); may return early. */
    void parkNanos(long nanos);

    /** Makes {@code thread}, if parked in {@link #parkNanos}, return early. Any thread. */
    void unpark(Thread thread);

    /** A new, unstarted thread running {@code task}, named {@code name}. Not a daemon. */
    Thread newThread(Runnable task, String name);

    /**
     * Waits up to {@code timeoutNanos} for a started {@code thread} to end; returns whether it has ended.
     *
     * @throws InterruptedException when the calling thread is interrupted while waiting
     */
    boolean join(Thread thread, long timeoutNanos) throws InterruptedException;

    /** A new one-shot latch: {@link Latch#release()} once lets every waiter through. */
    Latch newLatch();

    /** Randomness for retry jitter. Thread-safe. */
    RandomGenerator random();

    /** A one-shot gate, released once, on which threads wait. */
    interface Latch {
        /** Lets every waiter, present and future, through. Any thread; idempotent. */
        void release();

        /** Whether {@link #release()} was called. */
        boolean isReleased();

        /** Waits until released. */
        void await() throws InterruptedException;

        /** Waits until released or {@code timeoutNanos} passed; returns whether released. */
        boolean await(long timeoutNanos) throws InterruptedException;
    }
}
