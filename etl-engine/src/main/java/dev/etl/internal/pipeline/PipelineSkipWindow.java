package dev.etl.internal.pipeline;

import dev.etl.error.ErrorClass;
import dev.etl.error.SkipBudget;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;

/**
 * The pipeline-wide half of the skip budget: the records every lane received and, per error class,
 * the records they skipped or dead-lettered, over one tumbling window shared by all lanes.
 *
 * <p>Each lane also keeps its own window (a poison partition is read by one lane and must not be
 * diluted by healthy lanes); this one catches the opposite case, many lanes each skipping too little
 * to reach {@code minRecords} on their own while the pipeline as a whole drops most of its data.
 *
 * <p>Thread-safe and lock-free. Lanes add their received records once per batch (one atomic add per
 * (poll, partition) batch, never per record) and a skip once per skipped record (the error path).
 * The window rolls when a lane sees it has lasted its length and seen {@code minRecords} records: the lane that wins the CAS on the start
 * resets the counts. A count added by another lane during that reset may land in either window; the
 * budget is a guard against sustained loss, and a boundary that blurs by a few records does not change
 * what it decides for a sustained ratio.
 */
public final class PipelineSkipWindow {
    private final long windowNs;
    private final long minRecords;
    private final LongSupplier nanoClock;
    private final AtomicLong windowStartNs;
    private final AtomicLong records = new AtomicLong();
    private final AtomicLongArray skips = new AtomicLongArray(ErrorClass.values().length);

    PipelineSkipWindow(SkipBudget budget, LongSupplier nanoClock) {
        this.windowNs = budget.window().toNanos();
        this.minRecords = budget.minRecords();
        this.nanoClock = nanoClock;
        this.windowStartNs = new AtomicLong(nanoClock.getAsLong());
    }

    /** Adds one batch's records, rolling the window first when it has lasted its length. */
    void recordsIn(int n) {
        roll(nanoClock.getAsLong());
        records.addAndGet(n);
    }

    /** Adds one skip of {@code errorClass}; returns the skips of that class in this window. */
    long skipped(ErrorClass errorClass) {
        return skips.incrementAndGet(errorClass.ordinal());
    }

    /** Records received by all lanes in this window. */
    long records() {
        return records.get();
    }

    /** Milliseconds since this window started. */
    long elapsedMs() {
        return Math.max(0, (nanoClock.getAsLong() - windowStartNs.get()) / 1_000_000);
    }

    private void roll(long nowNs) {
        long start = windowStartNs.get();
        // A window that has not seen min-records records goes on (see SkipBudget: slow topics).
        if (nowNs - start >= windowNs && records.get() >= minRecords && windowStartNs.compareAndSet(start, nowNs)) {
            records.set(0);
            for (int i = 0; i < skips.length(); i++) {
                skips.set(i, 0);
            }
        }
    }
}
