package dev.etl.sink;

import java.time.Duration;

/**
 * When a shard worker seals a batch: at {@code maxRows} rows or {@code maxBytes} bytes, whichever
 * comes first, or {@code linger} after the first row arrived. Small inserts are expensive in
 * ClickHouse (every insert is a part on disk), so the defaults are large: {@link #DEFAULTS} seals at
 * 1,000,000 rows or 32 MiB, or 1 s after the first row. The row limit stays under ClickHouse's
 * {@code max_insert_block_size} (1,048,576 by default), which would split a larger insert into several
 * blocks; the byte limit, not the row count, bounds the memory, so a block of narrow rows can be as
 * large as the servers like (a steady stream is sealed by the linger long before either).
 *
 * <p>A shard writes one sealed batch at a time while the next one fills; a slow shard therefore pushes
 * back on the lanes (through its bounded queue and the in-flight budget) instead of holding several
 * batches in memory.
 */
public record BatchConfig(int maxRows, long maxBytes, Duration linger) {
    /**
     * 1,000,000 rows, 32 MiB, 1 s: catching up, a partition's block then grows to the lane's share of the
     * in-flight budget or to the bytes instead of stopping at a row count (fewer, larger inserts, which
     * the servers write at less CPU per row: docs/deployment/tuning.md).
     */
    public static final BatchConfig DEFAULTS = new BatchConfig(1_000_000, 32L << 20, Duration.ofSeconds(1));

    public BatchConfig {
        if (maxRows <= 0) {
            throw new IllegalArgumentException("batch max-rows must be > 0, got " + maxRows);
        }
        if (maxBytes <= 0) {
            throw new IllegalArgumentException("batch max-bytes must be > 0, got " + maxBytes);
        }
        if (linger == null || linger.isNegative()) {
            throw new IllegalArgumentException("batch linger must be >= 0, got " + linger);
        }
    }
}
