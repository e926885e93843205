package dev.etl.sink;

import java.util.Objects;
import java.util.function.IntFunction;

import dev.etl.error.ErrorPolicy;

/**
 * Everything the engine needs to run one sink: its name, its shards and a writer per shard, and how
 * to batch and retry. A pipeline has one or more sinks; chains address them by name.
 *
 * @param name             sink name, used in metrics ({@code sink} label) and errors
 * @param shardCount       number of shards
 * @param writers          creates the writer of a shard (called once per shard at start)
 * @param batch            sealing thresholds
 * @param retry            transient-failure retries
 * @param queueCapacity    chunks each shard queue holds before lanes must pause (power of two)
 * @param permanentFailure what a permanent write failure does: {@code FAIL} stops the pipeline;
 *                         {@code SKIP} fails the batch's acks (its partitions stall, nothing is lost)
 *                         and keeps the pipeline running
 */
public record SinkDefinition(String name, int shardCount, IntFunction<ShardWriter> writers, BatchConfig batch,
        RetryConfig retry, int queueCapacity, ErrorPolicy permanentFailure) {

    public SinkDefinition {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(writers, "writers");
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

    /** A sink with default batching, retries, a 64-chunk queue per shard and FAIL on permanent errors. */
    public static SinkDefinition of(String name, int shardCount, IntFunction<ShardWriter> writers) {
        return new SinkDefinition(name, shardCount, writers, BatchConfig.DEFAULTS, RetryConfig.DEFAULTS, 64,
                ErrorPolicy.FAIL);
    }

    public SinkDefinition withBatch(BatchConfig batch) {
        return new SinkDefinition(name, shardCount, writers, batch, retry, queueCapacity, permanentFailure);
    }

    public SinkDefinition withRetry(RetryConfig retry) {
        return new SinkDefinition(name, shardCount, writers, batch, retry, queueCapacity, permanentFailure);
    }

    public SinkDefinition withQueueCapacity(int queueCapacity) {
        return new SinkDefinition(name, shardCount, writers, batch, retry, queueCapacity, permanentFailure);
    }

    public SinkDefinition withPermanentFailure(ErrorPolicy permanentFailure) {
        return new SinkDefinition(name, shardCount, writers, batch, retry, queueCapacity, permanentFailure);
    }
}
