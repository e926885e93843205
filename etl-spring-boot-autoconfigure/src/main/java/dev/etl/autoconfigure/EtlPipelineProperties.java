package dev.etl.autoconfigure;

import dev.etl.pipeline.PipelineConfig;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Threads and identity of the pipeline ({@code etl.pipeline.*}). Defaults are the engine's
 * ({@link PipelineConfig}'s {@code DEFAULT_*} constants). Topology is never configured here: it is code, in
 * {@code ChainFactory} beans.
 *
 * <p>Validated when bound (the class is its own {@link Validator}), so a bad value fails startup with
 * the property's name, its origin, and the allowed values.
 */
@ConfigurationProperties("etl.pipeline")
public class EtlPipelineProperties implements Validator {

    /**
     * Whether to assemble and run the pipeline. When false no pipeline beans are created.
     */
    private boolean enabled = true;

    /**
     * Pipeline name: thread names, the "pipeline" metric tag and logs. Defaults to
     * "spring.application.name", else "etl".
     */
    private String name;

    /**
     * Lane threads; each owns one Kafka consumer and its own operator chain.
     */
    private int threads = PipelineConfig.DEFAULT_LANES;

    /**
     * I/O threads per sink, running the shard writers. 0 means one per writer (writers-per-shard per
     * shard), so a slow shard's blocking writes never delay another's and a shard's writers write at once.
     */
    private int ioThreads = PipelineConfig.DEFAULT_IO_THREADS;

    /**
     * Longest time a lane waits in one poll of the source.
     */
    private Duration pollTimeout = PipelineConfig.DEFAULT_POLL_TIMEOUT;

    /**
     * Whether a failed pipeline closes the application context.
     */
    private boolean closeOnFailure = true;

    /**
     * Whether a failed pipeline ends the JVM with a non-zero exit code (System.exit) after the
     * application context was closed.
     */
    private boolean exitOnFailure = true;

    /**
     * Whether SIGTERM and SIGINT, while the pipeline runs, close the application context (the
     * pipeline drains) and then end the JVM with the drain's outcome: 0 after a clean drain, 2 when
     * data was abandoned at the drain deadline, 1 when the pipeline failed. When false the JVM's own
     * handling applies: the same drain through the shutdown hook, then exit status 143.
     */
    private boolean handleSignals = true;

    public boolean isEnabled() {
        return this.enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public @Nullable String getName() {
        return this.name;
    }

    public void setName(@Nullable String name) {
        this.name = name;
    }

    public int getThreads() {
        return this.threads;
    }

    public void setThreads(int threads) {
        this.threads = threads;
    }

    public int getIoThreads() {
        return this.ioThreads;
    }

    public void setIoThreads(int ioThreads) {
        this.ioThreads = ioThreads;
    }

    public Duration getPollTimeout() {
        return this.pollTimeout;
    }

    public void setPollTimeout(Duration pollTimeout) {
        this.pollTimeout = pollTimeout;
    }

    public boolean isCloseOnFailure() {
        return this.closeOnFailure;
    }

    public void setCloseOnFailure(boolean closeOnFailure) {
        this.closeOnFailure = closeOnFailure;
    }

    public boolean isExitOnFailure() {
        return this.exitOnFailure;
    }

    public void setExitOnFailure(boolean exitOnFailure) {
        this.exitOnFailure = exitOnFailure;
    }

    public boolean isHandleSignals() {
        return this.handleSignals;
    }

    public void setHandleSignals(boolean handleSignals) {
        this.handleSignals = handleSignals;
    }

    @Override
    public boolean supports(Class<?> clazz) {
        return EtlPipelineProperties.class.isAssignableFrom(clazz);
    }

    @Override
    public void validate(Object target, Errors errors) {
        EtlPipelineProperties pipeline = (EtlPipelineProperties) target;
        if (pipeline.getName() != null && pipeline.getName().isBlank()) {
            errors.rejectValue(
                    "name",
                    "etl.invalid",
                    "etl.pipeline.name must not be blank (leave it unset to use spring.application.name or \"etl\")");
        }
        if (pipeline.getThreads() < 1) {
            errors.rejectValue(
                    "threads", "etl.invalid", "etl.pipeline.threads must be >= 1, got " + pipeline.getThreads());
        }
        if (pipeline.getIoThreads() < 0) {
            errors.rejectValue(
                    "ioThreads",
                    "etl.invalid",
                    "etl.pipeline.io-threads must be >= 0 (0 = one per shard writer), got " + pipeline.getIoThreads());
        }
        EtlPropertiesValidation.positive(errors, "pollTimeout", "etl.pipeline.poll-timeout", pipeline.getPollTimeout());
    }
}
