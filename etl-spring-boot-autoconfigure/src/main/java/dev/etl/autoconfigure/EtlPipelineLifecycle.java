package dev.etl.autoconfigure;

import dev.etl.error.Secrets;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.PipelineState;
import dev.etl.pipeline.RunReport;
import java.time.Duration;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ExitCodeGenerator;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ApplicationContext;
import org.springframework.context.SmartLifecycle;

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
 * <p><b>Failure.</b> A non-daemon thread named {@code etl-watch-<pipeline>} waits for the run to end
 * (non-daemon so the JVM cannot begin an ordinary exit, status 0, between the end of the pipeline's
 * threads and its {@code System.exit}). If it ends
 * {@link PipelineState#FAILED FAILED} without a stop having been requested, the application context is
 * closed through {@link SpringApplication#exit} (which publishes an {@code ExitCodeEvent} with this
 * bean's exit code, 1) when {@code etl.pipeline.close-on-failure} is true, and the JVM exits with that
 * code ({@code System.exit}) when {@code etl.pipeline.exit-on-failure} is true; the process status then
 * always equals the run report's exit code. A signal that arrives meanwhile answers the same code. Both default to true;
 * the {@code @EtlPipelineTest} slice turns both off.
 *
 * <p><b>Signals.</b> With {@code etl.pipeline.handle-signals} (the default), {@link #start()} registers
 * this bean with a JVM-wide SIGTERM/SIGINT handler ({@link SignalExitHandler}). On the signal a
 * non-daemon thread closes the context through {@link SpringApplication#exit} (so {@link #stop(Runnable)}
 * drains) and then calls {@code System.exit} with the outcome of the drain: 0 after a clean drain,
 * {@link RunReport#EXIT_ABANDONED 2} when batches were abandoned at the drain deadline (or the drain
 * outlived the shutdown phase), {@link RunReport#EXIT_FAILED 1} when the pipeline failed. Without it the
 * JVM ends a SIGTERM'd process with 143 after the same drain.
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

    private final Supplier<SignalExitHandler> signals;

    private SignalExitHandler registeredSignals;

    private final SignalExitHandler.Target signalTarget = new SignalExitHandler.Target() {

        @Override
        public String name() {
            return "pipeline '" + EtlPipelineLifecycle.this.name() + "'";
        }

        @Override
        public int exitOnSignal(String signal) {
            return EtlPipelineLifecycle.this.exitOnSignal(signal);
        }
    };

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
    public EtlPipelineLifecycle(
            PipelineRuntime runtime,
            ApplicationContext context,
            boolean closeOnFailure,
            boolean exitOnFailure,
            Duration shutdownPhaseTimeout) {
        this(runtime, context, closeOnFailure, exitOnFailure, shutdownPhaseTimeout, false);
    }

    /**
     * Creates the lifecycle.
     * @param runtime the pipeline to run
     * @param context the context to close when the pipeline fails or the process receives SIGTERM/SIGINT
     * @param closeOnFailure whether a failed pipeline closes {@code context}
     * @param exitOnFailure whether a failed pipeline ends the JVM with a non-zero status
     * @param shutdownPhaseTimeout the configured {@code spring.lifecycle.timeout-per-shutdown-phase}
     * @param handleSignals whether SIGTERM and SIGINT close {@code context} and end the JVM with the
     * drain's exit code while the pipeline runs
     */
    public EtlPipelineLifecycle(
            PipelineRuntime runtime,
            ApplicationContext context,
            boolean closeOnFailure,
            boolean exitOnFailure,
            Duration shutdownPhaseTimeout,
            boolean handleSignals) {
        this(
                runtime,
                context,
                closeOnFailure,
                exitOnFailure,
                shutdownPhaseTimeout,
                handleSignals ? SignalExitHandler::jvm : null);
    }

    EtlPipelineLifecycle(
            PipelineRuntime runtime,
            ApplicationContext context,
            boolean closeOnFailure,
            boolean exitOnFailure,
            Duration shutdownPhaseTimeout,
            Supplier<SignalExitHandler> signals) {
        this.runtime = runtime;
        this.context = context;
        this.closeOnFailure = closeOnFailure;
        this.exitOnFailure = exitOnFailure;
        this.shutdownPhaseTimeout = shutdownPhaseTimeout;
        this.signals = signals;
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
            if (this.signals != null) {
                this.registeredSignals = this.signals.get();
                this.registeredSignals.register(this.signalTarget);
            }
            Thread watcher = new Thread(this::watch, "etl-watch-" + name());
            // Not a daemon: when the pipeline's own threads end (it failed), this thread must keep the
            // JVM alive until it has closed the context and called System.exit. A daemon watcher let
            // the JVM begin a normal exit (status 0, main had returned) as soon as the last pipeline
            // thread ended, racing the System.exit(1) that then blocked behind the shutdown hooks.
            watcher.setDaemon(false);
            watcher.start();
        }
    }

    private void checkShutdownPhaseTimeout() {
        Duration needed = this.runtime.config().drainTimeout().plus(SHUTDOWN_MARGIN);
        if (this.shutdownPhaseTimeout.compareTo(needed) < 0) {
            logger.warn(
                    "spring.lifecycle.timeout-per-shutdown-phase ({}) is shorter than etl.checkpoint.drain-timeout "
                            + "({}) plus {} for the final commits: Spring may stop waiting for the drain of pipeline '{}', and "
                            + "data written but not committed then replays. Set spring.lifecycle.timeout-per-shutdown-phase "
                            + "to at least {}.",
                    this.shutdownPhaseTimeout,
                    this.runtime.config().drainTimeout(),
                    SHUTDOWN_MARGIN,
                    name(),
                    needed);
        }
    }

    /** Waits for the run to end; a run that ends by itself has failed. Runs on {@code etl-watch-*}. */
    private void watch() {
        RunReport ended;
        try {
            ended = this.runtime.awaitTermination();
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return;
        }
        this.report = ended;
        if (this.stopRequested
                || ended.state() != PipelineState.FAILED
                || (!this.closeOnFailure && !this.exitOnFailure)) {
            unregisterSignals();
        }
        if (this.stopRequested || ended.state() != PipelineState.FAILED) {
            return;
        }
        Throwable failure = ended.failure();
        logger.error(
                "Pipeline '{}' failed{}; {}",
                name(),
                (failure != null) ? ": " + Secrets.mask(failure.getMessage()) : "",
                this.closeOnFailure || this.exitOnFailure
                        ? "closing the application context (exit code " + ended.exitCode() + ")"
                        : "the application context stays open (etl.pipeline.close-on-failure" + "=false)");
        if (!this.closeOnFailure && !this.exitOnFailure) {
            return;
        }
        // Signals stay registered until here: a SIGTERM that arrives while the failed run exits goes
        // through exitOnSignal, which answers the same status (1), instead of the JVM's default 143.
        int exitCode = exitCodeAfterClose(SpringApplication.exit(this.context, this), ended);
        unregisterSignals();
        if (this.exitOnFailure) {
            logger.info(
                    "Pipeline '{}': exiting the JVM with status {} (etl.pipeline.exit-on-failure)", name(), exitCode);
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
        unregisterSignals();
        this.runtime.shutdown();
        Thread drain = new Thread(
                () -> {
                    try {
                        awaitTermination();
                    } finally {
                        callback.run();
                    }
                },
                "etl-drain-" + name());
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
        unregisterSignals();
        this.runtime.shutdown();
        awaitTermination();
    }

    private void unregisterSignals() {
        SignalExitHandler registered;
        synchronized (this.monitor) {
            registered = this.registeredSignals;
            this.registeredSignals = null;
        }
        if (registered != null) {
            registered.unregister(this.signalTarget);
        }
    }

    /**
     * Closes the application context through {@link SpringApplication#exit} (the pipeline drains in
     * {@link #stop(Runnable)}) and answers the exit status for the process. Called on the
     * {@code etl-signal-exit} thread when the process receives SIGTERM or SIGINT.
     * @param signal the signal's name
     * @return the exit status, see {@link #exitCodeAfterClose(int, RunReport)}
     */
    int exitOnSignal(String signal) {
        logger.info(
                "Pipeline '{}': SIG{} received, closing the application context; the drain takes at most "
                        + "etl.checkpoint.drain-timeout ({})",
                name(),
                signal,
                this.runtime.config().drainTimeout());
        int contextExitCode = SpringApplication.exit(this.context, this);
        RunReport ended = this.report;
        if (ended == null && this.runtime.state().isTerminal()) {
            // The run ended but the thread that records the report has not yet: wait for it (bounded).
            ended = awaitReport();
        }
        int exitCode = exitCodeAfterClose(contextExitCode, ended);
        logger.info(
                "Pipeline '{}' drained after SIG{}: {} (exit code {})",
                name(),
                signal,
                (this.report != null) ? this.report : "the drain did not end within the shutdown phase",
                exitCode);
        return exitCode;
    }

    /**
     * The process exit status once the context was closed on a signal.
     * @param contextExitCode what {@link SpringApplication#exit} answered (computed before the close,
     * so it reflects failures that happened earlier and other {@link ExitCodeGenerator}s)
     * @param report the pipeline's report, null if the drain had not ended when the shutdown phase gave
     * up waiting for it
     * @return {@code contextExitCode} if not 0; else {@link RunReport#EXIT_ABANDONED} when the drain had
     * not ended (its uncommitted data replays); else the report's {@link RunReport#exitCode() exit code}
     */
    static int exitCodeAfterClose(int contextExitCode, RunReport report) {
        if (contextExitCode != 0) {
            return contextExitCode;
        }
        if (report == null) {
            return RunReport.EXIT_ABANDONED;
        }
        return report.exitCode();
    }

    private RunReport awaitReport() {
        try {
            RunReport ended = this.runtime.awaitTermination(Duration.ofSeconds(5));
            return (ended != null) ? ended : this.report;
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return this.report;
        }
    }

    private void awaitTermination() {
        try {
            RunReport ended = this.runtime.awaitTermination();
            this.report = ended;
            if (ended.exitCode() != RunReport.EXIT_OK) {
                logger.warn(
                        "Pipeline '{}' stopped with state {}, {} abandoned batches, {} uncommitted batches ({} "
                                + "failed), {} dropped chunks (exit code {})",
                        name(),
                        ended.state(),
                        ended.abandonedBatches(),
                        ended.uncommittedBatches(),
                        ended.failedBatches(),
                        ended.droppedChunks(),
                        ended.exitCode());
            }
        } catch (InterruptedException ex) {
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

    /** Whether SIGTERM/SIGINT are handled while the pipeline runs. */
    boolean handlesSignals() {
        return this.signals != null;
    }

    /** The report of the run once it ended, else null. */
    public @Nullable RunReport getReport() {
        return this.report;
    }

    private String name() {
        return this.runtime.config().name();
    }
}
