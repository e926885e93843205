package dev.etl.internal.backpressure;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The pipeline-wide budget of bytes handed to sinks and not yet written (or abandoned).
 *
 * <p>Lanes {@link #tryAcquire} a chunk's buffer capacity before handing it to a shard queue (a queued
 * chunk holds its whole buffer) and never wait: a refusal makes the lane keep the chunk and pause its
 * partitions. Shard workers {@link #release} the part beyond the encoded bytes when they merge the
 * chunk into a batch, and the encoded bytes once the rows are durably written, failed, or abandoned. A single chunk is admitted when
 * nothing is in flight even if it is larger than the budget, so an oversized chunk cannot deadlock
 * the pipeline.
 *
 * <p>Thread-safe and lock-free.
 */
public final class InFlightBudget {
    private final long maxBytes;
    private final AtomicLong inFlight = new AtomicLong();

    public InFlightBudget(long maxBytes) {
        if (maxBytes <= 0) {
            throw new IllegalArgumentException("max-in-flight-bytes must be > 0, got " + maxBytes);
        }
        this.maxBytes = maxBytes;
    }

    /** Takes {@code bytes} from the budget if they fit (or nothing is in flight); never blocks. */
    public boolean tryAcquire(long bytes) {
        while (true) {
            long current = inFlight.get();
            long next = current + bytes;
            if (current > 0 && next > maxBytes) {
                return false;
            }
            if (inFlight.compareAndSet(current, next)) {
                return true;
            }
        }
    }

    /** Returns {@code bytes} to the budget. */
    public void release(long bytes) {
        long after = inFlight.addAndGet(-bytes);
        if (after < 0) {
            throw new IllegalStateException("in-flight budget released below zero: " + after);
        }
    }

    /** Bytes currently in flight. */
    public long inFlightBytes() {
        return inFlight.get();
    }

    public long maxBytes() {
        return maxBytes;
    }

    /** In-flight bytes as a fraction of the budget (may exceed 1 by one oversized chunk). */
    public double utilization() {
        return (double) inFlight.get() / maxBytes;
    }
}
