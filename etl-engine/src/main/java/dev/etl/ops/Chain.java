package dev.etl.ops;

import dev.etl.source.PartitionBatch;

/**
 * A built operator chain for one lane: the type-erased boundary between the lane and the fused,
 * statically typed stages. The lane makes exactly one interface call per (poll, partition) batch;
 * inside, the chain head loops over the records and each stage calls the next directly.
 *
 * <p>Single-threaded: only its lane calls it. Life cycle: {@link #open()} once before the first
 * batch, {@link #onBatch} any number of times, {@link #close()} once at the end (also after a
 * failure).
 */
public interface Chain {
    /** Opens stateful operators (their {@code open} hooks, in chain order). */
    void open();

    /**
     * Pushes every record of {@code batch} through the chain. The lane has set the batch's ack on the
     * context's {@code meta()} before the call.
     *
     * @throws dev.etl.error.FatalPipelineException when a stage under {@code FAIL} policy failed; the
     *         lane fails the batch's ack and the pipeline
     */
    void onBatch(PartitionBatch batch);

    /**
     * Asks stateful operators to emit what they buffered (their {@code flush} hooks, in chain order,
     * so what one flushes reaches the next before that one flushes). The lane calls it before the
     * drain at shutdown and before each revoke's drain and commit, never after a failure, and only
     * between batches. Chains without stateful operators do nothing.
     *
     * @throws dev.etl.error.FatalPipelineException when a hook failed; the lane fails the pipeline
     */
    default void flush() {}

    /**
     * Closes stateful operators (their {@code close} hooks, in reverse chain order); every ack an
     * operator still holds is then released as failed.
     */
    void close();
}
