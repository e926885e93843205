package dev.etl.autoconfigure;

import dev.etl.pipeline.RunReport;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ApplicationContext;

/**
 * The one way a bounded run ends (a datagen run, a backfill): once its source says everything is
 * committed it calls {@link #done()} (its {@code onDone} callback), and this ends the run the way its
 * {@code when-done} property ({@link WhenDone}) says: closes the application context through
 * {@link SpringApplication#exit} on a thread of its own (so the pipeline drains as on SIGTERM, and the
 * final commit runs), then, in {@code exit} mode, ends the JVM with the run's exit code: 0 after a clean
 * drain, 2 when the drain left data unwritten, 1 when the pipeline failed.
 *
 * <p>The thread, {@code etl-<what>-done-<pipeline>}, is not a daemon, so the JVM cannot begin an ordinary
 * exit before it has called {@code System.exit}.
 */
public final class BoundedRunCompletion {

    private static final Logger logger = LoggerFactory.getLogger(BoundedRunCompletion.class);

    /** What happens when a bounded run is done: the type of each connector's {@code when-done} property. */
    public enum WhenDone {

        /** Stop the pipeline, close the context, end the JVM with the run's exit code. */
        EXIT,

        /** Stop the pipeline and close the context. */
        CLOSE,

        /** Leave the idle pipeline running. */
        KEEP_RUNNING
    }

    private final String what;

    private final String property;

    private final WhenDone action;

    private final ApplicationContext context;

    private final ObjectProvider<EtlPipelineLifecycle> lifecycle;

    private final String pipeline;

    private volatile Integer exitCode;

    /**
     * @param what     the run, for logs and the thread name (e.g. {@code datagen}, {@code backfill})
     * @param property the when-done property, for logs
     * @param action   its value
     */
    public BoundedRunCompletion(
            String what,
            String property,
            WhenDone action,
            ApplicationContext context,
            ObjectProvider<EtlPipelineLifecycle> lifecycle,
            String pipeline) {
        this.what = what;
        this.property = property;
        this.action = action;
        this.context = context;
        this.lifecycle = lifecycle;
        this.pipeline = pipeline;
    }

    /** The source's done callback: returns at once (it may run on a lane thread). */
    public void done() {
        if (this.action == WhenDone.KEEP_RUNNING) {
            logger.info(
                    "Pipeline '{}': the {} run is done; the pipeline keeps running idle ({}=keep-running)",
                    this.pipeline,
                    this.what,
                    this.property);
            return;
        }
        Thread thread = new Thread(this::close, "etl-" + this.what + "-done-" + this.pipeline);
        thread.setDaemon(false);
        thread.start();
    }

    private void close() {
        logger.info(
                "Pipeline '{}': the {} run is done, closing the application context ({}={})",
                this.pipeline,
                this.what,
                this.property,
                this.action.name().toLowerCase(Locale.ROOT).replace('_', '-'));
        // looked up before the close: a closed context hands out no beans
        EtlPipelineLifecycle running = this.lifecycle.getIfAvailable();
        int contextExitCode = SpringApplication.exit(this.context);
        RunReport report = (running != null) ? running.getReport() : null;
        int code = (contextExitCode != 0)
                ? contextExitCode
                : (report != null) ? report.exitCode() : RunReport.EXIT_ABANDONED;
        this.exitCode = code;
        if (this.action == WhenDone.EXIT) {
            logger.info("Pipeline '{}': exiting the JVM with status {} ({}=exit)", this.pipeline, code, this.property);
            System.exit(code);
        }
    }

    /**
     * The exit code of the finished run once the context was closed after it, else null (still running,
     * or {@code keep-running}).
     * @return the exit code, or null
     */
    public @Nullable Integer getExitCode() {
        return this.exitCode;
    }
}
