package dev.etl.internal.ops;

import dev.etl.internal.checkpoint.AckRef;
import dev.etl.internal.record.MutableRecordMeta;
import dev.etl.ops.HeldAcks;
import dev.etl.record.Collector;
import java.util.Arrays;

/**
 * The {@link HeldAcks} of one {@code process} stage (the contract is on {@link HeldAcks}): the acks held,
 * in order, and the one reusable emission scope. Created by {@link StageContext#heldAcks()}, which also
 * asks it what it {@link #covers} and tears it down ({@link #forceClose}, {@link #failAll}). Confined to
 * the lane thread.
 */
public final class StageHeldAcks implements HeldAcks {
    private final StageContext stage;
    private final OpenEmission<Object> emission = new OpenEmission<>();
    private AckRef[] held = new AckRef[8];
    private int count;
    private boolean emitting;
    private AckRef saved;
    private AckRef emissionAck;

    StageHeldAcks(StageContext stage) {
        this.stage = stage;
    }

    @Override
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
    public boolean covers(int partition, int epoch, long seq) {
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

    @Override
    public int size() {
        return count;
    }

    @Override
    public boolean isEmpty() {
        return count == 0;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <R> HeldAcks.Emission<R> emit(Collector<? super R> out) {
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
        return (HeldAcks.Emission<R>) emission;
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
    public void forceClose() {
        closeEmission();
    }

    /** Releases every ack held as failed and empties the holder (teardown). */
    public void failAll() {
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

    /** The one emission scope of this holder, reused: pushes to the operator's collector while open. */
    private final class OpenEmission<R> implements HeldAcks.Emission<R> {
        private Collector<Object> out;

        @Override
        public void collect(R value) {
            Collector<Object> target = out;
            if (target == null) {
                throw new IllegalStateException("stage '" + stage.stageName() + "': this emission is closed");
            }
            target.collect(value);
        }

        @Override
        public void close() {
            closeEmission();
        }
    }
}
