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

    /**
     * The operator's processing-time timer (the same object on every call; see {@link OperatorTimer}):
     * when it is due, the engine calls {@link StatefulOperator#onTimer}. An operator that keeps data
     * across records schedules it whenever it starts keeping something, so what it keeps is emitted when
     * input pauses (an idle topic), not only when the next record arrives.
     */
    default OperatorTimer timer() {
        throw new UnsupportedOperationException("this OperatorContext does not support timers");
    }

    /**
     * The lane's monotonic clock in nanoseconds (processing time): what {@link OperatorTimer} deadlines
     * are on. Use it rather than {@link System#nanoTime()}, so operators run on the engine's clock
     * (tests and the simulator drive it).
     */
    default long nanoTime() {
        return System.nanoTime();
    }
}
