package dev.etl.autoconfigure;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.ExitCodeGenerator;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ApplicationContext;
import org.springframework.context.SmartLifecycle;

import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.PipelineState;
import dev.etl.pipeline.RunReport;

/**
 * Runs the {@link PipelineRuntime} inside the application context's lifecycle.
 *
 * <p><b>Start.</b> Auto-started when the context has been refreshed, in phase {@link #PHASE}: after
 * the web server (so probes answer while lanes open their consumers).
 *
 * <p><b>Stop: the drain barrier.</b> On context close (SIGTERM, {@code SpringApplication.exit},
 * {@code context.close()}) {@link #stop(Runnable)} requests the drain ({@link PipelineRuntime#shutdown()}:
 * lanes stop polling, in-flight batches are written under {@code etl.checkpoint.drain-timeout},
 * watermarks are committed synchronously) and returns at once; a thread named
 * {@code etl-drain-<pipeline>} waits for the run to end and then calls Spring's callback. Spring waits
 * for that callback up to {@code spring.lifecycle.timeout-per-shutdown-phase} (30 s by default), so
 * that timeout must exceed the drain timeout plus a margin for lanes to finish their last commit
 * ({@link #SHUTDOWN_MARGIN}); {@link #start()} logs a warning when it does not. {@link #PHASE} is
 * higher than the web server's graceful-shutdown phase, so the pipeline drains first and
 * {@code /actuator/health} keeps answering (readiness DOWN) while it drains.
 *
 * <p><b>Failure.</b> A thread named {@code etl-watch-<pipeline>} waits for the run to end. If it ends
 * {@link PipelineState#FAILED FAILED} without a stop having been requested, the application context is
 * closed through {@link SpringApplication#exit} (which publishes an {@code ExitCodeEvent} with this
 * bean's exit code, 1) when {@code etl.pipeline.close-on-failure} is true, and the JVM exits with that
 * code ({@code System.exit}) when {@code etl.pipeline.exit-on-failure} is true. Both default to true;
 * the {@code @EtlPipelineTest} slice turns both off.
 *
 * <p>Thread-safe.
 */
public class EtlPipelineLifecycle implements SmartLifecycle, ExitCodeGenerator {

    /**
     * Lifecycle phase: above the web server's graceful shutdown ({@code DEFAULT_PHASE - 1024}), so the
     * pipeline starts after the web server and stops (drains) before it.
     */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 512;

    /**
     * Time the shutdown phase needs beyond {@code drain-timeout}: lanes get a few seconds past the
     * drain deadline to make their final commit and exit.
     */
    public static final Duration SHUTDOWN_MARGIN = Duration.ofSeconds(5);

    private static final Logger logger = LoggerFactory.getLogger(EtlPipelineLifecycle.class);

    private final PipelineRuntime runtime;

    private final ApplicationContext context;

    private final boolean closeOnFailure;

    private final boolean exitOnFailure;

    private final Duration shutdownPhaseTimeout;

    private final Object monitor = new Object();

    private boolean running;

    private volatile boolean stopRequested;

    private volatile RunReport report;

    /**
     * Creates the lifecycle.
     * @param runtime the pipeline to run
     * @param context the context to close when the pipeline fails
     * @param closeOnFailure whether a failed pipeline closes {@code context}
     * @param exitOnFailure whether a failed pipeline ends the JVM with a non-zero status
     * @param shutdownPhaseTimeout the configured {@code spring.lifecycle.timeout-per-shutdown-phase}
     */
    public EtlPipelineLifecycle(PipelineRuntime runtime, ApplicationContext context, boolean closeOnFailure,
            boolean exitOnFailure, Duration shutdownPhaseTimeout) {
        this.runtime = runtime;
        this.context = context;
        this.closeOnFailure = closeOnFailure;
        this.exitOnFailure = exitOnFailure;
        this.shutdownPhaseTimeout = shutdownPhaseTimeout;
    }

