package dev.etl.sink;

import dev.etl.error.ErrorPolicy;
import java.util.Objects;
import java.util.function.IntFunction;

/**
 * Everything the engine needs to run one sink: its name, its shards and a writer per shard, the row
 * encoder its rows are written with, and how to hand off, batch and retry. A pipeline has one or more
 * sinks; chains address them by name.
 *
 * <p><b>One encoder declaration.</b> When a sink has an {@link #encoder()} (a ClickHouse sink's is the
 * one its startup validation checked against the table), a chain ends in it with
 * {@code .sink(router)} or {@code .sink(name, router)} and writes exactly what was validated; a chain
 * that passes a different encoder for such a sink fails when it is built. Sinks without one (custom
 * sinks) take the encoder from the chain.
 *
 * <p>Build one with {@link #builder(String, int, IntFunction)} (default chunks, batching, retries, a
 * {@value #DEFAULT_QUEUE_CAPACITY}-chunk queue per shard, FAIL on permanent errors, batches merged across
 * partitions); change a copy with {@link #toBuilder()}. The builder's {@link Builder#build()} checks
 * every setting.
 */
public final class SinkDefinition {

    /** Default chunks each shard queue holds. */
    public static final int DEFAULT_QUEUE_CAPACITY = 64;

    private final String name;
    private final int shardCount;
    private final IntFunction<ShardWriter> writers;
    private final RowEncoder<?> encoder;
    private final ChunkConfig chunks;
    private final BatchConfig batch;
    private final RetryConfig retry;
    private final int queueCapacity;
    private final ErrorPolicy permanentFailure;
    private final boolean deterministicBlocks;

    /** The build step: checks the builder's settings and copies them. */
    private SinkDefinition(Builder b) {
        Objects.requireNonNull(b.name, "name");
        Objects.requireNonNull(b.writers, "writers");
        Objects.requireNonNull(b.chunks, "chunks");
        Objects.requireNonNull(b.batch, "batch");
        Objects.requireNonNull(b.retry, "retry");
        Objects.requireNonNull(b.permanentFailure, "permanentFailure");
        if (b.permanentFailure == ErrorPolicy.DEAD_LETTER) {
            throw new IllegalArgumentException("sink '" + b.name + "' permanent-failure policy must be FAIL or SKIP: a "
                    + "failed batch is not a record to dead-letter");
        }
        if (b.shardCount <= 0) {
            throw new IllegalArgumentException("sink '" + b.name + "' needs at least one shard, got " + b.shardCount);
        }
        if (b.queueCapacity < 2 || Integer.bitCount(b.queueCapacity) != 1) {
            throw new IllegalArgumentException(
                    "sink '" + b.name + "' queue capacity must be a power of two >= 2, got " + b.queueCapacity);
        }
        this.name = b.name;
        this.shardCount = b.shardCount;
        this.writers = b.writers;
        this.encoder = b.encoder;
        this.chunks = b.chunks;
        this.batch = b.batch;
        this.retry = b.retry;
        this.queueCapacity = b.queueCapacity;
        this.permanentFailure = b.permanentFailure;
        this.deterministicBlocks = b.deterministicBlocks;
    }

    /**
     * A builder of the sink {@code name} over {@code shardCount} shards whose writers {@code writers}
     * creates, without its own encoder, with the defaults.
     */
    public static Builder builder(String name, int shardCount, IntFunction<ShardWriter> writers) {
        return new Builder(name, shardCount, writers);
    }

    /** A builder holding this sink's settings, to build a changed copy. */
    public Builder toBuilder() {
        return new Builder(name, shardCount, writers)
                .encoder(encoder)
                .chunks(chunks)
                .batch(batch)
                .retry(retry)
                .queueCapacity(queueCapacity)
                .permanentFailure(permanentFailure)
                .deterministicBlocks(deterministicBlocks);
    }

    /** Sink name, used in metrics ({@code sink} label) and errors. */
    public String name() {
        return name;
    }

    /** Number of shards. */
    public int shardCount() {
        return shardCount;
    }

    /** Creates the writer of a shard (called once per shard at start). */
    public IntFunction<ShardWriter> writers() {
        return writers;
    }

    /** The sink's row encoder, or null when chains bring their own. */
    public RowEncoder<?> encoder() {
        return encoder;
    }

    /** When lanes hand a shard's open chunk off. */
    public ChunkConfig chunks() {
        return chunks;
    }

    /** Sealing thresholds. */
    public BatchConfig batch() {
        return batch;
    }

    /** Transient-failure retries. */
    public RetryConfig retry() {
        return retry;
    }

    /** Chunks each shard queue holds before lanes must pause (power of two). */
    public int queueCapacity() {
        return queueCapacity;
    }

