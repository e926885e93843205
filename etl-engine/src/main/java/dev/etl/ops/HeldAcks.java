package dev.etl.ops;

import dev.etl.internal.checkpoint.AckRef;
import dev.etl.internal.record.MutableRecordMeta;
import dev.etl.record.Collector;
import java.util.Arrays;

/**
 * The acks a {@link StatefulOperator} keeps open for the values it buffers, so that no offset is
 * committed past data that exists only in the operator's memory. Get one from
 * {@link OperatorContext#heldAcks()} in {@code open}; confined to the lane thread like the operator.
 *
 * <p>Use: whenever {@code process} keeps something derived from the current record (adds it to a
 * window, a buffer, a pending aggregate), call {@link #holdCurrent()}. When the operator emits what
 * it kept, emit inside an emission scope:
 *
 * <pre>{@code
 * try (HeldAcks.Emission<Row> emission = held.emit(out)) {
 *     emission.collect(windowRow);
 * }
 * }</pre>
 *
 * Inside the scope the record metadata's ack ({@link MutableRecordMeta#ack()}) is one ack covering every
 * batch held, so each sink chunk that receives an emitted row keeps all of those batches open until
 * the row is written. Rows emitted in a scope over held acks go into ordinary merged sink batches,
 * never into the current record's deterministic block (whose content must not depend on how the
 * records were split into polls), and have no source record ({@code meta().sourceValue()} is null: a
 * dead letter of such a row carries no payload). Closing the scope restores the current record's ack and hands the holds over
 * to what was emitted: a held batch then resolves when the last row emitted for it is written
 * (success) or dropped (failure); if nothing was emitted, when the call to {@code process} or
 * {@code flush} that closed the scope returns.
 *
 * <p><b>An emission settles everything this holder holds.</b> Emit everything you buffered under
 * this holder in one scope. An operator that emits parts of its state at different times (a
 * session per key) takes one holder per part that is emitted on its own (call
 * {@link OperatorContext#heldAcks()} once per part, in {@code open}).
 *
 * <p>Costs: holding the ack of the record just held again is free (consecutive records of one batch
 * share it), so a window costs one reference per batch, not per record. An emission covering one
 * batch allocates nothing; one covering several allocates one group ack and one array. Nothing
 * blocks.
 *
 * <p>What the engine does with holds: acks held count as outstanding batches in the lane's
 * checkpointer, so their partition's committed offset stays before the oldest batch held (and the
 * watermark age grows: keep windows shorter than {@code etl.checkpoint.stalled-fail-after}). On
 * drain and revoke the engine calls {@link StatefulOperator#flush}; when the lane stops after a
 * failure, or after {@code close}, every ack still held is released as failed, so those batches
 * replay after a restart and are never committed.
 */
public final class HeldAcks {
    private final StageContext stage;
    private final Emission<Object> emission = new Emission<>();
    private AckRef[] held = new AckRef[8];
    private int count;
    private boolean emitting;
    private AckRef saved;
    private AckRef emissionAck;

    HeldAcks(StageContext stage) {
        this.stage = stage;
    }

    /**
     * Keeps the current record's batch open until the next {@link #emit emission} of this holder
     * has been written (or the operator is torn down: then it fails). Call it during
     * {@code process} for every record whose data you keep; consecutive calls within one batch cost
     * a comparison.
     *
     * @throws IllegalStateException outside {@code process} (there is no current record)
     */
    public void holdCurrent() {
        AckRef ack = emitting ? saved : stage.meta().ack();
        if (ack == null) {
            throw new IllegalStateException("stage '" + stage.stageName() + "': holdCurrent() outside process(): "
                    + "there is no current record whose ack could be held");
        }
        int n = count;
        if (n != 0 && held[n - 1] == ack) {
            return;
        }
        if (!stage.takeSettling(ack)) {
            ack.retain();
        }
        if (n == held.length) {
            held = Arrays.copyOf(held, n << 1);
        }
        held[n] = ack;
        count = n + 1;
        stage.operatorHold(ack, true);
    }

