package dev.etl.source;

import dev.etl.error.SourceException;
import org.jspecify.annotations.Nullable;

/**
 * The data plane of one lane: poll, pause/resume, commit. Used only by its lane thread, except
 * {@link #wakeup()}.
 *
 * <p>Partitions are identified by dense ints that the source assigns and keeps stable for the life
 * of the process (for Kafka, one per topic-partition); {@link #describe(int)} names them.
 *
 * <p>A source that reads its partitions itself extends {@link AbstractSourceLane}, which keeps the
 * assignment, the pauses, wakeups and asynchronous commit outcomes as this contract wants them; the kit
 * {@code dev.etl.test.source.SourceLaneContract} (etl-test-support) checks an implementation against it.
 */
public interface SourceLane extends AutoCloseable {
    /**
     * Polls once, waiting at most {@code timeoutMs} for data, and pushes what arrived to
     * {@code handler}: one {@link BatchHandler#onBatch} call per partition with records. Assignment
     * changes are reported to the lane's {@link PartitionListener} from inside this call, before the
     * batches. Records of paused partitions are not returned. Must be called regularly even while
     * paused: for Kafka this is what keeps the group membership alive.
     */
    void poll(long timeoutMs, BatchHandler handler) throws SourceException;

    /** Stops returning records of every currently assigned partition, and of partitions assigned later until {@link #resume()}. */
    void pause();

    /** Undoes {@link #pause()}. */
    void resume();

    /** Whether the lane is paused. */
    boolean isPaused();

    /**
     * Stops returning records of one assigned partition until {@link #resumePartition(int)}, whatever
     * the lane-wide {@link #pause()} state: the two are independent, and a partition's records are
     * returned only while neither applies ({@link #resume()} does not resume a partition paused here).
     * The lane uses it when the partition's oldest outstanding batch is stalled, so its bookkeeping
     * and replay distance stop growing. A partition's own pause ends when it is revoked or lost: a
     * later assignment starts unpaused (except by the lane-wide pause). No-op if not assigned.
     */
    void pausePartition(int partition);

    /** Undoes {@link #pausePartition(int)}; the lane-wide pause, if any, still applies. No-op if not assigned. */
    void resumePartition(int partition);

    /**
     * Commits {@code offsets} (per partition the next offset to read, and metadata to store with it
     * verbatim). Synchronous commits return once the source has stored them or throw; asynchronous ones
     * report their outcome later to {@code callback} (on the lane thread, from inside a later poll or
     * commit). A source that cannot store metadata ignores it and returns {@link CommittedPosition#NONE}
     * from {@link #committed}, which makes deterministic batching fall back to free boundaries.
     */
    void commit(CommitOffsets offsets, boolean sync, @Nullable CommitCallback callback) throws SourceException;

    /**
     * The committed position of {@code partition} as it was when the partition was assigned to this
     * lane (read by the source before it reported the assignment, so valid from
     * {@link PartitionListener#onAssigned} until the partition leaves the lane). The default: none.
     */
    default CommittedPosition committed(int partition) {
        return CommittedPosition.NONE;
    }

    /** A human-readable name of the partition (e.g. {@code orders-3}), for logs, errors and metrics. */
    String describe(int partition);

    /**
     * What identifies the data behind the partition, beyond its name: part of the deduplication token of
     * every deterministic block of its records (with the offset range), so a block of another topic that
     * merely has the same name and offsets — the topic deleted and recreated, another cluster, a new
     * backfill work list — never shares a token with a block written before. Must be the same for the same
     * data in every process and run. Kafka: {@code orders-3@<topic id>}. The default, {@link #describe},
     * suits sources whose names are never reused for other data; available from
     * {@link PartitionListener#onAssigned} on.
     */
    default String partitionIdentity(int partition) {
        return describe(partition);
    }

    /**
     * The topic (or stream) the partition belongs to, used to route partitions to chains when a
     * pipeline has several {@code ChainFactory}s. Sources without topics return one fixed name.
     */
    default String topic(int partition) {
        return "default";
    }

    /**
     * Whether the lane has received its first assignment from its group (possibly an empty one):
     * until then it cannot do work, so the pipeline is not ready. Sources without groups are always
     * joined.
     */
    default boolean hasJoined() {
        return true;
    }

    /** Makes a blocked {@link #poll} return early. Thread-safe. */
    void wakeup();

    @Override
    void close();

    /** Outcome of an asynchronous commit. */
    @FunctionalInterface
    interface CommitCallback {
        void onComplete(CommitOffsets offsets, @Nullable Exception errorOrNull);
    }
}
