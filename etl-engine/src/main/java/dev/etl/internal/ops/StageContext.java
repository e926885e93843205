package dev.etl.internal.ops;

import dev.etl.error.ErrorClass;
import dev.etl.error.FatalPipelineException;
import dev.etl.internal.checkpoint.AckRef;
import dev.etl.internal.record.MutableRecordMeta;
import dev.etl.ops.HeldAcks;
import dev.etl.ops.OperatorContext;
import dev.etl.ops.OperatorTimer;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The {@link OperatorContext} of one stage: the lane's context plus the stage name, and the engine
 * side of the stage's {@link HeldAcks}: the holders to fail at teardown, and the acks of emissions
 * closed during the current call, released when the call ends (with success when it returned or its
 * failure was skipped, with failure otherwise). Confined to the lane thread.
 */
public final class StageContext implements OperatorContext, StatefulStage {
    private final LaneContext context;
    private final String stageName;
    /** The operator's timer: its deadline, or {@link Long#MAX_VALUE} when none is scheduled. */
    private final StageTimer timer = new StageTimer();
    /** Calls the operator's {@code onTimer} (the stage, once built). */
    private Runnable timerTarget;

    private final List<StageHeldAcks> holders = new ArrayList<>(1);
    private AckRef[] settling = new AckRef[4];
    private int settlingCount;
    private int openEmissions;
    /** The record's ack when the outermost open emission began (restored if emissions are force-closed). */
    private AckRef outerAck;

    public StageContext(LaneContext context, String stageName) {
        this.context = context;
        this.stageName = stageName;
    }

    @Override
    public String stageName() {
        return stageName;
    }

    @Override
    public String pipelineName() {
        return context.pipelineName();
    }

    @Override
    public int laneIndex() {
        return context.laneIndex();
    }

    @Override
    public MutableRecordMeta meta() {
        return context.meta();
    }

    @Override
    public MeterRegistry meterRegistry() {
        return context.meterRegistry();
    }

    @Override
    public String describePartition(int partition) {
        return context.describePartition(partition);
    }

    @Override
    public OperatorTimer timer() {
        return timer;
    }

    @Override
    public long nanoTime() {
        return context.nanoTime();
    }

    /** The stage is built: registers it with the lane, whose loop fires {@code target} when the timer is due. */
    void register(Runnable target) {
        this.timerTarget = target;
        context.statefulStage(this);
    }

    @Override
    public long timerDeadlineNs() {
        return timer.scheduled ? timer.deadlineNs : Long.MAX_VALUE;
    }

    @Override
    public void fireTimer() {
        timer.scheduled = false;
        if (timerTarget != null) {
            timerTarget.run();
        }
    }

    @Override
    public boolean holds(int partition, int epoch, long seq) {
        for (StageHeldAcks holder : holders) {
            if (holder.covers(partition, epoch, seq)) {
                return true;
            }
        }
        return false;
    }

    /** A holder started or stopped keeping {@code ack}'s batches (see {@link LaneContext#operatorHold}). */
    void operatorHold(AckRef ack, boolean held) {
        context.operatorHold(ack, held);
    }

    @Override
    public HeldAcks heldAcks() {
        StageHeldAcks holder = new StageHeldAcks(this);
        holders.add(holder);
        return holder;
    }

    void emissionOpened(AckRef current) {
        if (openEmissions++ == 0) {
            outerAck = current;
        }
    }

    void emissionClosed() {
        if (--openEmissions == 0) {
            outerAck = null;
        }
    }

    /** An emission closed: its ack (one held ack, or a group) is released when the current call ends. */
    void settleLater(AckRef ack) {
        if (settlingCount == settling.length) {
            settling = Arrays.copyOf(settling, settlingCount << 1);
        }
        settling[settlingCount++] = ack;
    }

    /**
     * If the last emission closed in this call left exactly {@code ack} to settle, hands its reference
     * over to a holder instead (a one-deep buffer re-holding its batch: no reference count traffic).
     */
    boolean takeSettling(AckRef ack) {
        int n = settlingCount;
        if (n != 0 && settling[n - 1] == ack) {
            settling[n - 1] = null;
            settlingCount = n - 1;
            return true;
        }
        return false;
    }

    /** Whether the call just made left something for {@link #endCall} to do (one field test per record). */
    boolean unsettled() {
        return (settlingCount | openEmissions) != 0;
    }

    /**
     * Ends a call to {@code process} or {@code flush} that returned normally (or whose failure the
     * stage's policy skipped): releases the acks of the emissions it closed as succeeded.
     *
     * @throws FatalPipelineException when an emission scope was left open
     */
    void endCall() {
        if (openEmissions != 0) {
            closeOpenEmissions();
            releaseSettling(false);
            throw new FatalPipelineException(
                    ErrorClass.OPERATOR,
                    "stage '" + stageName + "' left an emission scope "
                            + "open when its call returned: close HeldAcks.emit(out) with try-with-resources",
                    null);
        }
        releaseSettling(true);
    }

    /** Ends a call that failed the pipeline: closes open emissions and releases their acks as failed. */
    void abandonCall() {
        closeOpenEmissions();
        releaseSettling(false);
    }

    /** Teardown: every ack still held by this stage's holders, or left to settle, is released as failed. */
    void failAll() {
        RuntimeException first = null;
        for (StageHeldAcks holder : holders) {
            try {
                holder.failAll();
            } catch (RuntimeException e) {
                first = first == null ? e : first;
            }
        }
        releaseSettling(false);
        if (first != null) {
            throw first;
        }
    }

    /** Acks held by this stage's holders (tests, diagnostics). */
    int heldCount() {
        int n = 0;
        for (StageHeldAcks holder : holders) {
            n += holder.size();
        }
        return n;
    }

    private void closeOpenEmissions() {
        if (openEmissions != 0) {
            AckRef restore = outerAck;
            for (StageHeldAcks holder : holders) {
                holder.forceClose();
            }
            context.meta().ack(restore);
        }
    }

    private void releaseSettling(boolean success) {
        int n = settlingCount;
        settlingCount = 0;
        for (int i = 0; i < n; i++) {
            AckRef ack = settling[i];
            settling[i] = null;
            ack.release(success);
        }
    }

    /** The operator's {@link OperatorTimer}: a deadline on the lane's clock. */
    private final class StageTimer implements OperatorTimer {
        private boolean scheduled;
        private long deadlineNs;

        @Override
        public void schedule(java.time.Duration delay) {
            long nanos;
            try {
                nanos = delay.toNanos();
            } catch (ArithmeticException e) {
                nanos = delay.isNegative() ? Long.MIN_VALUE / 2 : Long.MAX_VALUE / 2;
            }
            long now = context.nanoTime();
            long deadline = now + nanos;
            // Saturate: a delay past the clock's range is "never" in practice, not a deadline in the past.
            scheduleAt(nanos > 0 && deadline - now < 0 ? now + Long.MAX_VALUE / 2 : deadline);
        }

        @Override
        public void scheduleAt(long deadlineNanos) {
            this.deadlineNs = deadlineNanos;
            this.scheduled = true;
        }

        @Override
        public void cancel() {
            scheduled = false;
        }

        @Override
        public boolean isScheduled() {
            return scheduled;
        }

        @Override
        public long deadlineNanos() {
            return deadlineNs;
        }

        @Override
        public String toString() {
            return "timer of stage '" + stageName + "'" + (scheduled ? " at " + deadlineNs : " (not scheduled)");
        }
    }
}
