package dev.etl.s3;

import dev.etl.kafka.KafkaSourceConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Settings of an {@link S3BackfillSource}. Built with {@link #builder()}; every setting but the work
 * topic's consumer settings, the object store and the bucket (the {@linkplain BackfillScope scope}: the
 * plan's bucket and prefix or manifest) has a default.
 */
public final class S3BackfillConfig {
    /** What happens to the rest of a work item whose data cannot be read past some point. */
    public enum CorruptPolicy {
        /** The pipeline fails, naming the item and the position; the item replays after a restart. */
        FAIL,
        /**
         * The rest of the item is given up: counted ({@code etl_backfill_items_total{outcome="corrupt"}}), logged
         * with the item and position, and the item commits. Bounded by {@code max-corrupt-ratio}.
         */
        SKIP
    }

    private final KafkaSourceConfig workTopic;
    private final ObjectStore store;
    private final BackfillScope scope;
    private final String topic;
    private final int readAheadSegments;
    private final int segmentBytes;
    private final int maxBatchRows;
    private final int prefetchItems;
    private final int readAttempts;
    private final Duration readBackoff;
    private final Duration readBackoffMax;
    private final CorruptPolicy onCorrupt;
    private final double maxCorruptRatio;
    private final int minItemsForRatio;
    private final Duration progressInterval;
    private final MeterRegistry meterRegistry;
    private final String pipeline;

    private S3BackfillConfig(Builder b) {
        this.workTopic = Objects.requireNonNull(b.workTopic, "workTopic (the work topic's consumer settings)");
        this.store = Objects.requireNonNull(b.store, "store");
        if (b.bucket == null) {
            throw new IllegalArgumentException("the backfill's bucket is required: work items of other buckets, "
                    + "or outside its prefix or manifest, are refused");
        }
        this.scope = b.keys.isEmpty() ? BackfillScope.prefix(b.bucket, b.prefix) : BackfillScope.keys(b.bucket, b.keys);
        if (workTopic.topics().size() != 1) {
            throw new IllegalArgumentException(
                    "the backfill's consumer settings must subscribe to exactly one work topic, not "
                            + workTopic.subscription());
        }
        this.topic = b.topic != null ? b.topic : workTopic.topics().get(0);
        this.readAheadSegments = positive("read-ahead-segments", b.readAheadSegments);
        this.segmentBytes = positive("segment-bytes", b.segmentBytes);
        this.maxBatchRows = positive("max-batch-rows", b.maxBatchRows);
        this.prefetchItems = positive("prefetch-items", b.prefetchItems);
        this.readAttempts = positive("read-attempts", b.readAttempts);
        this.readBackoff = b.readBackoff;
        this.readBackoffMax = b.readBackoffMax;
        this.onCorrupt = Objects.requireNonNull(b.onCorrupt, "onCorrupt");
        if (!(b.maxCorruptRatio >= 0 && b.maxCorruptRatio <= 1)) {
            throw new IllegalArgumentException("max-corrupt-ratio must be in [0, 1], not " + b.maxCorruptRatio);
        }
        this.maxCorruptRatio = b.maxCorruptRatio;
        this.minItemsForRatio = positive("min-items-for-ratio", b.minItemsForRatio);
        this.progressInterval = b.progressInterval;
        this.meterRegistry = b.meterRegistry != null ? b.meterRegistry : new SimpleMeterRegistry();
        this.pipeline = b.pipeline != null ? b.pipeline : workTopic.pipeline();
    }

    private static int positive(String name, int value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive, not " + value);
        }
        return value;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The work topic's consumer settings (one topic; its group is the pipeline's backfill group). */
    public KafkaSourceConfig workTopic() {
        return workTopic;
    }

    public String workTopicName() {
        return workTopic.topics().get(0);
    }

    public ObjectStore store() {
        return store;
    }

    /** The objects the backfill may read; a work item outside it is refused (as corrupt: {@link #onCorrupt()}). */
    public BackfillScope scope() {
        return scope;
    }

    /** The topic name the backfill's partitions report, which routes its rows to a chain. */
    public String topic() {
        return topic;
    }

    public int readAheadSegments() {
        return readAheadSegments;
    }

    public int segmentBytes() {
        return segmentBytes;
    }

    public int maxBatchRows() {
        return maxBatchRows;
    }

    public int prefetchItems() {
        return prefetchItems;
    }

    public int readAttempts() {
        return readAttempts;
    }

    public Duration readBackoff() {
        return readBackoff;
    }

    public Duration readBackoffMax() {
        return readBackoffMax;
    }

    public CorruptPolicy onCorrupt() {
        return onCorrupt;
    }

    public double maxCorruptRatio() {
        return maxCorruptRatio;
    }

    public int minItemsForRatio() {
        return minItemsForRatio;
    }

    public Duration progressInterval() {
        return progressInterval;
    }

    public MeterRegistry meterRegistry() {
        return meterRegistry;
    }

    public String pipeline() {
        return pipeline;
    }

    @Override
    public String toString() {
        return "S3BackfillConfig{workTopic=" + workTopicName() + ", group=" + workTopic.groupId() + ", store="
                + store.describe() + ", scope=" + scope + ", topic=" + topic + ", readAhead=" + readAheadSegments + "x"
                + segmentBytes
                + "B, maxBatchRows=" + maxBatchRows + ", onCorrupt=" + onCorrupt + "}";
    }

    /** Builder with the documented defaults. */
    public static final class Builder {
        private KafkaSourceConfig workTopic;
        private ObjectStore store;
        private String bucket;
        private String prefix;
        private final List<String> keys = new ArrayList<>();
        private String topic;
        private int readAheadSegments = 4;
        private int segmentBytes = 1 << 20;
        private int maxBatchRows = 5000;
        private int prefetchItems = 2;
        private int readAttempts = 5;
        private Duration readBackoff = Duration.ofMillis(200);
        private Duration readBackoffMax = Duration.ofSeconds(10);
        private CorruptPolicy onCorrupt = CorruptPolicy.FAIL;
        private double maxCorruptRatio = 0.1;
        private int minItemsForRatio = 10;
        private Duration progressInterval = Duration.ofSeconds(10);
        private MeterRegistry meterRegistry;
        private String pipeline;

        private Builder() {}

        /** The work topic's consumer settings: bootstrap servers, group, security; exactly one topic. */
        public Builder workTopic(KafkaSourceConfig workTopic) {
            this.workTopic = workTopic;
            return this;
        }

        public Builder store(ObjectStore store) {
            this.store = store;
            return this;
        }

        /**
         * The bucket the plan listed (required): a work item of another bucket is refused, never read.
         */
        public Builder bucket(String bucket) {
            this.bucket = bucket;
            return this;
        }

        /** The prefix the plan listed (default: the whole bucket): a work item of a key outside it is refused. */
        public Builder prefix(@Nullable String prefix) {
            this.prefix = prefix;
            return this;
        }

        /** The plan's manifest, instead of a prefix: a work item of another key is refused. */
        public Builder keys(List<String> keys) {
            this.keys.addAll(keys);
            return this;
        }

        /** The topic name its partitions report (routes rows to the chain of that topic); default the work topic. */
        public Builder topic(@Nullable String topic) {
            this.topic = topic;
            return this;
        }

        /** Segments of read-ahead per partition being read (default 4). */
        public Builder readAheadSegments(int segments) {
            this.readAheadSegments = segments;
            return this;
        }

        /** Bytes per read-ahead segment (default 1 MiB). */
        public Builder segmentBytes(int bytes) {
            this.segmentBytes = bytes;
            return this;
        }

        /** Rows per batch handed to the chain, at most (default 5000). */
        public Builder maxBatchRows(int rows) {
            this.maxBatchRows = rows;
            return this;
        }

        /** Work items fetched ahead per partition (default 2): the next item's read starts while one is in the chain. */
        public Builder prefetchItems(int items) {
            this.prefetchItems = items;
            return this;
        }

        /** Attempts per item on storage failures before the pipeline fails (default 5). */
        public Builder readAttempts(int attempts) {
            this.readAttempts = attempts;
            return this;
        }

        /** First retry delay, doubling up to {@code max} (defaults 200 ms, 10 s). */
        public Builder readBackoff(Duration initial, Duration max) {
            this.readBackoff = Objects.requireNonNull(initial, "initial");
            this.readBackoffMax = Objects.requireNonNull(max, "max");
            return this;
        }

        public Builder onCorrupt(CorruptPolicy policy) {
            this.onCorrupt = policy;
            return this;
        }

        /**
         * Under {@link CorruptPolicy#SKIP}: the pipeline fails when more than this share of the items
         * finished on this instance were corrupt, once at least {@code minItems} finished (defaults 0.1, 10).
         */
        public Builder maxCorruptRatio(double ratio, int minItems) {
            this.maxCorruptRatio = ratio;
            this.minItemsForRatio = minItems;
            return this;
        }

        /** How often progress is sampled, logged and the end of the run checked (default 10 s). */
        public Builder progressInterval(Duration interval) {
            this.progressInterval = Objects.requireNonNull(interval, "interval");
            return this;
        }

        public Builder meterRegistry(@Nullable MeterRegistry registry) {
            this.meterRegistry = registry;
            return this;
        }

        /** The pipeline name for metrics and logs; default the work topic settings' pipeline. */
        public Builder pipeline(@Nullable String pipeline) {
            this.pipeline = pipeline;
            return this;
        }

        public S3BackfillConfig build() {
            return new S3BackfillConfig(this);
        }
    }
}
