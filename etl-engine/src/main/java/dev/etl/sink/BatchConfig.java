package dev.etl.sink;

import java.time.Duration;

/**
 * When a shard worker seals a batch: at {@code maxRows} rows or {@code maxBytes} bytes, whichever
 * comes first, or {@code linger} after the first row arrived. Small inserts are expensive in
 * ClickHouse (every insert is a part on disk), so the defaults are large.
 *
 * <p>A shard writes one sealed batch at a time while the next one fills; a slow shard therefore pushes
 * back on the lanes (through its bounded queue and the in-flight budget) instead of holding several
 * batches in memory.
 */
public record BatchConfig(int maxRows, long maxBytes, Duration linger) {
    public static final BatchConfig DEFAULTS = new BatchConfig(100_000, 32L << 20, Duration.ofSeconds(1));

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
