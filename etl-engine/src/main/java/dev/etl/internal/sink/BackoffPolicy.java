package dev.etl.internal.sink;

import dev.etl.sink.RetryConfig;
import java.util.random.RandomGenerator;

/**
 * Delay before the next attempt of a batch whose write failed transiently, from a {@link RetryConfig}:
 * {@code min(maxBackoff, initialBackoff * multiplier^(failures - 1))}, then randomised by
 * ±{@code jitter} of itself (so a delay may exceed {@code maxBackoff} by up to {@code jitter}), never
 * negative. Jitter keeps the shards of a sink from retrying a recovering server in lock step.
 *
 * <p>Thread-safe if the random source is ({@link java.util.Random} is); called on io threads, only
 * after a failure.
 */
final class BackoffPolicy {
    private final int maxAttempts;
    private final double initialNs;
    private final double maxNs;
    private final double multiplier;
    private final double jitter;
    private final RandomGenerator random;

    BackoffPolicy(RetryConfig config, RandomGenerator random) {
        this.maxAttempts = config.maxAttempts();
        this.initialNs = config.initialBackoff().toNanos();
        this.maxNs = config.maxBackoff().toNanos();
        this.multiplier = config.multiplier();
        this.jitter = config.jitter();
        this.random = random;
    }

    /** Whether a batch that has failed {@code failedAttempts} times may be tried again. */
    boolean mayRetry(int failedAttempts) {
        return maxAttempts == 0 || failedAttempts < maxAttempts;
    }

    /** Delay in nanoseconds after the {@code failedAttempts}-th failure ({@code >= 1}). */
    long delayNs(int failedAttempts) {
        double base = initialNs * Math.pow(multiplier, Math.max(0, failedAttempts - 1));
        if (!(base <= maxNs)) { // also catches an overflow to infinity
            base = maxNs;
        }
        double factor = jitter == 0 ? 1.0 : 1.0 + jitter * (2.0 * random.nextDouble() - 1.0);
        return (long) Math.max(0.0, base * factor);
    }
}