    /** Whether this holder keeps the data of batch {@code (partition, epoch, seq)} (directly or in a group). */
    boolean covers(int partition, int epoch, long seq) {
        for (int i = 0; i < count; i++) {
            if (covers(held[i], partition, epoch, seq)) {
                return true;
            }
        }
        return false;
    }

    private static boolean covers(AckRef ack, int partition, int epoch, long seq) {
        int parents = ack.parentCount();
        if (parents == 0) {
            return ack.partition() == partition && ack.epoch() == epoch && ack.seq() == seq;
        }
        for (int i = 0; i < parents; i++) {
            if (covers(ack.parent(i), partition, epoch, seq)) {
                return true;
            }
        }
        return false;
    }

    /** Number of distinct acks held (batches, or upstream emissions, whose data this holder keeps). */
    public int size() {
        return count;
    }

    /** Whether nothing is held. */
    public boolean isEmpty() {
        return count == 0;
    }

    /**
     * Opens an emission scope on {@code out}, the operator's collector (close it with
     * try-with-resources; the returned object is reused): until it closes, values pushed through it
     * (or through {@code out}) carry one ack covering every batch this holder holds, and the holder
     * is emptied. With nothing held, values pushed carry the
     * current record's ack during {@code process}, and no ack at all during {@code flush} (which
     * fails the pipeline at the sink: a value buffered without holding its ack).
     *
     * @throws IllegalStateException when an emission of this holder is already open
     */
    @SuppressWarnings("unchecked")
    public <R> Emission<R> emit(Collector<? super R> out) {
        if (emitting) {
            throw new IllegalStateException("stage '" + stage.stageName() + "': an emission of this holder is "
                    + "already open (close it first; use try-with-resources)");
        }
        MutableRecordMeta meta = stage.meta();
        AckRef current = meta.ack();
        AckRef scope;
        int n = count;
        if (n == 0) {
            scope = null;
        } else if (n == 1) {
            scope = held[0];
            held[0] = null;
        } else {
            scope = AckRef.group(Arrays.copyOf(held, n));
            Arrays.fill(held, 0, n, null);
        }
        count = 0;
        saved = current;
        emissionAck = scope;
        emitting = true;
        stage.emissionOpened(current);
        if (scope != null) {
            meta.ack(scope);
            // Held data belongs to no current offset range: never into the open deterministic block.
            meta.heldEmissionOpened();
        }
        emission.out = (Collector<Object>) out;
        return (Emission<R>) emission;
    }

    private void closeEmission() {
        if (!emitting) {
            return;
        }
        emitting = false;
        emission.out = null;
        stage.emissionClosed();
        MutableRecordMeta meta = stage.meta();
        meta.ack(saved);
        saved = null;
        AckRef scope = emissionAck;
        emissionAck = null;
        if (scope != null) {
            meta.heldEmissionClosed();
            // The data kept for those batches is on its way to the sinks now: their stall clocks restart.
            stage.operatorHold(scope, false);
            stage.settleLater(scope);
        }
    }

    /** Closes an emission left open (the engine, when a call ends abnormally). */
    void forceClose() {
        closeEmission();
    }

    /** Releases every ack held as failed and empties the holder (teardown). */
    void failAll() {
        closeEmission();
        int n = count;
        count = 0;
        RuntimeException first = null;
        for (int i = 0; i < n; i++) {
            AckRef ack = held[i];
            held[i] = null;
            try {
                ack.release(false);
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /**
     * An open emission scope of a {@link HeldAcks}: a collector pushing to the operator's collector
     * under the held acks; {@link #close()} ends it. Reused: do not keep it.
     *
     * @param <R> type of the values emitted
     */
    public final class Emission<R> implements Collector<R>, AutoCloseable {
        private Collector<Object> out;

        private Emission() {}

        /** Pushes {@code value} to the operator's collector (the rest of the chain runs before it returns). */
        @Override
        public void collect(R value) {
            Collector<Object> target = out;
            if (target == null) {
                throw new IllegalStateException("stage '" + stage.stageName() + "': this emission is closed");
            }
            target.collect(value);
        }

        /** Restores the current record's ack and hands the holds over to what was emitted. Idempotent. */
        @Override
        public void close() {
            closeEmission();
        }
    }
}
