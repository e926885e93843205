package dev.etl.ops;

import dev.etl.record.RecordMeta;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * What a {@link StatefulOperator} gets when it opens: its stage name, the lane it runs on, the
 * lane's record metadata and a registry for its own metrics. The operator may keep it. Confined to
 * the lane thread, like the operator.
 */
public interface OperatorContext {
    /** Name of the operator's stage, as given to the builder or defaulted (e.g. {@code process#3}). */
    String stageName();

    /** Name of the pipeline. */
    String pipelineName();

    /** Index of the lane running this operator instance, 0-based. */
    int laneIndex();

    /**
     * Metadata of the record being processed: read it during {@code process}; the same instance is
     * updated in place for every record.
     */
    RecordMeta meta();

    /** Registry for the operator's own metrics (register in {@code open}, not per record). */
    MeterRegistry meterRegistry();

    /** Human-readable name of a partition, e.g. {@code orders-3} (allocates; not for the hot path). */
    String describePartition(int partition);

    /**
     * A new, empty holder of acks for the values this operator buffers (see {@link HeldAcks} and the
     * contract in {@link StatefulOperator}). Call it in {@code open}: once, or once per part of the
     * state that is emitted on its own. The engine fails whatever a holder still holds when the
     * operator is torn down.
     */
    default HeldAcks heldAcks() {
        throw new UnsupportedOperationException("this OperatorContext does not support held acks");
    }
}
