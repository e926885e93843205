package dev.etl.pipeline;

import dev.etl.error.FatalPipelineException;
import dev.etl.internal.pipeline.PipelineRun;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A running pipeline: N lane threads, the sinks' io threads, and a controller thread that performs
 * shutdown and failure handling.
 *
 * <p>States move forward only: {@code STARTING → RUNNING → DRAINING → STOPPED}, or to
 * {@code FAILED} from any non-terminal state. On shutdown the controller sets the drain deadline
 * ({@code drain-timeout}), lanes stop polling, hand off their chunks, wait for their partitions'
 * batches to be written, and commit synchronously; then the sinks stop, abandoning (failing, counting
 * and logging) whatever is still unwritten. On failure nothing more is committed.
 *
 * <p>Thread-safe.
 */
public final class PipelineRuntime {
    /** The lanes, sinks and controller: the engine's side of this run. */
    private final PipelineRun run;

    PipelineRuntime(PipelineRun run) {
        this.run = run;
    }

    /**
     * Starts the sinks' io threads and the lane threads, and returns. The state becomes
     * {@code RUNNING} at once; lanes open their source and chain on their own threads.
     *
     * <p>Every sink is constructed (its writer factory and validation run) before any io thread
     * starts. If anything fails here, the start is undone before the error is rethrown: the sinks
     * built so far are shut down (their io threads stopped, writers closed), the source is closed,
     * the state becomes {@code FAILED}, and {@link #awaitTermination()} returns a report with exit
     * code 1. No {@code etl-*} thread outlives a failed start.
     *
     * @throws IllegalStateException if already started
     */
    public void start() {
        run.start();
    }

    /** Starts (if needed) and blocks until the run ends. */
    public RunReport run() throws InterruptedException {
        return run.run();
    }

    /** A handle that requests a graceful shutdown. */
    public ShutdownHandle shutdownHandle() {
        return run::shutdown;
    }

    /** Requests a graceful shutdown (see {@link ShutdownHandle}). */
    public void shutdown() {
        run.shutdown();
    }

    /** Moves the pipeline to FAILED (first failure wins); nothing is committed after this. Any thread. */
    public void fail(FatalPipelineException error) {
        run.fail(error);
    }

    /** Blocks until the run has ended and returns its report. */
    public RunReport awaitTermination() throws InterruptedException {
        return run.awaitTermination();
    }

    /** Like {@link #awaitTermination()} but gives up after {@code timeout}, returning null. */
    public @Nullable RunReport awaitTermination(Duration timeout) throws InterruptedException {
        return run.awaitTermination(timeout);
    }

    public PipelineState state() {
        return run.state();
    }

    public PipelineConfig config() {
        return run.config();
    }

    /** The fatal error, if the pipeline failed. */
    public Throwable failure() {
        return run.failure();
    }

    /** Liveness: not failed, and every lane thread alive while running. */
    public boolean isLive() {
        return run.isLive();
    }

    /**
     * Readiness: running, every lane opened its source and received its first assignment (possibly
     * empty), and every sink healthy.
     */
    public boolean isReady() {
        return run.isReady();
    }

    /** The last offset committed per partition id by this process (diagnostics and tests). */
    public Map<Integer, Long> committedOffsets() {
        return run.committedOffsets();
    }

    /** Records polled so far. */
    public long recordsIn() {
        return run.recordsIn();
    }

    /** Encoded bytes handed to the sinks and not yet written, failed or abandoned (the in-flight budget's use). */
    public long inFlightBytes() {
        return run.inFlightBytes();
    }

    /** The in-flight byte budget's limit ({@code max-in-flight-bytes}). */
    public long maxInFlightBytes() {
        return run.maxInFlightBytes();
    }

    public MeterRegistry meterRegistry() {
        return run.meterRegistry();
    }

    /**
     * Names of the partitions currently paused on their own because their oldest outstanding batch
     * is stalled (failed, or too many batches outstanding behind it), over all lanes, sorted. Any
     * thread; a snapshot as of each lane's last change.
     */
    public List<String> heldPartitions() {
        return run.heldPartitions();
    }
}
