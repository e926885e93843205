package dev.etl.sink;

import java.time.Duration;

/**
 * How shard workers retry transient write failures: exponential backoff from {@code initialBackoff}
 * by {@code multiplier} up to {@code maxBackoff}, each delay randomised by ±{@code jitter} (a
 * fraction in [0, 1]); at most {@code maxAttempts} attempts in all (0 = unbounded, until the drain
 * deadline). A batch out of attempts fails its acks: its partitions stall (and the pipeline fails
 * after {@code stalled-fail-after}, if set).
 */
public record RetryConfig(
        int maxAttempts, Duration initialBackoff, Duration maxBackoff, double multiplier, double jitter) {
    public static final RetryConfig DEFAULTS =
            new RetryConfig(0, Duration.ofMillis(100), Duration.ofSeconds(10), 2.0, 0.2);

    public RetryConfig {
        if (maxAttempts < 0) {
            throw new IllegalArgumentException("retry max-attempts must be >= 0 (0 = unbounded), got " + maxAttempts);
        }
        if (initialBackoff == null
                || initialBackoff.isNegative()
                || maxBackoff == null
                || maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException(
                    "retry backoff must satisfy 0 <= initial <= max, got " + initialBackoff + " and " + maxBackoff);
        }
        if (multiplier < 1.0) {
            throw new IllegalArgumentException("retry multiplier must be >= 1, got " + multiplier);
        }
        if (jitter < 0 || jitter > 1) {
            throw new IllegalArgumentException("retry jitter must be in [0, 1], got " + jitter);
        }
    }
}
