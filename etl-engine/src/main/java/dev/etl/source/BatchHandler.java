package dev.etl.source;

/** Receives the records of one poll, one call per partition. Implemented by the lane. */
@FunctionalInterface
public interface BatchHandler {
    /** The records of one partition from one poll, in offset order; the cursor is valid only during this call. */
    void onBatch(PartitionBatch batch);
}
