package dev.etl.autoconfigure.datagen;

import dev.etl.autoconfigure.EtlPipelineLifecycle;
import dev.etl.autoconfigure.datagen.EtlDatagenProperties.WhenDone;
import dev.etl.datagen.DatagenSource;
import dev.etl.pipeline.RunReport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ApplicationContext;

/**
 * Ends a bounded datagen run the way {@code etl.source.datagen.when-done} says, once every record
 * generated is written and committed ({@link DatagenSource#onDone}): closes the application context
 * through {@link SpringApplication#exit} on a thread of its own (so the pipeline drains as on SIGTERM,
 * and the final commit runs), then, for {@link WhenDone#EXIT}, ends the JVM with the run's exit code:
 * 0 after a clean drain, 2 when the drain left data unwritten, 1 when the pipeline failed.
 *
 * <p>The thread, {@code etl-datagen-done-<pipeline>}, is not a daemon, so the JVM cannot begin an
 * ordinary exit before it has called {@code System.exit}.
 */
public class DatagenCompletion {

    private static final Logger logger = LoggerFactory.getLogger(DatagenCompletion.class);

    private final WhenDone whenDone;

    private final ApplicationContext context;

    private final ObjectProvider<EtlPipelineLifecycle> lifecycle;

    private final String pipeline;

    private volatile Integer exitCode;

    DatagenCompletion(
            DatagenSource source,
            WhenDone whenDone,
            ApplicationContext context,
            ObjectProvider<EtlPipelineLifecycle> lifecycle,
            String pipeline) {
        this.whenDone = whenDone;
        this.context = context;
        this.lifecycle = lifecycle;
        this.pipeline = pipeline;
        if (source.isBounded()) {
            source.onDone(this::done);
        }
    }

    /** On the lane thread whose commit completed the run: must not block. */
    private void done() {
        if (this.whenDone == WhenDone.KEEP_RUNNING) {
            logger.info(
                    "Pipeline '{}': the datagen run is done; the pipeline keeps running idle "
                            + "(etl.source.datagen.when-done=keep-running)",
                    this.pipeline);
            return;
        }
        Thread thread = new Thread(this::close, "etl-datagen-done-" + this.pipeline);
        thread.setDaemon(false);
        thread.start();
    }

    private void close() {
        logger.info(
                "Pipeline '{}': the datagen run is done, closing the application context "
                        + "(etl.source.datagen.when-done={})",
                this.pipeline,
                this.whenDone.name().toLowerCase(java.util.Locale.ROOT));
        // looked up before the close: a closed context hands out no beans
        EtlPipelineLifecycle running = this.lifecycle.getIfAvailable();
        int contextExitCode = SpringApplication.exit(this.context);
        RunReport report = (running != null) ? running.getReport() : null;
        int code = (contextExitCode != 0)
                ? contextExitCode
                : (report != null) ? report.exitCode() : RunReport.EXIT_ABANDONED;
        this.exitCode = code;
        if (this.whenDone == WhenDone.EXIT) {
            logger.info(
                    "Pipeline '{}': exiting the JVM with status {} (etl.source.datagen.when-done=exit)",
                    this.pipeline,
                    code);
            System.exit(code);
        }
    }

    /**
     * The exit code of the finished run once the context was closed after it, else null (still running,
     * or {@code keep-running}).
     * @return the exit code, or null
     */
    public Integer getExitCode() {
        return this.exitCode;
    }
}
