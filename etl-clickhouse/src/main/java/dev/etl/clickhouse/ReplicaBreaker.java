package dev.etl.clickhouse;

import dev.etl.clickhouse.ClickHouseShardWriter.BreakerState;
import java.util.function.LongSupplier;

/**
 * The circuit breaker of one replica. {@code CLOSED}: requests flow; {@code threshold} consecutive
 * transient failures open it. {@code OPEN}: requests are refused for {@code openTimeNs}; the first
 * request after that becomes the single {@code HALF_OPEN} probe (every other request is refused while
 * it runs). The probe's success closes the breaker, its failure opens it again for another
 * {@code openTimeNs}. The caller that acquired must report <em>every</em> outcome — a thrown
 * {@code Error} included (as a failure) — or a half-open breaker would refuse every request forever.
 *
 * <p>A permanent error (the server answered, the batch is bad) is a sign of life: it resets the
 * failure count like a success.
 *
 * <p>Thread-safe (synchronized: called once per insert attempt, never per row).
 */
final class ReplicaBreaker {
    private final int threshold;
    private final long openTimeNs;
    private final LongSupplier nanoClock;

    private BreakerState state = BreakerState.CLOSED;
    private int consecutiveFailures;
    private long openedAtNs;
    private long opens;

    public ReplicaBreaker(int threshold, long openTimeNs, LongSupplier nanoClock) {
        if (threshold <= 0) {
            throw new IllegalArgumentException("breaker threshold must be > 0, got " + threshold);
        }
        this.threshold = threshold;
        this.openTimeNs = openTimeNs;
        this.nanoClock = nanoClock;
    }

    /**
     * Whether a request may go to this replica now; in {@code OPEN} past the open time, the caller
     * that gets {@code true} is the half-open probe and must report its outcome.
     */
    public synchronized boolean tryAcquire() {
        switch (state) {
            case CLOSED:
                return true;
            case OPEN:
                if (nanoClock.getAsLong() - openedAtNs >= openTimeNs) {
                    state = BreakerState.HALF_OPEN;
                    return true;
                }
                return false;
            default: // HALF_OPEN: the probe is in flight
                return false;
        }
    }

    /** The request succeeded (or the server answered with a permanent error). */
    public synchronized void onSuccess() {
        consecutiveFailures = 0;
        state = BreakerState.CLOSED;
    }

    /** The request failed transiently (connect, timeout, IO, server-side transient error). */
    public synchronized void onFailure() {
        consecutiveFailures++;
        if (state == BreakerState.HALF_OPEN || (state == BreakerState.CLOSED && consecutiveFailures >= threshold)) {
            state = BreakerState.OPEN;
            openedAtNs = nanoClock.getAsLong();
            opens++;
        }
    }

    public synchronized BreakerState state() {
        return state;
    }

    /** Whether the replica is not known to be down (its breaker is not open). */
    public synchronized boolean isAvailable() {
        return state != BreakerState.OPEN;
    }

    /**
     * Whether the replica is healthy: its breaker is closed. A half-open breaker is not: its probe
     * has not answered yet, and against a hung server (connections accepted, no answer) the probe
     * waits a whole socket timeout, usually much longer than the open time.
     */
    public synchronized boolean isClosed() {
        return state == BreakerState.CLOSED;
    }

    /** How many times the breaker has opened. */
    public synchronized long opens() {
        return opens;
    }

    public synchronized int consecutiveFailures() {
        return consecutiveFailures;
    }

    /** Nanoseconds until an open breaker admits its probe (0 when not open or already due). */
    public synchronized long remainingOpenNs() {
        if (state != BreakerState.OPEN) {
            return 0;
        }
        return Math.max(0, openTimeNs - (nanoClock.getAsLong() - openedAtNs));
    }
}
