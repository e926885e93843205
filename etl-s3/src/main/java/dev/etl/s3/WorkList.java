package dev.etl.s3;

import dev.etl.source.PartitionListener;
import dev.etl.source.SourceLane;

/**
 * Where a backfill's work items are: the list the planner wrote, shared out between the pipeline's lanes
 * and instances, and how far it is committed. {@link S3BackfillLane} reads it through the lane that
 * {@link #openLane} returns and commits there; {@link BackfillProgressSampler} asks {@link #progress()} when
 * the run is done. The default, {@link KafkaWorkList}, is a Kafka topic consumed by the pipeline's group
 * (so instances share the work and rebalances move it).
 *
 * <p>What the backfill needs of it:
 * <ul>
 *   <li>Each partition of the list is a sequence of work items at increasing offsets from 0 (at most
 *       {@link VirtualOffsets#MAX_ITEM_OFFSET}), each record's value a {@link WorkItem#encode() encoded
 *       item}; a record without a value, or with one that does not decode, is a corrupt item.</li>
 *   <li>The lane commits per partition the next item to read and metadata it keeps verbatim, and
 *       reports the committed position of a partition from its assignment on
 *       ({@link SourceLane#committed}): the backfill keeps the row within the item there.</li>
 *   <li>{@link SourceLane#partitionIdentity} names the list itself, so a list planned again never shares
 *       deduplication tokens with an earlier one.</li>
 * </ul>
 */
public interface WorkList extends AutoCloseable {
    /**
     * Takes the list's extent, once, when the backfill starts: the run is done when every item in it is
     * committed. Items added later are read but not waited for.
     *
     * @return how many items the list holds
     * @throws IllegalStateException naming the list when it does not exist, holds no items or lost some
     */
    long start();

    /**
     * Opens lane {@code laneIndex}'s view of the list (called on the lane's thread): one record per work
     * item, its assignment changes reported to {@code listener} from inside its polls.
     */
    SourceLane openLane(int laneIndex, PartitionListener listener);

    /**
     * How far the list is committed, by whichever instance read it; called every progress interval from
     * the backfill's progress thread, after {@link #start()}.
     *
     * @throws Exception when it cannot be read now (logged, asked again at the next interval)
     */
    Progress progress() throws Exception;

    /** A short description for logs, e.g. {@code orders-backfill-work group=orders-backfill}. */
    String describe();

    @Override
    void close();

    /**
     * How far a work list is committed.
     *
     * @param committedItems items committed so far (of those {@link #start()} counted; may be approximate)
     * @param done           whether every item {@link #start()} counted is committed
     */
    record Progress(long committedItems, boolean done) {}
}
