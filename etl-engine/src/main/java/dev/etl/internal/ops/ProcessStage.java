package dev.etl.internal.ops;

import dev.etl.error.ErrorClass;
import dev.etl.error.FatalPipelineException;
import dev.etl.internal.checkpoint.AckRef;
import dev.etl.internal.record.MutableRecordMeta;
import dev.etl.ops.HeldAcks;
import dev.etl.ops.StatefulOperator;
import dev.etl.record.Collector;

/**
 * {@code process}: a {@link StatefulOperator} with open/flush/close hooks and the engine side of its
 * {@link HeldAcks}. Stateful; one instance per lane.
 */
public final class ProcessStage<T, R> implements Collector<T> {
    private final StatefulOperator<? super T, ? extends R> operator;
    private final StageErrorPolicy errors;
    private final Collector<? super R> downstream;
    private final StageContext operatorContext;

    public ProcessStage(
            StatefulOperator<? super T, ? extends R> operator,
            StageErrorPolicy errors,
            StageContext operatorContext,
            Collector<? super R> downstream) {
        this.operator = operator;
        this.errors = errors;
        this.operatorContext = operatorContext;
        this.downstream = downstream;
        operatorContext.register(this::fireTimer);
    }

    @Override
    public void collect(T value) {
        StageContext acks = operatorContext;
        try {
            operator.process(value, downstream);
        } catch (FatalPipelineException e) {
            acks.abandonCall();
            throw e;
        } catch (Exception e) {
            failed(e);
            return;
        }
        if (acks.unsettled()) {
            acks.endCall();
        }
    }

    private void failed(Exception e) {
        try {
            errors.fail(e);
        } catch (FatalPipelineException fatal) {
            operatorContext.abandonCall();
            throw fatal;
        }
        // Skipped or dead-lettered: the stage goes on, and so do emissions the call completed.
        operatorContext.endCall();
    }

    String stageName() {
        return errors.stage();
    }

    void open() {
        try {
            operator.open(operatorContext);
        } catch (FatalPipelineException e) {
            throw e;
        } catch (Exception e) {
            throw new FatalPipelineException(
                    ErrorClass.OPERATOR, "stage '" + stageName() + "' failed to open: " + e, e);
        }
    }

    /** Calls the operator's {@code flush} with no current record (the metadata carries no ack). */
    void flush() {
        callWithoutRecord(false);
    }

    /** Calls the operator's {@code onTimer} with no current record, as {@link #flush()} does {@code flush}. */
    private void fireTimer() {
        callWithoutRecord(true);
    }

    private void callWithoutRecord(boolean timer) {
        MutableRecordMeta meta = operatorContext.meta();
        AckRef current = meta.ack();
        meta.ack(null);
        try {
            if (timer) {
                operator.onTimer(downstream);
            } else {
                operator.flush(downstream);
            }
        } catch (FatalPipelineException e) {
            operatorContext.abandonCall();
            throw e;
        } catch (Exception e) {
            operatorContext.abandonCall();
            throw new FatalPipelineException(
                    ErrorClass.OPERATOR,
                    "stage '" + stageName() + "' failed " + (timer ? "in onTimer" : "to flush") + ": " + e,
                    e);
        } finally {
            meta.ack(current);
        }
        operatorContext.endCall();
    }

    /** Acks this stage's holders keep open (tests, diagnostics). */
    int heldCount() {
        return operatorContext.heldCount();
    }

    /** Closes the operator, then fails every ack its holders still keep (they replay, never commit). */
    void close() throws Exception {
        try {
            operator.close();
        } finally {
            operatorContext.failAll();
        }
    }
}
