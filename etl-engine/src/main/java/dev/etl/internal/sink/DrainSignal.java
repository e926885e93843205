package dev.etl.internal.sink;

/**
 * Tells a sink's io threads that shutdown has begun and by when it must end. Written once by the
 * shutdown thread, read by io threads every duty cycle.
 */
final class DrainSignal {
    private volatile long deadlineNs;
    private volatile boolean draining;

    /** Starts the drain; the deadline is written first, so a reader that sees the drain sees it. */
    void begin(long deadlineNs) {
        this.deadlineNs = deadlineNs;
        this.draining = true;
    }

    boolean isDraining() {
        return draining;
    }

    /** Meaningful once {@link #isDraining()} returned true. */
    long deadlineNs() {
        return deadlineNs;
    }
}
