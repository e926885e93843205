package dev.etl.autoconfigure.clickhouse;

import dev.etl.sink.RetryConfig;
import java.time.Duration;

/** Retries of transient write failures ({@code etl.sink.clickhouse.retry.*}): same batch, same dedup token, next replica. */
public class ClickHouseRetryProperties {

    /**
     * Attempts per batch in all; 0 retries until the drain deadline.
     */
    private int maxAttempts = RetryConfig.DEFAULTS.maxAttempts();

    /**
     * First backoff.
     */
    private Duration initialBackoff = RetryConfig.DEFAULTS.initialBackoff();

    /**
     * Longest backoff.
     */
    private Duration maxBackoff = RetryConfig.DEFAULTS.maxBackoff();

    /**
     * Backoff growth factor (at least 1).
     */
    private double multiplier = RetryConfig.DEFAULTS.multiplier();

    /**
     * Random spread of each backoff, as a fraction in [0, 1].
     */
    private double jitter = RetryConfig.DEFAULTS.jitter();

    public int getMaxAttempts() {
        return this.maxAttempts;
    }

    public void setMaxAttempts(int maxAttempts) {
        this.maxAttempts = maxAttempts;
    }

    public Duration getInitialBackoff() {
        return this.initialBackoff;
    }

    public void setInitialBackoff(Duration initialBackoff) {
        this.initialBackoff = initialBackoff;
    }

    public Duration getMaxBackoff() {
        return this.maxBackoff;
    }

    public void setMaxBackoff(Duration maxBackoff) {
        this.maxBackoff = maxBackoff;
    }

    public double getMultiplier() {
        return this.multiplier;
    }

    public void setMultiplier(double multiplier) {
        this.multiplier = multiplier;
    }

    public double getJitter() {
        return this.jitter;
    }

    public void setJitter(double jitter) {
        this.jitter = jitter;
    }
}
