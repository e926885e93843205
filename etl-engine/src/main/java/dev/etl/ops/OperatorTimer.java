package dev.etl.ops;

import java.time.Duration;

/**
 * A {@link StatefulOperator}'s processing-time timer: one deadline at a time, on the lane's clock
 * ({@link OperatorContext#nanoTime()}). When it is due the engine calls the operator's
 * {@link StatefulOperator#onTimer onTimer} on the lane thread, between batches, so an operator that
 * keeps data (a window, a buffer, a batch per key) can emit it when input pauses instead of waiting for
 * a next record that may never come. Get it from {@link OperatorContext#timer()} in {@code open}.
 *
 * <p>One-shot: a timer that fires is no longer {@link #isScheduled() scheduled}; schedule it again from
 * {@code onTimer} (or {@code process}) when there is more to wait for. Scheduling replaces any earlier
 * deadline: an operator with many deadlines (one per key) keeps them itself and schedules the earliest.
 *
 * <p>How late it fires: the lane bounds its poll by the next deadline, so a due timer fires within a few
 * milliseconds, unless a batch is being processed or the lane is draining (a timer does not fire during
 * a drain: {@code flush} emits everything then). A due timer whose operator holds data also keeps
 * {@code etl.checkpoint.stalled-fail-after} from counting that data as stuck (see
 * {@link StatefulOperator}).
 *
 * <p>Confined to the lane thread, like the operator; no allocation.
 */
public interface OperatorTimer {
    /** Schedules the timer {@code delay} from now on the lane's clock (zero or negative: due at once). */
    void schedule(Duration delay);

    /** Schedules the timer at {@code deadlineNanos} of the lane's clock ({@link OperatorContext#nanoTime()}). */
    void scheduleAt(long deadlineNanos);

    /** Cancels the timer; no-op when none is scheduled. */
    void cancel();

    /** Whether a deadline is scheduled and has not fired yet. */
    boolean isScheduled();

    /** The scheduled deadline on the lane's clock; meaningless unless {@link #isScheduled()}. */
    long deadlineNanos();
}