    @Override
    public void start() {
        synchronized (this.monitor) {
            if (this.running) {
                return;
            }
            checkShutdownPhaseTimeout();
            this.runtime.start();
            this.running = true;
            Thread watcher = new Thread(this::watch, "etl-watch-" + name());
            watcher.setDaemon(true);
            watcher.start();
        }
    }

    private void checkShutdownPhaseTimeout() {
        Duration needed = this.runtime.config().drainTimeout().plus(SHUTDOWN_MARGIN);
        if (this.shutdownPhaseTimeout.compareTo(needed) < 0) {
            logger.warn("spring.lifecycle.timeout-per-shutdown-phase ({}) is shorter than etl.checkpoint.drain-timeout "
                    + "({}) plus {} for the final commits: Spring may stop waiting for the drain of pipeline '{}', and "
                    + "data written but not committed then replays. Set spring.lifecycle.timeout-per-shutdown-phase "
                    + "to at least {}.", this.shutdownPhaseTimeout, this.runtime.config().drainTimeout(),
                    SHUTDOWN_MARGIN, name(), needed);
        }
    }

    /** Waits for the run to end; a run that ends by itself has failed. Runs on {@code etl-watch-*}. */
    private void watch() {
        RunReport ended;
        try {
            ended = this.runtime.awaitTermination();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return;
        }
        this.report = ended;
        if (this.stopRequested || ended.state() != PipelineState.FAILED) {
            return;
        }
        Throwable failure = ended.failure();
        logger.error("Pipeline '{}' failed{}; {}", name(), (failure != null) ? ": " + failure.getMessage() : "",
                this.closeOnFailure || this.exitOnFailure ? "closing the application context (exit code "
                        + ended.exitCode() + ")" : "the application context stays open (etl.pipeline.close-on-failure"
                        + "=false)");
        if (!this.closeOnFailure && !this.exitOnFailure) {
            return;
        }
        int exitCode = SpringApplication.exit(this.context, this);
        if (this.exitOnFailure) {
            System.exit(exitCode);
        }
    }

    @Override
    public void stop(Runnable callback) {
        synchronized (this.monitor) {
            if (!this.running) {
                callback.run();
                return;
            }
            this.running = false;
            this.stopRequested = true;
        }
        this.runtime.shutdown();
        Thread drain = new Thread(() -> {
            try {
                awaitTermination();
            }
            finally {
                callback.run();
            }
        }, "etl-drain-" + name());
        drain.setDaemon(true);
        drain.start();
    }

    @Override
    public void stop() {
        synchronized (this.monitor) {
            if (!this.running) {
                return;
            }
            this.running = false;
            this.stopRequested = true;
        }
        this.runtime.shutdown();
        awaitTermination();
    }

    private void awaitTermination() {
        try {
            RunReport ended = this.runtime.awaitTermination();
            this.report = ended;
            if (ended.exitCode() != RunReport.EXIT_OK) {
                logger.warn("Pipeline '{}' stopped with state {} and {} abandoned batches (exit code {})", name(),
                        ended.state(), ended.abandonedBatches(), ended.exitCode());
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public boolean isRunning() {
        synchronized (this.monitor) {
            return this.running;
        }
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /**
     * The exit code of the run: 0 while running or after a clean drain, 1 when the pipeline failed,
     * 2 when the drain abandoned unwritten batches (see {@link RunReport#exitCode()}).
     */
    @Override
    public int getExitCode() {
        RunReport ended = this.report;
        if (ended != null) {
            return ended.exitCode();
        }
        return (this.runtime.state() == PipelineState.FAILED) ? RunReport.EXIT_FAILED : RunReport.EXIT_OK;
    }

    /** The report of the run once it ended, else null. */
    public RunReport getReport() {
        return this.report;
    }

    private String name() {
        return this.runtime.config().name();
    }

}
