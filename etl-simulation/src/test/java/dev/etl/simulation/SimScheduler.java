package dev.etl.simulation;

import dev.etl.pipeline.Scheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;

/**
 * A deterministic {@link Scheduler}: the engine's threads are real threads, but only one runs at a time,
 * and only when the driver (the thread running the simulation) hands it the baton; it gives the baton
 * back at its next wait ({@link #parkNanos}, a latch, a join), which is the only place the engine can be
 * interrupted. The driver picks the next thread to run with a seeded random among those that may run
 * now, and advances the virtual clock to the earliest deadline only when none may. So one seed is one
 * interleaving of the engine's threads, the same every run, and a crash ({@link #kill}) freezes every
 * thread of a process at a wait, as a {@code kill -9} freezes a process between two instructions.
 *
 * <p>What this cannot explore: interleavings between two waits (the engine's lock-free hand-offs run
 * without a switch inside them; the stress tests cover those), and anything that blocks outside the
 * scheduler (the simulated Kafka and ClickHouse wait through it).
 */
final class SimScheduler implements Scheduler {
    /** Real time a step may take before the simulation declares the engine stuck outside its waits. */
    private static final long STEP_WATCHDOG_MS = 30_000;

    private final Random random;
    private final Random jitter;
    private final List<SimThread> threads = new ArrayList<>();
    private final Semaphore driver = new Semaphore(0);
    private long now = 1_000_000_000L;
    private long steps;
    private SimThread running;
    /** The trace fingerprint: which thread ran at which virtual time, in order (replay check). */
    private long trace = 1;

    SimScheduler(long seed) {
        this.random = new Random(seed);
        this.jitter = new Random(seed * 31 + 7);
    }

    /** A thread of the simulation, with its scheduling state (driver-owned; read under the baton). */
    final class SimThread extends Thread {
        final int id;
        final Semaphore baton = new Semaphore(0);
        final List<SimThread> joiners = new ArrayList<>();
        long wakeAtNs = Long.MAX_VALUE;
        boolean started;
        boolean done;
        boolean killed;
        boolean permit;
        /** Which incarnation of the pipeline process it belongs to (crashes kill by incarnation). */
        final int process;

        SimThread(Runnable task, String name, int id, int process) {
            super(task, name);
            this.id = id;
            this.process = process;
            setDaemon(true);
            setUncaughtExceptionHandler((t, e) -> {
                if (!(e instanceof SimCrash)) {
                    uncaught = e;
                }
            });
        }

        @Override
        public synchronized void start() {
            started = true;
            wakeAtNs = now; // runnable at once
            super.start();
        }

        @Override
        public void run() {
            baton.acquireUninterruptibly();
            try {
                if (!killed) {
                    super.run();
                }
            } catch (SimCrash crash) {
                // killed while waiting: the process died here
            } finally {
                done = true;
                for (SimThread joiner : joiners) {
                    joiner.wakeAtNs = Math.min(joiner.wakeAtNs, now);
                }
                joiners.clear();
                if (!killed) {
                    driver.release();
                }
            }
        }
    }

    /** The first unexpected throwable that escaped an engine thread (a bug: the simulation fails). */
    volatile Throwable uncaught;

    /** The process incarnation new threads belong to. */
    private int process;

    void process(int incarnation) {
        this.process = incarnation;
    }

    @Override
    public long nanoTime() {
        return now;
    }

    @Override
    public Thread newThread(Runnable task, String name) {
        SimThread thread = new SimThread(task, name, threads.size(), process);
        threads.add(thread);
        return thread;
    }

    @Override
    public void parkNanos(long nanos) {
        SimThread me = current();
        if (me == null) {
            return; // the driver itself (a call into the engine from the simulation): nothing to wait for
        }
        if (me.permit) {
            me.permit = false;
            waitTurn(me, now);
            return;
        }
        waitTurn(me, nanos <= 0 ? now : saturatedAdd(now, nanos));
    }

    @Override
    public void unpark(Thread thread) {
        if (thread instanceof SimThread t && !t.done) {
            if (t == running || !t.started) {
                t.permit = true;
            } else {
                t.wakeAtNs = Math.min(t.wakeAtNs, now);
            }
        }
    }

    @Override
    public boolean join(Thread thread, long timeoutNanos) {
        SimThread me = current();
        SimThread target = (SimThread) thread;
        if (target.done || !target.started) {
            return target.done;
        }
        if (me == null) {
            throw new IllegalStateException("the simulation driver cannot join an engine thread: step instead");
        }
        long deadline = saturatedAdd(now, Math.max(0, timeoutNanos));
        target.joiners.add(me);
        waitTurn(me, deadline);
        target.joiners.remove(me);
        return target.done;
    }

    @Override
    public Latch newLatch() {
        return new SimLatch();
    }

    @Override
    public RandomGenerator random() {
        return jitter;
    }

    /** A latch whose waiters park in the scheduler. */
    private final class SimLatch implements Latch {
        private boolean released;
        private final List<SimThread> waiters = new ArrayList<>();

        @Override
        public void release() {
            released = true;
            for (SimThread waiter : waiters) {
                waiter.wakeAtNs = Math.min(waiter.wakeAtNs, now);
            }
            waiters.clear();
        }

        @Override
        public boolean isReleased() {
            return released;
        }

