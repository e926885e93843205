package dev.etl.sink;

import java.time.Duration;

/**
 * When a shard worker seals a batch: at {@code maxRows} rows or {@code maxBytes} bytes, whichever
 * comes first, or {@code linger} after the first row arrived. Small inserts are expensive in
 * ClickHouse (every insert is a part on disk), so the defaults are large.
 *
 * @param maxInFlightPerShard sealed batches a shard may be writing at once
 */
public record BatchConfig(int maxRows, long maxBytes, Duration linger, int maxInFlightPerShard) {
    public static final BatchConfig DEFAULTS = new BatchConfig(100_000, 32L << 20, Duration.ofSeconds(1), 1);

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
        if (maxInFlightPerShard <= 0) {
            throw new IllegalArgumentException("batch max-in-flight-per-shard must be > 0, got " + maxInFlightPerShard);
        }
    }
}
