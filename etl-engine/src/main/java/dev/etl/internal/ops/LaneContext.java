package dev.etl.internal.ops;

import dev.etl.error.ErrorClass;
import dev.etl.error.ErrorPolicy;
import dev.etl.error.FatalPipelineException;
import dev.etl.error.RecordException;
import dev.etl.internal.record.MutableRecordMeta;
import dev.etl.internal.sink.ChunkOutbox;
import dev.etl.ops.ChainContext;

/**
 * The engine's side of a lane's {@link ChainContext}: what the chain's stages need from their lane
 * beyond what user code sees (the writable record metadata with the current ack, the sinks' lane side,
 * error policies and reporting, the dead-letter sink). Implemented by the lane; stages get it from the
 * {@code ChainContext} a {@code ChainFactory} was handed ({@link #of}). Lane thread only.
 */
public interface LaneContext extends ChainContext {
    /**
     * The context the engine handed to a {@code ChainFactory}.
     *
     * @throws IllegalArgumentException for a {@code ChainContext} the engine did not create
     */
    static LaneContext of(ChainContext context) {
        if (context instanceof LaneContext lane) {
            return lane;
        }
        throw new IllegalArgumentException("chains are built from the ChainContext the engine passes to "
                + "ChainFactory.create, not from a " + context.getClass().getName());
    }

    @Override
    MutableRecordMeta meta();

    /** The lane's monotonic clock in nanoseconds (operators' processing time, timer deadlines). */
    default long nanoTime() {
        return System.nanoTime();
    }

    /** A {@code process} stage was built: the lane fires its timer and asks it what it holds. Build time. */
    default void statefulStage(StatefulStage stage) {}

    /**
     * A stateful operator started ({@code held}) or stopped keeping the data of the batch(es) {@code ack}
     * stands for (once per batch a holder keeps, and per emission; not per record).
     */
    default void operatorHold(dev.etl.internal.checkpoint.AckRef ack, boolean held) {}

    /**
     * The record at {@code offset} of {@code partition} is about to enter the chain (called by the chain
     * head once per record, before the record's metadata is set): the lane may end a deterministic block
     * here. Hot path: no allocation.
     */
    default void beforeRecord(int partition, long offset) {}

    /**
     * The lane side of sink {@code sinkName}.
     *
     * @throws IllegalArgumentException naming the known sinks when there is no such sink
     */
    ChunkOutbox outbox(String sinkName);

    /**
     * The definition of sink {@code sinkName} (its encoder and chunk settings).
     *
     * @throws IllegalArgumentException naming the known sinks when there is no such sink
     */
    dev.etl.sink.SinkDefinition sink(String sinkName);

    /**
     * The policy for a failure of class {@code errorClass} in stage {@code stage}: configuration may
     * override per stage or per class; otherwise {@code declared} (what the chain's code said).
     */
    ErrorPolicy policy(String stage, ErrorClass errorClass, ErrorPolicy declared);

    /**
     * Reports a record skipped under {@link ErrorPolicy#SKIP}: counts
     * {@code etl_errors_total{error_type, stage}} and logs it rate-limited. Never throws except a
     * {@link FatalPipelineException} when the skip budget is exceeded.
     */
    void skipped(RecordException failure);

    /** Whether the pipeline has a dead-letter sink, so stages may use {@link ErrorPolicy#DEAD_LETTER}. */
    default boolean hasDeadLetter() {
        return false;
    }

    /**
     * Called once per stage, when its chain is built, for every stage whose effective policy is
     * {@link ErrorPolicy#DEAD_LETTER} (registers its {@code etl_dead_letters_total} series at 0).
     */
    default void deadLetterStage(String stage, ErrorClass errorClass) {}

    /**
     * Handles a record failed under {@link ErrorPolicy#DEAD_LETTER}: writes the current source record
     * ({@link MutableRecordMeta#sourceKey()}, {@link MutableRecordMeta#sourceValue()}, copied) with the
     * failure's context into the dead-letter sink's open chunk, which retains the current batch's ack, so
     * the record's offset commits only after that write is durable.
     *
     * @throws FatalPipelineException when there is no dead-letter sink, or the record could not be added
     */
    default void deadLettered(RecordException failure) {
        throw new FatalPipelineException(
                failure.errorClass(),
                "pipeline '" + pipelineName() + "' has no dead-letter sink for a record failed under DEAD_LETTER: "
                        + failure.getMessage(),
                failure);
    }
}
