package dev.etl.sink;

import dev.etl.error.ErrorPolicy;
import java.util.Objects;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

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

    /** The most writers a shard can have ({@link #writersPerShard()}). */
    public static final int MAX_WRITERS_PER_SHARD = 64;

    /**
     * The checked settings: a record for its equals, hashCode and toString; its constructor, which only
     * {@link Builder#build()} calls, is the one place that checks them.
     */
    private record Values(
            String name,
            int shardCount,
            IntFunction<ShardWriter> writers,
            RowEncoder<?> encoder,
            ChunkConfig chunks,
            BatchConfig batch,
            RetryConfig retry,
            int queueCapacity,
            ErrorPolicy permanentFailure,
            boolean deterministicBlocks,
            int writersPerShard) {
        Values {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(writers, "writers");
            Objects.requireNonNull(chunks, "chunks");
            Objects.requireNonNull(batch, "batch");
            Objects.requireNonNull(retry, "retry");
            Objects.requireNonNull(permanentFailure, "permanentFailure");
            if (permanentFailure == ErrorPolicy.DEAD_LETTER) {
                throw new IllegalArgumentException("sink '" + name + "' permanent-failure policy must be FAIL or SKIP: "
                        + "a failed batch is not a record to dead-letter");
            }
            if (shardCount <= 0) {
                throw new IllegalArgumentException("sink '" + name + "' needs at least one shard, got " + shardCount);
            }
            if (queueCapacity < 2 || Integer.bitCount(queueCapacity) != 1) {
                throw new IllegalArgumentException(
                        "sink '" + name + "' queue capacity must be a power of two >= 2, got " + queueCapacity);
            }
            if (writersPerShard < 1 || writersPerShard > MAX_WRITERS_PER_SHARD) {
                throw new IllegalArgumentException("sink '" + name + "' writers per shard must be between 1 and "
                        + MAX_WRITERS_PER_SHARD + ", got " + writersPerShard);
            }
        }
    }

    private final Values v;

    private SinkDefinition(Values v) {
        this.v = v;
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
        return new Builder(v.name(), v.shardCount(), v.writers())
                .encoder(v.encoder())
                .chunks(v.chunks())
                .batch(v.batch())
                .retry(v.retry())
                .queueCapacity(v.queueCapacity())
                .permanentFailure(v.permanentFailure())
                .deterministicBlocks(v.deterministicBlocks())
                .writersPerShard(v.writersPerShard());
    }

    /** Sink name, used in metrics ({@code sink} label) and errors. */
    public String name() {
        return v.name();
    }

    /** Number of shards. */
    public int shardCount() {
        return v.shardCount();
    }

    /** Creates a writer of a shard (called {@link #writersPerShard()} times per shard at start). */
    public IntFunction<ShardWriter> writers() {
        return v.writers();
    }

    /** The sink's row encoder, or null when chains bring their own. */
    public @Nullable RowEncoder<?> encoder() {
        return v.encoder();
    }

    /** When lanes hand a shard's open chunk off. */
    public ChunkConfig chunks() {
        return v.chunks();
    }

    /** Sealing thresholds. */
    public BatchConfig batch() {
        return v.batch();
    }

    /** Transient-failure retries. */
    public RetryConfig retry() {
        return v.retry();
    }

    /** Chunks each shard queue holds before lanes must pause (power of two). */
    public int queueCapacity() {
        return v.queueCapacity();
    }

    /**
     * What a permanent write failure does: {@code FAIL} stops the pipeline; {@code SKIP} fails the batch's
     * acks (its partitions stall, nothing is lost) and keeps the pipeline running.
     */
    public ErrorPolicy permanentFailure() {
        return v.permanentFailure();
    }

    /**
     * Whether rows are written in deterministic blocks: per source partition and offset range, one insert
     * each, sealed at boundaries recorded in the commit metadata before the insert, with a token named after
     * the range, so a replay after a crash rebuilds the same inserts and a deduplicating server drops them
     * (see docs/concepts/delivery.md). Batches then follow {@link #batch()}'s limits per partition and
     * shard. False: rows of all partitions are merged into batches by size and linger.
     */
    public boolean deterministicBlocks() {
        return v.deterministicBlocks();
    }

    /**
     * How many writes a shard has in flight at most: each of its writers (created by {@link #writers()}, each
     * with its own queue and io thread) writes one batch at a time. A deterministic block goes to the writer
     * of its source partition (the same one for every block of the partition, so a partition's blocks reach
     * the shard in order), merged chunks to the writer of the lane that filled them. 1 (the default): one
     * write at a time per shard. More shortens the wait of a steady stream's blocks behind the other
     * partitions' blocks of the same shard (docs/deployment/tuning.md, Freshness).
     */
    public int writersPerShard() {
        return v.writersPerShard();
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof SinkDefinition d && v.equals(d.v);
    }

    @Override
    public int hashCode() {
        return v.hashCode();
    }

    /** {@code SinkDefinition[name=..., shardCount=..., ...]}: every setting. */
    @Override
    public String toString() {
        return "SinkDefinition" + v.toString().substring("Values".length());
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
        private int writersPerShard = 1;

        private Builder(String name, int shardCount, IntFunction<ShardWriter> writers) {
            this.name = name;
            this.shardCount = shardCount;
            this.writers = writers;
        }

        /**
         * The sink's row encoder (what chains ending in it then use), or null (the default) when chains
         * bring their own.
         */
        public Builder encoder(@Nullable RowEncoder<?> encoder) {
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
         * How many writes a shard has in flight at most (see {@link SinkDefinition#writersPerShard()}); 1 by
         * default.
         */
        public Builder writersPerShard(int writersPerShard) {
            this.writersPerShard = writersPerShard;
            return this;
        }

        /**
         * The sink definition.
         *
         * @throws IllegalArgumentException when a setting is out of range (no shard, a queue capacity that
         *                                  is no power of two, a {@code DEAD_LETTER} permanent-failure policy,
         *                                  writers per shard outside 1..{@value SinkDefinition#MAX_WRITERS_PER_SHARD})
         * @throws NullPointerException     when name, writers or a setting is null
         */
        public SinkDefinition build() {
            return new SinkDefinition(new Values(
                    name,
                    shardCount,
                    writers,
                    encoder,
                    chunks,
                    batch,
                    retry,
                    queueCapacity,
                    permanentFailure,
                    deterministicBlocks,
                    writersPerShard));
        }
    }
}
