package dev.etl.kafka;

import java.util.Optional;
import org.apache.kafka.common.TopicPartition;

/**
 * Everything a lane keeps about one partition it owns, in one object, so that giving a partition up
 * is one {@code remove} ({@link OwnedPartitions#release}). Confined to the lane thread.
 */
final class AssignedPartition {
    final int id;
    final TopicPartition topicPartition;
    final PartitionLagGauges.Cell lag;
    /** Offset of the last record handed to the lane, or -1. */
    long lastDeliveredOffset = -1;
    /** Leader epoch of that record (as the client returned it; no allocation here). */
    Optional<Integer> lastDeliveredLeaderEpoch = Optional.empty();
    /** Paused on its own ({@code SourceLane.pausePartition}), independently of the lane-wide pause. */
    boolean pausedAlone;
    /** The group's committed position when this assignment began, read on first demand; null until then. */
    dev.etl.source.CommittedPosition committed;

    AssignedPartition(int id, TopicPartition topicPartition, PartitionLagGauges.Cell lag) {
        this.id = id;
        this.topicPartition = topicPartition;
        this.lag = lag;
    }

    /**
     * The leader epoch to commit with {@code nextOffset}: known exactly only when the commit is just
     * past the last delivered record; otherwise empty (the broker then skips truncation detection
     * for that commit, which is what a commit without epoch always meant).
     */
    Optional<Integer> leaderEpochFor(long nextOffset) {
        return nextOffset == lastDeliveredOffset + 1 ? lastDeliveredLeaderEpoch : Optional.empty();
    }
}
