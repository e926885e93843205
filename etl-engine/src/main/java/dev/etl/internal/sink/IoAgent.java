package dev.etl.internal.sink;

import dev.etl.error.RateLimitedLog;
import java.util.function.LongSupplier;
import org.agrona.concurrent.Agent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The duty cycle of one io thread: each cycle gives every shard worker assigned to the thread one
 * {@link ShardWorker#doWork} turn, then idles according to the work done ({@link IoIdle}: an idle sink's
 * thread sleeps until a worker's next linger or retry, or until a lane hands it a chunk). Writes block the
 * thread, so shards sharing it share its write time.
 *
 * <p>Runs its own loop rather than an Agrona {@code AgentRunner}: the runner stops its loop when the
 * thread is interrupted (a writer library may interrupt), and waits for the loop on close, while a
 * sink shutdown must keep draining until its deadline and then {@link WriteGate#seize() seize} a
 * thread stuck in a write rather than wait for it. The loop ends when every worker has finished
 * (shutdown drained or abandoned it) or the thread was seized.
 *
 * <p>A throwable escaping a worker's turn (a bug, or an {@code Error} such as out of memory) is never
 * swallowed: the worker {@link ShardWorker#fail fails} the acks and returns the budget of everything it
 * holds, counts {@code etl_sink_io_failures_total}, logs at ERROR and fails the pipeline; the thread keeps
 * running so that chunks still arriving are failed too and shutdown drains as usual.
 */
final class IoAgent implements Agent, Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(IoAgent.class);

    private final String roleName;
    private final ShardWorker[] workers;
    private final WriteGate gate;
    private final DrainSignal drain;
    private final IoIdle idle;
    private final LongSupplier nanoClock;
    private final RateLimitedLog errorLog;
    private boolean finished;

    IoAgent(
            String roleName,
            ShardWorker[] workers,
            WriteGate gate,
            DrainSignal drain,
            IoIdle idle,
            LongSupplier nanoClock) {
        this.roleName = roleName;
        this.workers = workers;
        this.gate = gate;
        this.drain = drain;
        this.idle = idle;
        this.nanoClock = nanoClock;
        this.errorLog = new RateLimitedLog(10_000_000_000L, nanoClock);
    }

    @Override
    public int doWork() {
        final ShardWorker[] workers = this.workers;
        final LongSupplier nanoClock = this.nanoClock;
        boolean draining = drain.isDraining();
        long deadlineNs = draining ? drain.deadlineNs() : 0;
        int work = 0;
        boolean allFinished = true;
        for (ShardWorker worker : workers) {
            int done;
            try {
                done = worker.doWork(nanoClock.getAsLong(), draining, deadlineNs);
            } catch (Throwable t) { // a bug or an Error: fail what the worker owns and the pipeline, loudly
                worker.fail(t);
                done = 1;
            }
            if (done == ShardWorker.SEIZED) {
                return 0;
            }
            work += done;
            allFinished &= worker.isFinished();
        }
        finished = draining && allFinished;
        return work;
    }

    /** After a cycle that did nothing: how long until one of the workers has something timed to do. */
    private long nanosUntilDue() {
        long nowNs = nanoClock.getAsLong();
        long nanos = Long.MAX_VALUE;
        for (ShardWorker worker : workers) {
            nanos = Math.min(nanos, worker.nanosUntilDue(nowNs));
        }
        return nanos;
    }

    /** Wakes the thread if it sleeps: a chunk was handed to one of its workers, or a flush or drain began. */
    void ring() {
        idle.ring();
    }

    /** How many times the thread went to sleep (tests). */
    long sleeps() {
        return idle.sleeps();
    }

    @Override
    public void run() {
        final IoIdle idle = this.idle;
        while (!finished && !gate.isSeized()) {
            idle.beginCycle();
            int work = 0;
            try {
                work = doWork();
            } catch (Throwable t) { // last resort (a worker's own recovery threw): keep the thread that settles acks
                long suppressed = errorLog.permit();
                if (suppressed >= 0) {
                    LOG.error(
                            "{}: unexpected failure in the sink duty cycle ({} similar suppressed)",
                            roleName,
                            suppressed,
                            t);
                }
            }
            // Interrupts mean nothing to this loop (shutdown uses the drain signal); a pending one would
            // turn the idle park into a spin.
            Thread.interrupted();
            idle.idle(work, work == 0 ? nanosUntilDue() : 0, drain.isDraining());
        }
    }

    /** Takes the workers over if the thread is stuck in a write (shutdown thread, past the deadline). */
    boolean seize() {
        return gate.seize();
    }

    /** Abandons every unfinished worker; only after a successful {@link #seize()}. */
    int abandonSeizedWorkers() {
        int abandoned = 0;
        for (ShardWorker worker : workers) {
            if (!worker.isFinished()) {
                abandoned += worker.abandon();
            }
        }
        return abandoned;
    }

    @Override
    public String roleName() {
        return roleName;
    }
}