        @Override
        public void await() {
            await(Long.MAX_VALUE);
        }

        @Override
        public boolean await(long timeoutNanos) {
            SimThread me = current();
            if (released) {
                return true;
            }
            if (me == null) {
                throw new IllegalStateException("the simulation driver cannot wait on a latch: step instead");
            }
            long deadline = saturatedAdd(now, timeoutNanos);
            while (!released && now - deadline < 0) {
                waiters.add(me);
                waitTurn(me, deadline);
                waiters.remove(me);
            }
            return released;
        }
    }

    /** Gives the baton back to the driver; returns when the driver hands it back (or throws when killed). */
    private void waitTurn(SimThread me, long wakeAtNs) {
        if (me.killed) {
            throw new SimCrash(); // unwinding after a kill: no more waits, no more turns
        }
        me.wakeAtNs = wakeAtNs;
        driver.release();
        me.baton.acquireUninterruptibly();
        if (me.killed) {
            throw new SimCrash();
        }
    }

    private SimThread current() {
        return Thread.currentThread() instanceof SimThread s ? s : null;
    }

    /**
     * Runs one step: the next thread that may run now (seeded choice), until its next wait; when none may,
     * advances the clock to the earliest deadline first. Returns false when every live thread waits with no
     * deadline (nothing can happen until the driver acts).
     */
    boolean step() {
        SimThread next = pick();
        if (next == null) {
            long earliest = Long.MAX_VALUE;
            for (SimThread t : threads) {
                if (t.started && !t.done && !t.killed && t.wakeAtNs != Long.MAX_VALUE) {
                    earliest = Math.min(earliest, t.wakeAtNs);
                }
            }
            if (earliest == Long.MAX_VALUE) {
                return false;
            }
            now = Math.max(now, earliest);
            next = pick();
        }
        run(next);
        return true;
    }

    /** Advances the clock to {@code deadlineNs} at the latest, stepping whatever is due before. */
    void runUntil(long deadlineNs) {
        while (true) {
            SimThread next = pick();
            if (next != null) {
                run(next);
                continue;
            }
            long earliest = Long.MAX_VALUE;
            for (SimThread t : threads) {
                if (t.started && !t.done && !t.killed && t.wakeAtNs != Long.MAX_VALUE) {
                    earliest = Math.min(earliest, t.wakeAtNs);
                }
            }
            if (earliest == Long.MAX_VALUE || earliest - deadlineNs > 0) {
                now = Math.max(now, deadlineNs);
                return;
            }
            now = Math.max(now, earliest);
        }
    }

    private SimThread pick() {
        int candidates = 0;
        for (SimThread t : threads) {
            if (t.started && !t.done && !t.killed && t.wakeAtNs - now <= 0) {
                candidates++;
            }
        }
        if (candidates == 0) {
            return null;
        }
        int chosen = random.nextInt(candidates);
        for (SimThread t : threads) {
            if (t.started && !t.done && !t.killed && t.wakeAtNs - now <= 0 && chosen-- == 0) {
                return t;
            }
        }
        throw new AssertionError("unreachable");
    }

    private void run(SimThread t) {
        steps++;
        trace = trace * 1_000_003 + t.id * 31L + (now & 0xFFFFFFFFL);
        t.wakeAtNs = Long.MAX_VALUE;
        running = t;
        t.baton.release();
        try {
            if (!driver.tryAcquire(STEP_WATCHDOG_MS, TimeUnit.MILLISECONDS)) {
                throw new SimulationFailure("engine thread " + t.getName() + " ran for " + STEP_WATCHDOG_MS
                        + " ms of real time without reaching a wait (a busy loop outside the scheduler?)\n"
                        + stackOf(t));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SimulationFailure("interrupted", e);
        } finally {
            running = null;
        }
        Throwable escaped = uncaught;
        if (escaped != null) {
            throw new SimulationFailure("an engine thread threw out of its run(): " + escaped, escaped);
        }
    }

    /** Freezes every thread of process {@code incarnation} where it waits now: a kill -9. */
    void kill(int incarnation) {
        for (SimThread t : threads) {
            if (t.process == incarnation) {
                t.killed = true;
            }
        }
    }

    /** Lets the killed threads unwind (each throws {@link SimCrash} at its wait); at the end of a seed. */
    void releaseKilled() {
        for (SimThread t : threads) {
            if (t.killed && t.started && !t.done) {
                t.baton.release();
            }
        }
        for (SimThread t : threads) {
            if (t.killed && t.started) {
                try {
                    t.join(5_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** Whether every thread of process {@code incarnation} has ended. */
    boolean allDone(int incarnation) {
        for (SimThread t : threads) {
            if (t.process == incarnation && t.started && !t.done && !t.killed) {
                return false;
            }
        }
        return true;
    }

    long now() {
        return now;
    }

    long steps() {
        return steps;
    }

    long trace() {
        return trace;
    }

    /** {@code a + b}, or {@link Long#MAX_VALUE} (no deadline) when it overflows. */
    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return b > 0 && sum < a ? Long.MAX_VALUE : sum;
    }

    private static String stackOf(Thread t) {
        StringBuilder sb = new StringBuilder();
        for (StackTraceElement e : t.getStackTrace()) {
            sb.append("    at ").append(e).append('\n');
        }
        return sb.toString();
    }
}
