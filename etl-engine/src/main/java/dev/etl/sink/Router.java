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

    /**
     * What decides which shard a value goes to, as a stable string: part of the deduplication token of
     * every deterministic block this router fills (with the sink's shard count). A replay after a change of
     * routing then builds blocks with new tokens, which a server cannot mistake for the blocks written
     * before the change: rows that moved to another shard are written there (possibly twice), never
     * dropped as a duplicate of a block that did not hold them.
     *
     * <p>Must be the same in every process and run for the same routing (never an identity hash or a
     * lambda's class name), and must change whenever the same value and key could go to another shard.
     * The built-in routers describe themselves ({@link KeyHashRouter}: what it hashes and the weights).
     * The default is the class name for a named class and {@code "custom"} for a lambda: a router of
     * your own whose placement can change (a lookup table, a parameter) should override this and include
     * what changes; otherwise a replay across such a change can lose rows on a server with
     * {@code insert_deduplication_token} (see the delivery guide, "Changing the topology").
     */
    default String topology() {
        Class<?> type = getClass();
        return type.isSynthetic() || type.isAnonymousClass() || type.getName().contains("$$Lambda")
                ? "custom"
                : type.getName();
    }
}
