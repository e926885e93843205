package dev.etl.error;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A permit gate for repeated failure logs: at most one message per {@code intervalNs}, counting the
 * ones it suppressed so the next emitted line can say how many were dropped.
 *
 * <p>Usage (the caller builds the message only when permitted, so a suppressed log costs one CAS):
 * <pre>{@code
 * long suppressed = failureLog.permit();
 * if (suppressed >= 0) {
 *     log.warn("write to shard {} failed: {} ({} similar suppressed)", shard, error, suppressed);
 * }
 * }</pre>
 *
 * <p>A count suppressed after the last emitted line would never be reported if no further message
 * came; whoever owns the instance calls {@link #pollSuppressed()} periodically (e.g. from its loop)
 * and {@link #drainSuppressed()} when it stops, and logs the count they return.
 *
 * <p>Thread-safe and lock-free; one instance per thing whose failures repeat (e.g. per shard).
 */
public final class RateLimitedLog {
    private final long intervalNs;
    private final LongSupplier nanoClock;
    private final AtomicLong nextPermitNs;
    private final AtomicLong suppressed = new AtomicLong();

    /**
     * @param intervalNs minimum time between two emitted messages
     * @param nanoClock  monotonic clock in nanoseconds (e.g. {@code System::nanoTime})
     */
    public RateLimitedLog(long intervalNs, LongSupplier nanoClock) {
        if (intervalNs < 0) {
            throw new IllegalArgumentException("rate-limit interval must be >= 0 ns, got " + intervalNs);
        }
        this.intervalNs = intervalNs;
        this.nanoClock = nanoClock;
        this.nextPermitNs = new AtomicLong(nanoClock.getAsLong());
    }

    /**
     * Asks to emit one message now. Returns -1 when the message must be suppressed (it is counted),
     * otherwise the number of messages suppressed since the last permitted one (0 or more).
     */
    public long permit() {
        long nowNs = nanoClock.getAsLong();
        long next = nextPermitNs.get();
        if (nowNs - next >= 0 && nextPermitNs.compareAndSet(next, nowNs + intervalNs)) {
            return suppressed.getAndSet(0);
        }
        suppressed.incrementAndGet();
        return -1;
    }

    /**
     * For a periodic flush: when messages were suppressed since the last emitted line and the
     * interval has passed, takes the permit (so the summary line counts as this interval's line) and
     * returns how many; otherwise -1. Costs one read when nothing is pending.
     */
    public long pollSuppressed() {
        if (suppressed.get() == 0) {
            return -1;
        }
        long nowNs = nanoClock.getAsLong();
        long next = nextPermitNs.get();
        if (nowNs - next >= 0 && nextPermitNs.compareAndSet(next, nowNs + intervalNs)) {
            long count = suppressed.getAndSet(0);
            return count > 0 ? count : -1;
        }
        return -1;
    }

    /**
     * When the owner stops: returns the messages suppressed since the last emitted line (0 or more)
     * and resets the count, whatever the interval.
     */
    public long drainSuppressed() {
        return suppressed.getAndSet(0);
    }

    /** Messages suppressed since the last permitted one. */
    public long suppressedCount() {
        return suppressed.get();
    }
}
