package dev.etl.ops;

import dev.etl.record.Collector;

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
 * Inside the scope the record metadata's ack is one ack covering every
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
public interface HeldAcks {
    /**
     * Keeps the current record's batch open until the next {@link #emit emission} of this holder
     * has been written (or the operator is torn down: then it fails). Call it during
     * {@code process} for every record whose data you keep; consecutive calls within one batch cost
     * a comparison.
     *
     * @throws IllegalStateException outside {@code process} (there is no current record)
     */
    void holdCurrent();

    /** Number of distinct acks held (batches, or upstream emissions, whose data this holder keeps). */
    int size();

    /** Whether nothing is held. */
    boolean isEmpty();

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
    <R> Emission<R> emit(Collector<? super R> out);

    /**
     * An open emission scope of a {@link HeldAcks}: a collector pushing to the operator's collector
     * under the held acks; {@link #close()} ends it. Reused: do not keep it.
     *
     * @param <R> type of the values emitted
     */
    interface Emission<R> extends Collector<R>, AutoCloseable {
        /** Pushes {@code value} to the operator's collector (the rest of the chain runs before it returns). */
        @Override
        void collect(R value);

        /** Restores the current record's ack and hands the holds over to what was emitted. Idempotent. */
        @Override
        void close();
    }
}
