package dev.etl.ops;

import dev.etl.error.ErrorClass;
import dev.etl.error.FatalPipelineException;
import dev.etl.internal.checkpoint.AckRef;
import dev.etl.internal.ops.LaneContext;
import dev.etl.internal.record.MutableRecordMeta;
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
final class StageContext implements OperatorContext {
    private final LaneContext context;
    private final String stageName;
    private final List<HeldAcks> holders = new ArrayList<>(1);
    private AckRef[] settling = new AckRef[4];
    private int settlingCount;
    private int openEmissions;
    /** The record's ack when the outermost open emission began (restored if emissions are force-closed). */
    private AckRef outerAck;

    StageContext(LaneContext context, String stageName) {
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
    public HeldAcks heldAcks() {
        HeldAcks holder = new HeldAcks(this);
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
        for (HeldAcks holder : holders) {
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
        for (HeldAcks holder : holders) {
            n += holder.size();
        }
        return n;
    }

    private void closeOpenEmissions() {
        if (openEmissions != 0) {
            AckRef restore = outerAck;
            for (HeldAcks holder : holders) {
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
}
