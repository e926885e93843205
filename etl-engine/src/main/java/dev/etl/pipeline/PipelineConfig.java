package dev.etl.pipeline;

import dev.etl.error.ErrorClass;
import dev.etl.error.ErrorPolicy;
import dev.etl.error.SkipBudget;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Engine settings of one pipeline (the Spring layer fills it from {@code etl.*}). Immutable; build
 * with {@link #builder(String)}, change a copy with {@link #toBuilder()}. The builder's
 * {@link Builder#build()} checks every setting.
 */
public final class PipelineConfig {
    // The defaults: the one home of every engine setting's default value (the Spring properties are
    // initialised from these constants, and the configuration reference reads them from there).

    /** Default lane threads: 1. */
    public static final int DEFAULT_LANES = 1;

    /** Default io threads per sink: 0, one per shard writer. */
    public static final int DEFAULT_IO_THREADS = 0;

    /** Default commit interval: 5 s. */
    public static final Duration DEFAULT_CHECKPOINT_INTERVAL = Duration.ofSeconds(5);

    /** Default drain timeout at revoke and shutdown: 25 s (under Kubernetes' 30 s grace period). */
    public static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofSeconds(25);

    /** The smallest default in-flight byte budget: 32 MiB (heaps under 128 MiB). */
    public static final long MIN_DEFAULT_MAX_IN_FLIGHT_BYTES = 32L << 20;

    /** The largest default in-flight byte budget: 1 GiB (heaps of 4 GiB and more). */
    public static final long MAX_DEFAULT_MAX_IN_FLIGHT_BYTES = 1L << 30;

    /**
     * The default in-flight byte budget for a JVM whose heap may grow to {@code maxHeapBytes}: a quarter of
     * it, between {@link #MIN_DEFAULT_MAX_IN_FLIGHT_BYTES} and {@link #MAX_DEFAULT_MAX_IN_FLIGHT_BYTES}
     * (256 MiB for a 1 GiB heap, 512 MiB for 2 GiB). A quarter because the encoded data takes up to about
     * two and a half budgets with its batch buffers, idle chunks and open blocks (docs/concepts/backpressure.md),
     * which leaves the rest of the heap to the consumers, the operators and the collector; and because the
     * budget decides how large a backlog's deterministic blocks grow (the lanes' open blocks may hold half
     * of it), which is what the servers' CPU per row falls with.
     */
    public static long defaultMaxInFlightBytes(long maxHeapBytes) {
        return Math.max(MIN_DEFAULT_MAX_IN_FLIGHT_BYTES, Math.min(MAX_DEFAULT_MAX_IN_FLIGHT_BYTES, maxHeapBytes / 4));
    }

    /** {@link #defaultMaxInFlightBytes(long)} of this JVM ({@link Runtime#maxMemory()}). */
    public static long defaultMaxInFlightBytes() {
        return defaultMaxInFlightBytes(Runtime.getRuntime().maxMemory());
    }

    /** Default utilisation at which lanes pause: 0.9. */
    public static final double DEFAULT_PAUSE_ABOVE = 0.9;

    /** Default utilisation below which lanes resume: 0.5. */
    public static final double DEFAULT_RESUME_BELOW = 0.5;

    /** Default minimum pause: 50 ms. */
    public static final Duration DEFAULT_MIN_PAUSE = Duration.ofMillis(50);

    /** Default longest wait in one poll: 100 ms. */
    public static final Duration DEFAULT_POLL_TIMEOUT = Duration.ofMillis(100);

    /**
     * Default {@code stalled-fail-after}: 10 minutes. Long enough to ride out what retries are for (a
     * replica or shard restart, a ZooKeeper failover: tens of seconds to a couple of minutes, retried
     * with backoff capped at 10 s), and twice the documented "pipeline stuck" alert's 5 minutes so an
     * operator is warned first; short enough that a partition stalled behind a failed batch, which
     * only a re-assignment can clear, restarts (and replays) instead of stalling for good.
     */
    public static final Duration DEFAULT_STALLED_FAIL_AFTER = Duration.ofMinutes(10);

    /**
     * Outstanding (polled, not yet committable) batches of one partition at which its lane pauses that
     * partition until it is down to half: 4,096. It bounds the checkpoint ring (16 bytes a batch, so at
     * most 64 KiB a partition) and the replay distance behind a stalled head. It is far above what a
     * sink that keeps up leaves outstanding, because acks held by a buffering operator (a window) count
     * too: a window holds one batch per poll of each partition it covers, and a partition paused while
     * its window still waits for the record that closes it would only be released by
     * {@code stalled-fail-after}. At a few polls a second that is tens of minutes of window.
     */
    public static final int MAX_OUTSTANDING_BATCHES_PER_PARTITION = 4096;

    /**
     * The checked settings: a record for its equals, hashCode and toString; its constructor, which only
     * {@link Builder#build()} calls, is the one place that checks them.
     */
    private record Values(
            String name,
            int lanes,
            int ioThreads,
            Duration checkpointInterval,
            Duration drainTimeout,
            Duration stalledFailAfter,
            long maxInFlightBytes,
            double pauseAbove,
            double resumeBelow,
            Duration minPause,
            Duration pollTimeout,
            Map<String, ErrorPolicy> stagePolicies,
            Map<ErrorClass, ErrorPolicy> classPolicies,
            SkipBudget skipBudget) {
        Values {
            Objects.requireNonNull(name, "name");
            if (name.isBlank()) {
                throw new IllegalArgumentException("pipeline name must not be blank");
            }
            require(lanes > 0, "threads (lanes) must be > 0, got " + lanes);
            require(ioThreads >= 0, "io-threads must be >= 0 (0 = one per shard writer), got " + ioThreads);
            requirePositive(checkpointInterval, "checkpoint interval");
            requirePositive(drainTimeout, "drain-timeout");
            require(
                    stalledFailAfter != null && !stalledFailAfter.isNegative(),
                    "stalled-fail-after must be >= 0 (0 disables), got " + stalledFailAfter);
            require(maxInFlightBytes > 0, "max-in-flight-bytes must be > 0, got " + maxInFlightBytes);
            require(pauseAbove > 0 && pauseAbove <= 1, "pause-above must be in (0, 1], got " + pauseAbove);
            require(
                    resumeBelow >= 0 && resumeBelow < pauseAbove,
                    "resume-below must be in [0, pause-above), got " + resumeBelow + " with pause-above " + pauseAbove);
            require(minPause != null && !minPause.isNegative(), "min-pause must be >= 0, got " + minPause);
            requirePositive(pollTimeout, "poll timeout");
            stagePolicies = Map.copyOf(stagePolicies);
            classPolicies = Map.copyOf(classPolicies);
            Objects.requireNonNull(skipBudget, "skipBudget");
        }
    }

    private final Values v;

    private PipelineConfig(Values v) {
        this.v = v;
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }

    private static void requirePositive(Duration d, String what) {
        require(d != null && !d.isNegative() && !d.isZero(), what + " must be > 0, got " + d);
    }

    /** A builder named {@code name} with the documented defaults. */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** A builder holding this configuration's settings, to build a changed copy. */
    public Builder toBuilder() {
        return new Builder(v.name())
                .lanes(v.lanes())
                .ioThreads(v.ioThreads())
                .checkpointInterval(v.checkpointInterval())
                .drainTimeout(v.drainTimeout())
                .stalledFailAfter(v.stalledFailAfter())
                .maxInFlightBytes(v.maxInFlightBytes())
                .pauseAbove(v.pauseAbove())
                .resumeBelow(v.resumeBelow())
                .minPause(v.minPause())
                .pollTimeout(v.pollTimeout())
                .stagePolicies(v.stagePolicies())
                .classPolicies(v.classPolicies())
                .skipBudget(v.skipBudget());
    }

    /** Pipeline name: thread names, the {@code pipeline} metric tag, logs. */
    public String name() {
        return v.name();
    }

    /** Lane threads, each with its own source consumer and chain. */
    public int lanes() {
        return v.lanes();
    }

    /**
     * Io threads per sink running the shard writers; 0 (the default) = one per writer
     * ({@link dev.etl.sink.SinkDefinition#writersPerShard()} per shard), so a slow shard's blocking writes never
     * delay another's and a shard's writers write at the same time.
     */
    public int ioThreads() {
        return v.ioThreads();
    }

    /** How often advanced watermarks are committed (asynchronously). */
    public Duration checkpointInterval() {
        return v.checkpointInterval();
    }

    /** Bound on draining at revoke and at shutdown. */
    public Duration drainTimeout() {
        return v.drainTimeout();
    }

    /**
     * Fail the pipeline when a partition's watermark has not advanced past outstanding data for this long
     * (default {@link #DEFAULT_STALLED_FAIL_AFTER}); {@link Duration#ZERO} disables it.
     */
    public Duration stalledFailAfter() {
        return v.stalledFailAfter();
    }

    /** Global budget of encoded bytes handed to sinks and not yet written. */
    public long maxInFlightBytes() {
        return v.maxInFlightBytes();
    }

    /** Budget utilisation (0..1] at which lanes pause their partitions. */
    public double pauseAbove() {
        return v.pauseAbove();
    }

    /** Utilisation below which paused lanes resume (below {@link #pauseAbove()}). */
    public double resumeBelow() {
        return v.resumeBelow();
    }

    /** A pause lasts at least this long (hysteresis against flapping). */
    public Duration minPause() {
        return v.minPause();
    }

    /** Longest a lane waits in one poll. */
    public Duration pollTimeout() {
        return v.pollTimeout();
    }

    /** Error policy overrides by stage name (win over class overrides); unmodifiable. */
    public Map<String, ErrorPolicy> stagePolicies() {
        return v.stagePolicies();
    }

    /** Error policy overrides by error class; unmodifiable. */
    public Map<ErrorClass, ErrorPolicy> classPolicies() {
        return v.classPolicies();
    }

    /**
     * Share of records a lane may skip or dead-letter per window and error class before the pipeline
     * fails ({@link SkipBudget#DEFAULT}).
     */
    public SkipBudget skipBudget() {
        return v.skipBudget();
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof PipelineConfig c && v.equals(c.v);
    }

    @Override
    public int hashCode() {
        return v.hashCode();
    }

    /** {@code PipelineConfig[name=..., lanes=..., ...]}: every setting. */
    @Override
    public String toString() {
        return "PipelineConfig" + v.toString().substring("Values".length());
    }

    /** Builder with the documented defaults; {@link #build()} checks the settings. */
    public static final class Builder {
        private final String name;
        private int lanes = DEFAULT_LANES;
        private int ioThreads = DEFAULT_IO_THREADS;
        private Duration checkpointInterval = DEFAULT_CHECKPOINT_INTERVAL;
        private Duration drainTimeout = DEFAULT_DRAIN_TIMEOUT;
        private Duration stalledFailAfter = DEFAULT_STALLED_FAIL_AFTER;
        private long maxInFlightBytes = defaultMaxInFlightBytes();
        private double pauseAbove = DEFAULT_PAUSE_ABOVE;
        private double resumeBelow = DEFAULT_RESUME_BELOW;
        private Duration minPause = DEFAULT_MIN_PAUSE;
        private Duration pollTimeout = DEFAULT_POLL_TIMEOUT;
        private Map<String, ErrorPolicy> stagePolicies = Map.of();
        private Map<ErrorClass, ErrorPolicy> classPolicies = Map.of();
        private SkipBudget skipBudget = SkipBudget.DEFAULT;

        private Builder(String name) {
            this.name = name;
        }

        public Builder lanes(int lanes) {
            this.lanes = lanes;
            return this;
        }

        public Builder ioThreads(int ioThreads) {
            this.ioThreads = ioThreads;
            return this;
        }

        public Builder checkpointInterval(Duration checkpointInterval) {
            this.checkpointInterval = checkpointInterval;
            return this;
        }

        public Builder drainTimeout(Duration drainTimeout) {
            this.drainTimeout = drainTimeout;
            return this;
        }

        public Builder stalledFailAfter(Duration stalledFailAfter) {
            this.stalledFailAfter = stalledFailAfter;
            return this;
        }

        public Builder maxInFlightBytes(long maxInFlightBytes) {
            this.maxInFlightBytes = maxInFlightBytes;
            return this;
        }

        public Builder pauseAbove(double pauseAbove) {
            this.pauseAbove = pauseAbove;
            return this;
        }

        public Builder resumeBelow(double resumeBelow) {
            this.resumeBelow = resumeBelow;
            return this;
        }

        public Builder minPause(Duration minPause) {
            this.minPause = minPause;
            return this;
        }

        public Builder pollTimeout(Duration pollTimeout) {
            this.pollTimeout = pollTimeout;
            return this;
        }

        public Builder stagePolicies(Map<String, ErrorPolicy> stagePolicies) {
            this.stagePolicies = stagePolicies;
            return this;
        }

        public Builder classPolicies(Map<ErrorClass, ErrorPolicy> classPolicies) {
            this.classPolicies = classPolicies;
            return this;
        }

        /** The skip budget ({@link SkipBudget#DEFAULT}; {@link SkipBudget#DISABLED} to turn it off). */
        public Builder skipBudget(SkipBudget skipBudget) {
            this.skipBudget = skipBudget;
            return this;
        }

        /**
         * The configuration.
         *
         * @throws IllegalArgumentException when a setting is out of range (or missing)
         */
        public PipelineConfig build() {
            return new PipelineConfig(new Values(
                    name,
                    lanes,
                    ioThreads,
                    checkpointInterval,
                    drainTimeout,
                    stalledFailAfter,
                    maxInFlightBytes,
                    pauseAbove,
                    resumeBelow,
                    minPause,
                    pollTimeout,
                    stagePolicies,
                    classPolicies,
                    skipBudget));
        }
    }
}
