package dev.etl.autoconfigure;

import dev.etl.pipeline.PipelineConfig;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.Validator;

/**
 * Configuration of the pipeline ({@code etl.*}): threads, checkpointing, backpressure, error policies
 * ({@link EtlErrorsProperties}) and metric tags. Each connector has a properties class of its own ({@code etl.source.kafka},
 * {@code etl.errors.dead-letter}, {@code etl.avro}, {@code etl.sink.clickhouse}), bound by its
 * auto-configuration. Topology is never configured here: it is code, in {@code ChainFactory} beans.
 * Defaults are the engine's ({@link PipelineConfig}'s {@code DEFAULT_*} constants).
 *
 * <p>Validated when bound (the class is its own {@link Validator}), so a bad value fails startup with
 * the property's name, its origin, and the allowed values.
 */
@ConfigurationProperties("etl")
public class EtlProperties implements Validator {

    private final Pipeline pipeline = new Pipeline();

    private final Checkpoint checkpoint = new Checkpoint();

    private final Backpressure backpressure = new Backpressure();

    @NestedConfigurationProperty
    private final EtlErrorsProperties errors = new EtlErrorsProperties();

    private final Metrics metrics = new Metrics();

    public Pipeline getPipeline() {
        return this.pipeline;
    }

    public Checkpoint getCheckpoint() {
        return this.checkpoint;
    }

    public Backpressure getBackpressure() {
        return this.backpressure;
    }

    public EtlErrorsProperties getErrors() {
        return this.errors;
    }

    public Metrics getMetrics() {
        return this.metrics;
    }

    @Override
    public boolean supports(Class<?> clazz) {
        return EtlProperties.class.isAssignableFrom(clazz);
    }

    @Override
    public void validate(Object target, org.springframework.validation.Errors errors) {
        new EtlPropertiesValidation((EtlProperties) target, errors).validate();
    }

    /** Threads and identity of the pipeline. */
    public static class Pipeline {

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
         * I/O threads per sink, running the shard writers. 0 means one per shard, so a slow shard's
         * blocking writes never delay another's.
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
    }

    /** Watermark commits and the drain barrier. */
    public static class Checkpoint {

        /**
         * How often advanced watermarks are committed (asynchronously). Revokes and shutdown commit
         * synchronously regardless.
         */
        private Duration interval = PipelineConfig.DEFAULT_CHECKPOINT_INTERVAL;

        /**
         * Bound on draining in-flight data at revoke and at shutdown; batches still unwritten then are
         * abandoned and their offsets not committed. Must fit inside
         * "spring.lifecycle.timeout-per-shutdown-phase".
         */
        private Duration drainTimeout = PipelineConfig.DEFAULT_DRAIN_TIMEOUT;

        /**
         * Fail the pipeline when a partition's watermark has not advanced past outstanding data for
         * this long (a failed or unwritten oldest batch, or one a stateful operator keeps with no timer
         * scheduled; the partition itself is paused meanwhile). Data an operator keeps while its timer is
         * scheduled does not count until it is emitted. Longer than a shard outage that retries ride out. 0
         * disables the check.
         */
        private Duration stalledFailAfter = PipelineConfig.DEFAULT_STALLED_FAIL_AFTER;

        public Duration getInterval() {
            return this.interval;
        }

        public void setInterval(Duration interval) {
            this.interval = interval;
        }

        public Duration getDrainTimeout() {
            return this.drainTimeout;
        }

        public void setDrainTimeout(Duration drainTimeout) {
            this.drainTimeout = drainTimeout;
        }

        public Duration getStalledFailAfter() {
            return this.stalledFailAfter;
        }

        public void setStalledFailAfter(Duration stalledFailAfter) {
            this.stalledFailAfter = stalledFailAfter;
        }
    }

    /** The in-flight byte budget and pause/resume hysteresis. */
    public static class Backpressure {

        /**
         * Global budget of encoded bytes handed to sinks and not yet written. Unset: a quarter of the
         * JVM's maximum heap, between 32 MiB and 1 GiB (256 MiB for -Xmx1g, 512 MiB for -Xmx2g).
         */
        private DataSize maxInFlightBytes;

        /**
         * Budget utilisation, in (0, 1], at which lanes pause their partitions (and keep polling).
         */
        private double pauseAbove = PipelineConfig.DEFAULT_PAUSE_ABOVE;

        /**
         * Budget utilisation, in [0, pause-above), below which paused lanes resume.
         */
        private double resumeBelow = PipelineConfig.DEFAULT_RESUME_BELOW;

        /**
         * Shortest pause, against flapping.
         */
        private Duration minPause = PipelineConfig.DEFAULT_MIN_PAUSE;

        public @Nullable DataSize getMaxInFlightBytes() {
            return this.maxInFlightBytes;
        }

        public void setMaxInFlightBytes(@Nullable DataSize maxInFlightBytes) {
            this.maxInFlightBytes = maxInFlightBytes;
        }

        public double getPauseAbove() {
            return this.pauseAbove;
        }

        public void setPauseAbove(double pauseAbove) {
            this.pauseAbove = pauseAbove;
        }

        public double getResumeBelow() {
            return this.resumeBelow;
        }

        public void setResumeBelow(double resumeBelow) {
            this.resumeBelow = resumeBelow;
        }

        public Duration getMinPause() {
            return this.minPause;
        }

        public void setMinPause(Duration minPause) {
            this.minPause = minPause;
        }
    }

    /**
     * Engine metrics. Whether they are recorded at all is Boot's own switch
     * ({@code management.metrics.enable.etl=false}).
     */
    public static class Metrics {

        /**
         * Tags added to every engine meter (names starting with "etl."), e.g. "env: prod".
         */
        private Map<String, String> tags = new LinkedHashMap<>();

        public Map<String, String> getTags() {
            return this.tags;
        }

        public void setTags(Map<String, String> tags) {
            this.tags = tags;
        }
    }
}
