package dev.etl.internal.pipeline;

import dev.etl.error.FatalPipelineException;
import dev.etl.internal.sink.SinkRuntime;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.PipelineState;
import dev.etl.pipeline.RunReport;
import dev.etl.pipeline.Scheduler;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a {@link PipelineRun}'s run ends. On the controller thread ({@link #run}): waits for a
 * shutdown request or a failure, joins the lane threads (until the drain deadline, or
 * {@code drain-timeout} after a failure, plus a grace), shuts the sinks down with the drain deadline
 * (at once after a failure, abandoning what they hold), closes the source and ends the run. On the
 * starting thread ({@link #endFailedStart}): the same for a start that threw before the controller
 * ran. And the run report's bookkeeping: what the lanes left uncommitted, the report, its final log
 * line, and the latch {@link PipelineRun#awaitTermination()} waits on.
 *
 * <p>The runtime keeps the states (this class reads them, and at the end asks for
 * {@link PipelineRun#markStopped}). Thread-safe. Logs under the runtime's category.
 */
public final class PipelineController implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(PipelineRuntime.class);
    private static final long LANE_JOIN_GRACE_NS = TimeUnit.SECONDS.toNanos(5);

    private final PipelineRun runtime;
    private final PipelineConfig config;
    /** The runtime's sinks and lane threads: filled by {@code start()} before the controller thread starts. */
    private final List<SinkRuntime> sinks;

    private final List<Thread> laneThreads;
    private final Scheduler scheduler;
    private final Scheduler.Latch stopRequested;
    private final Scheduler.Latch terminated;
    private final AtomicLong uncommittedBatches = new AtomicLong();
    private final AtomicLong failedBatches = new AtomicLong();
    private final AtomicLong droppedChunks = new AtomicLong();
    private volatile RunReport report;

    PipelineController(PipelineRun runtime, Scheduler scheduler, List<SinkRuntime> sinks, List<Thread> laneThreads) {
        this.runtime = runtime;
        this.scheduler = scheduler;
        this.stopRequested = scheduler.newLatch();
        this.terminated = scheduler.newLatch();
        this.config = runtime.config();
        this.sinks = sinks;
        this.laneThreads = laneThreads;
    }

    /** Releases the controller thread: a shutdown was requested or the pipeline failed. Any thread. */
    void requestStop() {
        stopRequested.release();
    }

    @Override
    public void run() {
        try {
            stopRequested.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            runtime.fail(new FatalPipelineException(dev.etl.error.ErrorClass.SOURCE, "controller interrupted", e));
        }
        long joinDeadlineNs = (runtime.state() == PipelineState.DRAINING
                        ? runtime.drainDeadlineNs()
                        : scheduler.nanoTime() + config.drainTimeout().toNanos())
                + LANE_JOIN_GRACE_NS;
        int stuckLanes = joinLanes(joinDeadlineNs);
        if (stuckLanes > 0) {
            // A lane that did not stop could not report what it holds; whatever it is, it is uncommitted.
            uncommittedBatches.addAndGet(stuckLanes);
        }
        long sinkDeadlineNs =
                runtime.state() == PipelineState.DRAINING ? runtime.drainDeadlineNs() : scheduler.nanoTime();
        long abandoned = 0;
        for (SinkRuntime sink : sinks) {
            try {
                abandoned += sink.shutdown(sinkDeadlineNs);
            } catch (RuntimeException e) {
                log.error("pipeline={} sink {} failed to shut down", config.name(), sink.name(), e);
            }
        }
        try {
            runtime.source().close();
        } catch (Exception e) {
            log.warn("pipeline={} source close failed", config.name(), e);
        }
        endRun(abandoned);
    }

    /**
     * Ends a run whose start threw before the controller thread started (the runtime has failed):
     * every sink built so far shut down at once, the source closed, the run ended.
     */
    void endFailedStart() {
        long abandoned = 0;
        for (SinkRuntime sink : sinks) {
            try {
                abandoned += sink.shutdown(scheduler.nanoTime());
            } catch (RuntimeException e) {
                log.error(
                        "pipeline={} sink {} failed to shut down after a failed start", config.name(), sink.name(), e);
            }
        }
        try {
            runtime.source().close();
        } catch (Exception e) {
            log.warn("pipeline={} source close failed", config.name(), e);
        }
        endRun(abandoned);
    }

    /** Builds the report, logs the final line and releases {@link #awaitTermination()}. Once. */
    private void endRun(long abandoned) {
        runtime.markStopped();
        report = new RunReport(
                runtime.state(),
                runtime.failure(),
                abandoned,
                runtime.recordsIn(),
                uncommittedBatches.get(),
                failedBatches.get(),
                droppedChunks.get());
        if (report.leftDataUnwritten()) {
            log.warn(
                    "pipeline={} stopped with data unwritten: abandonedBatches={} uncommittedBatches={} "
                            + "failedBatches={} droppedChunks={}; their offsets were not committed and will replay",
                    config.name(),
                    abandoned,
                    report.uncommittedBatches(),
                    report.failedBatches(),
                    report.droppedChunks());
        }
        log.info(
                "pipeline={} ended: state={} exitCode={} recordsIn={} abandonedBatches={} uncommittedBatches={} "
                        + "failedBatches={} droppedChunks={}",
                config.name(),
                report.state(),
                report.exitCode(),
                report.recordsIn(),
                abandoned,
                report.uncommittedBatches(),
                report.failedBatches(),
                report.droppedChunks());
        terminated.release();
    }

    /** Joins the lane threads until the deadline; returns how many are still alive. */
    private int joinLanes(long deadlineNs) {
        int alive = 0;
        for (int i = 0; i < laneThreads.size(); i++) {
            Thread thread = laneThreads.get(i);
            boolean ended;
            try {
                ended = scheduler.join(thread, Math.max(1_000_000, deadlineNs - scheduler.nanoTime()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return laneThreads.size() - i;
            }
            if (!ended) {
                alive++;
                log.error(
                        "pipeline={} lane thread {} did not stop by the drain deadline",
                        config.name(),
                        thread.getName());
            }
        }
        return alive;
    }

    /** A lane stopped holding these uncommitted source batches ({@code failed} of them failed) and dropped chunks. */
    void laneLeftUnwritten(long uncommitted, long failed, long dropped) {
        uncommittedBatches.addAndGet(uncommitted);
        failedBatches.addAndGet(failed);
        droppedChunks.addAndGet(dropped);
    }

    /** Blocks until the run has ended and returns its report. */
    RunReport awaitTermination() throws InterruptedException {
        terminated.await();
        return report;
    }

    /** Like {@link #awaitTermination()} but gives up after {@code timeout}, returning null. */
    RunReport awaitTermination(Duration timeout) throws InterruptedException {
        return terminated.await(timeout.toNanos()) ? report : null;
    }
}
