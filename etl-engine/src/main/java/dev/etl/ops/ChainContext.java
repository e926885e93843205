package dev.etl.ops;

import dev.etl.record.RecordMeta;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * What a lane tells the chain it runs: its identity, the current record's metadata, the pipeline's
 * sinks, partition names, and a registry for operators' own metrics. Handed to
 * {@code ChainFactory.create} once per lane, to pass on to {@link Chains#from}; the chain may keep it.
 * Confined to the lane thread. Implemented by the engine only: chains are built from the instance the
 * engine passes in.
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

    /** Human-readable name of a partition, e.g. {@code orders-3}. */
    String describePartition(int partition);

    /** The topic a partition belongs to (see {@link dev.etl.source.SourceLane#topic(int)}). */
    default String topicOf(int partition) {
        return "default";
    }
}