    /**
     * What a permanent write failure does: {@code FAIL} stops the pipeline; {@code SKIP} fails the batch's
     * acks (its partitions stall, nothing is lost) and keeps the pipeline running.
     */
    public ErrorPolicy permanentFailure() {
        return permanentFailure;
    }

    /**
     * Whether rows are written in deterministic blocks: per source partition and offset range, one insert
     * each, sealed at boundaries recorded in the commit metadata before the insert, with a token named after
     * the range, so a replay after a crash rebuilds the same inserts and a deduplicating server drops them
     * (see docs/concepts/delivery.md). Batches then follow {@link #batch()}'s limits per partition and
     * shard. False: rows of all partitions are merged into batches by size and linger.
     */
    public boolean deterministicBlocks() {
        return deterministicBlocks;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SinkDefinition d
                && name.equals(d.name)
                && shardCount == d.shardCount
                && writers.equals(d.writers)
                && Objects.equals(encoder, d.encoder)
                && chunks.equals(d.chunks)
                && batch.equals(d.batch)
                && retry.equals(d.retry)
                && queueCapacity == d.queueCapacity
                && permanentFailure == d.permanentFailure
                && deterministicBlocks == d.deterministicBlocks;
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                name,
                shardCount,
                writers,
                encoder,
                chunks,
                batch,
                retry,
                queueCapacity,
                permanentFailure,
                deterministicBlocks);
    }

    @Override
    public String toString() {
        return "SinkDefinition[name=" + name + ", shardCount=" + shardCount + ", writers=" + writers + ", encoder="
                + encoder + ", chunks=" + chunks + ", batch=" + batch + ", retry=" + retry + ", queueCapacity="
                + queueCapacity + ", permanentFailure=" + permanentFailure + ", deterministicBlocks="
                + deterministicBlocks + "]";
    }

    /**
     * Builder of a {@link SinkDefinition}; starts from the defaults, {@link #build()} checks the settings.
     */
    public static final class Builder {
        private final String name;
        private final int shardCount;
        private final IntFunction<ShardWriter> writers;
        private RowEncoder<?> encoder;
        private ChunkConfig chunks = ChunkConfig.DEFAULTS;
        private BatchConfig batch = BatchConfig.DEFAULTS;
        private RetryConfig retry = RetryConfig.DEFAULTS;
        private int queueCapacity = DEFAULT_QUEUE_CAPACITY;
        private ErrorPolicy permanentFailure = ErrorPolicy.FAIL;
        private boolean deterministicBlocks;

        private Builder(String name, int shardCount, IntFunction<ShardWriter> writers) {
            this.name = name;
            this.shardCount = shardCount;
            this.writers = writers;
        }

        /**
         * The sink's row encoder (what chains ending in it then use), or null (the default) when chains
         * bring their own.
         */
        public Builder encoder(RowEncoder<?> encoder) {
            this.encoder = encoder;
            return this;
        }

        /** When lanes hand a shard's open chunk off ({@link ChunkConfig#DEFAULTS} by default). */
        public Builder chunks(ChunkConfig chunks) {
            this.chunks = chunks;
            return this;
        }

        /** Sealing thresholds ({@link BatchConfig#DEFAULTS} by default). */
        public Builder batch(BatchConfig batch) {
            this.batch = batch;
            return this;
        }

        /** Transient-failure retries ({@link RetryConfig#DEFAULTS} by default). */
        public Builder retry(RetryConfig retry) {
            this.retry = retry;
            return this;
        }

        /** Chunks each shard queue holds, a power of two ({@value SinkDefinition#DEFAULT_QUEUE_CAPACITY} by default). */
        public Builder queueCapacity(int queueCapacity) {
            this.queueCapacity = queueCapacity;
            return this;
        }

        /** What a permanent write failure does: {@code FAIL} (the default) or {@code SKIP}. */
        public Builder permanentFailure(ErrorPolicy permanentFailure) {
            this.permanentFailure = permanentFailure;
            return this;
        }

        /** Whether rows are written in deterministic blocks (see {@link SinkDefinition#deterministicBlocks()}); off by default. */
        public Builder deterministicBlocks(boolean deterministicBlocks) {
            this.deterministicBlocks = deterministicBlocks;
            return this;
        }

        /**
         * The sink definition.
         *
         * @throws IllegalArgumentException when a setting is out of range (no shard, a queue capacity that
         *                                  is no power of two, a {@code DEAD_LETTER} permanent-failure policy)
         * @throws NullPointerException     when name, writers or a setting is null
         */
        public SinkDefinition build() {
            return new SinkDefinition(this);
        }
    }
}
