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
 * @param name             sink name, used in metrics ({@code sink} label) and errors
 * @param shardCount       number of shards
 * @param writers          creates the writer of a shard (called once per shard at start)
 * @param encoder          the sink's row encoder, or null when chains bring their own
 * @param chunks           when lanes hand a shard's open chunk off
 * @param batch            sealing thresholds
 * @param retry            transient-failure retries
 * @param queueCapacity    chunks each shard queue holds before lanes must pause (power of two)
 * @param permanentFailure what a permanent write failure does: {@code FAIL} stops the pipeline;
 *                         {@code SKIP} fails the batch's acks (its partitions stall, nothing is lost)
 *                         and keeps the pipeline running
 * @param deterministicBlocks whether rows are written in deterministic blocks: per source partition
 *                         and offset range, one insert each, sealed at boundaries recorded in the
 *                         commit metadata before the insert, with a token named after the range, so a
 *                         replay after a crash rebuilds the same inserts and a deduplicating server
 *                         drops them (see docs/concepts/delivery.md). Batches then follow
 *                         {@link #batch()}'s limits per partition and shard. False: rows of all
 *                         partitions are merged into batches by size and linger
 */
public record SinkDefinition(
        String name,
        int shardCount,
        IntFunction<ShardWriter> writers,
        RowEncoder<?> encoder,
        ChunkConfig chunks,
        BatchConfig batch,
        RetryConfig retry,
        int queueCapacity,
        ErrorPolicy permanentFailure,
        boolean deterministicBlocks) {

    /** Default chunks each shard queue holds. */
    public static final int DEFAULT_QUEUE_CAPACITY = 64;

    public SinkDefinition {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(writers, "writers");
        Objects.requireNonNull(chunks, "chunks");
        Objects.requireNonNull(batch, "batch");
        Objects.requireNonNull(retry, "retry");
        Objects.requireNonNull(permanentFailure, "permanentFailure");
        if (permanentFailure == ErrorPolicy.DEAD_LETTER) {
            throw new IllegalArgumentException("sink '" + name + "' permanent-failure policy must be FAIL or SKIP: a "
                    + "failed batch is not a record to dead-letter");
        }
        if (shardCount <= 0) {
            throw new IllegalArgumentException("sink '" + name + "' needs at least one shard, got " + shardCount);
        }
        if (queueCapacity < 2 || Integer.bitCount(queueCapacity) != 1) {
            throw new IllegalArgumentException(
                    "sink '" + name + "' queue capacity must be a power of two >= 2, got " + queueCapacity);
        }
    }

    /**
     * A sink without its own encoder, with default chunks, batching, retries, a
     * {@value #DEFAULT_QUEUE_CAPACITY}-chunk queue per shard, FAIL on permanent errors, and batches
     * merged across partitions (no deterministic blocks).
     */
    public static SinkDefinition of(String name, int shardCount, IntFunction<ShardWriter> writers) {
        return new SinkDefinition(
                name,
                shardCount,
                writers,
                null,
                ChunkConfig.DEFAULTS,
                BatchConfig.DEFAULTS,
                RetryConfig.DEFAULTS,
                DEFAULT_QUEUE_CAPACITY,
                ErrorPolicy.FAIL,
                false);
    }

    /** The same sink writing in deterministic blocks, or not (see {@link #deterministicBlocks()}). */
    public SinkDefinition withDeterministicBlocks(boolean deterministicBlocks) {
        return new SinkDefinition(
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

    /** The same sink writing its rows with {@code encoder} (what chains ending in it then use). */
    public SinkDefinition withEncoder(RowEncoder<?> encoder) {
        return new SinkDefinition(
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

    public SinkDefinition withChunks(ChunkConfig chunks) {
        return new SinkDefinition(
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

    public SinkDefinition withBatch(BatchConfig batch) {
        return new SinkDefinition(
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

    public SinkDefinition withRetry(RetryConfig retry) {
        return new SinkDefinition(
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

    public SinkDefinition withQueueCapacity(int queueCapacity) {
        return new SinkDefinition(
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

    public SinkDefinition withPermanentFailure(ErrorPolicy permanentFailure) {
        return new SinkDefinition(
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
}
