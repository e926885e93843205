package dev.etl.internal.sink;

import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * How an io thread waits when a duty cycle found nothing to do, and how others wake it: it yields for a few
 * rounds (a burst of hand-offs is then picked up at once), then sleeps until the earliest moment one of its
 * workers has something timed to do (a batch's linger ends, a retry is due) or until a lane
 * {@link #ring() rings} after handing it a chunk, whichever comes first, and never longer than
 * its longest sleep ({@link #MAX_SLEEP_NS} by default). An idle sink then costs its threads about nothing (a thread that parked for at most
 * 1 ms woke about 1,000 times a second, measured at 1.5 % of a core per idle io thread), and a chunk handed
 * to a sleeping thread wakes it at once instead of at the end of a fixed park.
 *
 * <p>No wake-up can be lost, without a lock: the io thread clears the bell before a duty cycle, and before
 * sleeping publishes itself as the sleeper, then reads the bell; a lane first queues its chunk (a
 * sequentially consistent count), then sets the bell, then reads the sleeper and unparks it. Either the io
 * thread sees the bell and does not sleep, or the lane sees the sleeper and unparks it (a park that has not
 * begun yet then returns at once), or the bell was already set and not yet cleared, so the io thread's next
 * duty cycle, which begins after the clear, sees the chunk. The cap bounds what a bug here could cost.
 *
 * <p>Parking and unparking go through the pipeline's scheduler, so a simulated schedule runs the same
 * protocol on its virtual clock.
 */
final class IoIdle {
    /** Idle rounds that yield before the thread sleeps. */
    static final int YIELDS = 10;

    /**
     * The longest sleep by default: a safety net, since every event that gives a worker something to do rings or
     * is timed.
     */
    static final long MAX_SLEEP_NS = 100_000_000L;

    /** While draining: the longest sleep (a drain finishes when lanes give up their hand-offs, which do not ring). */
    static final long DRAIN_SLEEP_NS = 1_000_000L;

    private final LongConsumer park;
    private final Consumer<Thread> unpark;
    private final long maxSleepNs;

    private volatile boolean rung;
    private volatile Thread sleeper;
    private int idleRounds;
    /** Sleeps begun (tests; the io thread writes, any thread reads). */
    private volatile long sleeps;

    /**
     * @param park       parks the calling thread for up to the given nanos, may return early (0: lets others run)
     * @param unpark     makes a thread parked in {@code park} return
     * @param maxSleepNs the longest sleep: {@link #MAX_SLEEP_NS}, or shorter where {@code park}'s time is not the
     *                   clock the workers' deadlines are read on (a test's hand-driven clock)
     */
    IoIdle(LongConsumer park, Consumer<Thread> unpark, long maxSleepNs) {
        if (maxSleepNs <= 0) {
            throw new IllegalArgumentException("max sleep must be > 0 ns, got " + maxSleepNs);
        }
        this.park = park;
        this.unpark = unpark;
        this.maxSleepNs = maxSleepNs;
    }

    /** Wakes the io thread if it sleeps, or keeps it from falling asleep. Any thread; after the hand-off. */
    void ring() {
        if (!rung) {
            rung = true;
        }
        Thread thread = sleeper;
        if (thread != null) {
            unpark.accept(thread);
        }
    }

    /** Io thread, before each duty cycle: what rings from now on is for work this cycle may not see. */
    void beginCycle() {
        rung = false;
    }

    /**
     * Io thread, after each duty cycle.
     *
     * @param work        what the cycle did (0: nothing)
     * @param nanosUntilDue how long until some worker has something timed to do ({@link Long#MAX_VALUE}: nothing
     *                      timed), read only when {@code work} is 0
     * @param draining    whether shutdown has begun (sleeps are then short)
     */
    void idle(int work, long nanosUntilDue, boolean draining) {
        if (work > 0) {
            idleRounds = 0;
            park.accept(0);
            return;
        }
        if (++idleRounds <= YIELDS) {
            park.accept(0);
            return;
        }
        long nanos = Math.min(nanosUntilDue, draining ? Math.min(DRAIN_SLEEP_NS, maxSleepNs) : maxSleepNs);
        if (nanos <= 0) {
            park.accept(0);
            return;
        }
        sleeper = Thread.currentThread();
        if (!rung) {
            sleeps++;
            park.accept(nanos);
        }
        sleeper = null;
    }

    /** How many times the thread went to sleep. */
    long sleeps() {
        return sleeps;
    }
}
