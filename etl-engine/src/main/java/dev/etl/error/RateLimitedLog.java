package dev.etl.error;

import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;

/**
 * Lets at most one log line through per interval and counts the ones it held back, so a flood of
 * identical failures (a bad topic, a dead replica) costs one line per interval, which carries the
 * number suppressed since the previous line. Thread-safe; checking costs one volatile read when
 * the line is suppressed.
 */
public final class RateLimitedLog {
    private final Logger logger;
    private final long intervalNs;
    private final AtomicLong nextAllowedNs = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong suppressed = new AtomicLong();

    public RateLimitedLog(Logger logger, long intervalNs) {
        this.logger = logger;
        this.intervalNs = intervalNs;
    }

    /**
     * Logs at WARN if the interval has passed, else counts the line as suppressed. Arguments follow
     * SLF4J's {@code {}} placeholders; a trailing Throwable is logged with its stack trace.
     */
    public void warn(String format, Object... args) {
        long now = System.nanoTime();
        long next = nextAllowedNs.get();
        if (now - next < 0 && next != Long.MIN_VALUE) {
            suppressed.incrementAndGet();
            return;
        }
        if (!nextAllowedNs.compareAndSet(next, now + intervalNs)) {
            suppressed.incrementAndGet();
            return;
        }
        long held = suppressed.getAndSet(0);
        if (held > 0) {
            logger.warn(format + " [" + held + " similar lines suppressed]", args);
        } else {
            logger.warn(format, args);
        }
    }

    /** Lines held back since the last one logged. */
    public long suppressedCount() {
        return suppressed.get();
    }
}
