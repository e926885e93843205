package dev.etl.sink;

import dev.etl.record.RecordMeta;

/**
 * Picks the shard a value is written to. Called on the lane thread once per row: no allocation,
 * no blocking, and deterministic (the same value and key must always go to the same shard, or
 * replacing-merge deduplication across replays breaks).
 *
 * @param <T> the value type arriving at the sink
 */
@FunctionalInterface
public interface Router<T> {
    /** Returns a shard index in {@code [0, shardCount)}. */
    int shard(T value, RecordMeta meta, int shardCount);
}
