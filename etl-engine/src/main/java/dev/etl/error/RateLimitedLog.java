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

    /** Messages suppressed since the last permitted one. */
    public long suppressedCount() {
        return suppressed.get();
    }
}
