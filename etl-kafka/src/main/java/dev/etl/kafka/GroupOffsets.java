package dev.etl.kafka;

import dev.etl.error.SourceException;
import dev.etl.source.CommitOffsets;
import dev.etl.source.CommittedPosition;
import dev.etl.source.SourceLane;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One lane's commits to, and reads from, its consumer group's offsets: the engine's
 * {@link CommitOffsets} (dense ids) translated to Kafka's {@link OffsetAndMetadata}, with the leader
 * epoch when it is known exactly ({@link AssignedPartition#leaderEpochFor}).
 *
 * <p>{@code commitAsync} reports its outcome to the callback on the lane thread, inside a later poll
 * or commit; {@code commitSync} is bounded by the commit timeout, and a {@link WakeupException} that
 * lands inside it (a shutdown during a revoke) retries it once and re-arms the wakeup, so the commit
 * is not lost and the poll still returns early.
 *
 * <p>Confined to the lane thread.
 */
final class GroupOffsets {
    /** The lane's category: what operators configure for the source's messages. */
    private static final Logger log = LoggerFactory.getLogger(KafkaSourceLane.class);

    private final Consumer<byte[], byte[]> consumer;
    private final int laneIndex;
    private final OwnedPartitions partitions;
    private final TopicPartitionIds ids;
    private final Duration commitTimeout;
    private final String groupId;

    GroupOffsets(
            Consumer<byte[], byte[]> consumer,
            int laneIndex,
            OwnedPartitions partitions,
            TopicPartitionIds ids,
            KafkaSourceConfig config) {
        this.consumer = consumer;
        this.laneIndex = laneIndex;
        this.partitions = partitions;
        this.ids = ids;
        this.commitTimeout = config.commitTimeout();
        this.groupId = config.groupId();
    }

    /**
     * See {@link SourceLane#commit}.
     *
     * @throws SourceException when a synchronous commit fails
     */
    void commit(CommitOffsets nextOffsets, boolean sync, SourceLane.@Nullable CommitCallback callback) {
        Map<TopicPartition, OffsetAndMetadata> offsets = toKafka(nextOffsets);
        if (sync) {
            commitSync(offsets);
            return;
        }
        try {
            consumer.commitAsync(offsets, (committed, error) -> {
                if (callback != null) {
                    callback.onComplete(nextOffsets, error);
                }
            });
        } catch (KafkaException e) {
            if (callback != null) {
                callback.onComplete(nextOffsets, e);
            }
        }
    }

    private void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
        try {
            try {
                consumer.commitSync(offsets, commitTimeout);
            } catch (WakeupException e) {
                // A shutdown woke the consumer while it was committing (typically inside a revoke).
                // The commit still matters: retry it, then re-arm the wakeup for the poll.
                try {
                    consumer.commitSync(offsets, commitTimeout);
                } finally {
                    consumer.wakeup();
                }
            }
        } catch (KafkaException e) {
            throw new SourceException(
                    "lane " + laneIndex + ": synchronous commit of " + offsets + " for group " + groupId + " failed: "
                            + e,
                    e);
        }
    }

    private Map<TopicPartition, OffsetAndMetadata> toKafka(CommitOffsets nextOffsets) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>(nextOffsets.size() * 2);
        for (int i = 0; i < nextOffsets.size(); i++) {
            int id = nextOffsets.partition(i);
            long offset = nextOffsets.offset(i);
            String metadata = nextOffsets.metadata(i);
            AssignedPartition partition = partitions.get(id);
            Optional<Integer> epoch = partition != null ? partition.leaderEpochFor(offset) : Optional.empty();
            offsets.put(ids.topicPartition(id), new OffsetAndMetadata(offset, epoch, metadata == null ? "" : metadata));
        }
        return offsets;
    }

    /**
     * The group's committed position of an owned partition as it was when assigned; see
     * {@link KafkaSourceLane#committed}. Fetched once per assignment, for every owned partition not
     * fetched yet, in one request; a failed lookup is logged and reported as
     * {@link CommittedPosition#NONE}.
     */
    CommittedPosition committed(int partitionId) {
        AssignedPartition partition = partitions.get(partitionId);
        if (partition == null) {
            return CommittedPosition.NONE;
        }
        if (partition.committed == null) {
            Map<TopicPartition, AssignedPartition> pending = new HashMap<>();
            for (AssignedPartition p : partitions.all()) {
                if (p.committed == null) {
                    pending.put(p.topicPartition, p);
                }
            }
            try {
                Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(pending.keySet(), commitTimeout);
                pending.forEach((tp, p) -> {
                    OffsetAndMetadata om = committed == null ? null : committed.get(tp);
                    p.committed = om == null
                            ? CommittedPosition.NONE
                            : new CommittedPosition(
                                    om.offset(),
                                    om.metadata() == null || om.metadata().isEmpty() ? null : om.metadata());
                });
            } catch (KafkaException e) {
                log.warn(
                        "lane {}: reading the committed offsets of {} failed ({}); their batch boundaries are "
                                + "chosen afresh (a replay may duplicate rows)",
                        laneIndex,
                        pending.keySet(),
                        e.toString());
                pending.values().forEach(p -> p.committed = CommittedPosition.NONE);
            }
        }
        return partition.committed;
    }
}
