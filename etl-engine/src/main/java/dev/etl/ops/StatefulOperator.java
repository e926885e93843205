package dev.etl.ops;

import dev.etl.record.Collector;

/**
 * A stateful operator: keeps state across records (windows, counters, dedup sets, enrichment
 * caches) and has {@link #open}, {@link #flush} and {@link #close} hooks.
 *
 * <p><b>Threads.</b> The lane's {@link ChainFactory} creates the chain once per lane, so create a new
 * operator instance inside the factory: an instance belongs to exactly one lane thread, and every
 * hook below runs on that thread, never concurrently with another hook of the same instance. It
 * needs no locks. Never share one instance across lanes (e.g. from a field of the factory bean).
 *
 * <p><b>Acks: buffering without holding is a data-loss bug.</b> The lane commits a batch's offsets
 * once every row derived from it is durably written. A value that {@code process} pushes to
 * {@code out} before it returns is tied to the current record's batch automatically. A value the
 * operator keeps and emits <em>later</em> (while a later record is processed, or in {@code flush})
 * is not: unless the operator holds the acks of what it buffered, the earlier batch's offset is
 * committed while the value exists only in memory, and a crash, a revoke or a shutdown loses it.
 * So an operator that buffers:
 * <ol>
 *   <li>gets a {@link HeldAcks} from {@link OperatorContext#heldAcks()} in {@code open};</li>
 *   <li>calls {@link HeldAcks#holdCurrent()} in {@code process} for every record whose data it
 *       keeps (free within a batch);</li>
 *   <li>emits what it kept inside {@code try (var e = held.emit(out)) { e.collect(...); }}, which
 *       ties the emitted rows to every batch held, and releases the holds to them. An emission
 *       settles everything the holder holds: emit all of it, or use one holder per part of the
 *       state that is emitted on its own.</li>
 * </ol>
 * <b>Schedule the {@link OperatorContext#timer() timer}</b> whenever the operator starts keeping
 * something, and emit what is due from {@link #onTimer}: without it, kept data waits for the next
 * record, which on a topic that goes quiet never comes (nothing commits, the consumer lag never drains).
 * Held acks count as outstanding batches: the partition's committed offset waits before the oldest
 * batch held, and its watermark age grows while a window is open. {@code etl.checkpoint.stalled-fail-after}
 * does not count data an operator keeps while its timer is scheduled (it counts from the emission on);
 * data kept with no timer scheduled for longer fails the pipeline, naming the stage. Keep windows within
 * {@link dev.etl.pipeline.PipelineConfig#MAX_OUTSTANDING_BATCHES_PER_PARTITION} polls of each partition
 * (beyond it the partition is paused until half its outstanding batches are written). Holding is at-least-once, not exactly-once: after a
 * crash the batches held replay, so a window's result may be written twice, or in two partial rows
 * (see below); aggregate such rows in queries ({@code sum}) or with a summing table engine.
 *
 * <p><b>Life cycle.</b>
 * <ul>
 *   <li>{@link #open}: once, before the first record, in chain order.</li>
 *   <li>{@link #process}: once per value, during the lane's handling of a poll batch.</li>
 *   <li>{@link #onTimer}: when the operator's timer is due, between batches (never during a drain).</li>
 *   <li>{@link #flush}: between batches, in chain order (so what an upstream operator flushes
 *       passes through the downstream ones before they flush), when the pipeline drains for a
 *       shutdown (before the final hand-off and commit) and before every revoke of partitions from
 *       the lane (before the revoke's drain and commit). Not called after a failure.</li>
 *   <li>{@link #close}: once at the end, in reverse chain order, also after a failure, but only if
 *       {@code open} returned normally. After {@code close}, every ack still held is released as
 *       failed: those batches are not committed and replay after a restart.</li>
 * </ul>
 *
 * <p><b>Rebalances and keyed state.</b> A lane sees the partitions assigned to it, which change on
 * rebalance; keyed state is only as partitioned as the source. A revoke means the revoked
 * partitions' records (and so their keys) go to another lane or process, which resumes from the
 * offset committed at the revoke. {@code flush} runs first, so emit everything: a partial window
 * written at a revoke is correct at-least-once output, and the new owner continues the window from
 * the next record (so one window may arrive as several partial rows). An operator that keeps
 * values held across {@code flush} delays the revoke (the drain waits for their batches, up to
 * {@code drain-timeout}) and those batches' offsets are not committed: they replay on the new
 * owner. A lost partition (no orderly revoke) gets no {@code flush}; its held batches can no longer
 * commit here, and replay on the new owner.
 *
 * <p><b>Values may be reused</b> by the deserializer: {@code in} is valid during {@code process}
 * only; copy what you keep in state.
 *
 * @param <T> input type
 * @param <R> output type
 */
public interface StatefulOperator<T, R> {
    /** Acquires resources, takes {@link HeldAcks}, registers metrics. A thrown exception fails the pipeline. */
    default void open(OperatorContext context) throws Exception {}

    /**
     * Handles one value, pushing zero or more outputs to {@code out} (the next stage itself; see
     * {@link FlatMapper} for the rules on {@code out}). A thrown exception is a failure of the stage
     * and goes to its error policy ({@code OPERATOR} class, {@code FAIL} unless configured): under
     * {@code FAIL} the acks of emissions made in this call are released as failed; under
     * {@code SKIP} or {@code DEAD_LETTER} what was emitted stays emitted.
     */
    void process(T in, Collector<? super R> out) throws Exception;

    /**
     * Emits everything the operator buffered, inside {@link HeldAcks#emit} scopes (default: does
     * nothing, right for an operator that buffers nothing). Called on the lane thread between
     * batches, at a shutdown's drain and before every revoke (see the class comment); not after a
     * failure. There is no current record: {@link OperatorContext#meta()} does not describe one and
     * carries no ack, so a value pushed outside an emission of held acks fails the pipeline (it
     * would be a value whose offsets may already be committed). A thrown exception fails the
     * pipeline, and the acks of this call's emissions fail with it.
     */
    default void flush(Collector<? super R> out) throws Exception {}

    /**
     * The operator's {@link OperatorContext#timer() timer} is due (it is no longer scheduled: schedule it
     * again for the next deadline). Called on the lane thread between batches, never during a drain, with
     * no current record, exactly like {@link #flush}: emit kept data inside {@link HeldAcks#emit} scopes (a
     * value pushed outside one fails the pipeline). A thrown exception fails the pipeline, and the acks of
     * this call's emissions fail with it. Default: nothing.
     */
    default void onTimer(Collector<? super R> out) throws Exception {}

    /** Releases resources. Called even if another operator's {@code close} threw. Must not emit. */
    default void close() throws Exception {}
}
