package dev.etl.ops;

import dev.etl.error.ErrorClass;
import dev.etl.error.ErrorPolicy;
import dev.etl.error.RecordException;
import dev.etl.record.RecordMeta;
import dev.etl.sink.ChunkOutbox;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * What a lane offers the chain it runs: identity, the current record's metadata, the sinks' lane
 * side, error reporting and metrics. Handed to {@code ChainFactory.create} once per lane; the chain
 * may keep it. Confined to the lane thread.
 */
public interface ChainContext {
    String pipelineName();

    /** Index of the lane, 0-based. */
    int laneIndex();

    /** Metadata of the record being pushed (one mutable instance per lane). */
    RecordMeta meta();

    /** Registry for operators' own metrics; engine handles are registered with a {@code pipeline} tag. */
    MeterRegistry meterRegistry();

    /** Names of the pipeline's sinks, in definition order. */
    java.util.List<String> sinkNames();

    /**
     * The lane side of sink {@code sinkName}.
     *
     * @throws IllegalArgumentException naming the known sinks when there is no such sink
     */
    ChunkOutbox outbox(String sinkName);

    /** Human-readable name of a partition, e.g. {@code orders-3}. */
    String describePartition(int partition);

    /** The topic a partition belongs to (see {@link dev.etl.source.SourceLane#topic(int)}). */
    default String topicOf(int partition) {
        return "default";
    }

    /**
     * The policy for a failure of class {@code errorClass} in stage {@code stage}: configuration may
     * override per stage or per class; otherwise {@code declared} (what the chain's code said).
     */
    ErrorPolicy policy(String stage, ErrorClass errorClass, ErrorPolicy declared);

    /**
     * Reports a record skipped under {@link ErrorPolicy#SKIP}: counts
     * {@code etl_errors_total{error_type, stage}} and logs it rate-limited. Never throws.
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
    default void deadLetterStage(String stage, ErrorClass errorClass) {
    }

    /**
     * Handles a record failed under {@link ErrorPolicy#DEAD_LETTER}: writes the current source record
     * ({@link RecordMeta#sourceKey()}, {@link RecordMeta#sourceValue()}, copied) with the failure's
     * context into the dead-letter sink's open chunk, which retains the current batch's ack, so the
     * record's offset commits only after that write is durable. Counts
     * {@code etl_errors_total} and {@code etl_dead_letters_total} and logs rate-limited.
     *
     * @throws dev.etl.error.FatalPipelineException when there is no dead-letter sink, or the record
     *         could not be added to it
     */
    default void deadLettered(RecordException failure) {
        throw new dev.etl.error.FatalPipelineException(failure.errorClass(), "pipeline '" + pipelineName()
                + "' has no dead-letter sink for a record failed under DEAD_LETTER: " + failure.getMessage(), failure);
    }
}
