package dev.etl.kafka;

import java.util.ArrayList;
import java.util.Collection;
import org.agrona.collections.Int2ObjectHashMap;
import org.apache.kafka.common.TopicPartition;

/**
 * The partitions one lane owns, by dense id: an {@link AssignedPartition} per partition, claimed when
 * Kafka assigns it and released in one place ({@link #release}) when it is revoked, lost, or the lane
 * closes — one {@code remove} plus giving up its lag gauge.
 *
 * <p>Confined to the lane thread (the rebalance callbacks run on it, inside {@code consumer.poll}).
 */
final class OwnedPartitions {
    private final Int2ObjectHashMap<AssignedPartition> owned = new Int2ObjectHashMap<>();
    private final int laneIndex;
    private final TopicPartitionIds ids;
    private final PartitionLagGauges lagGauges;

    OwnedPartitions(int laneIndex, TopicPartitionIds ids, PartitionLagGauges lagGauges) {
        this.laneIndex = laneIndex;
        this.ids = ids;
        this.lagGauges = lagGauges;
    }

    /** The owned partition with dense id {@code id}, or null. */
    AssignedPartition get(int id) {
        return owned.get(id);
    }

    /** The owned partition {@code tp}, or null. */
    AssignedPartition get(TopicPartition tp) {
        return owned.get(ids.idOf(tp));
    }

    /**
     * Starts owning {@code tp} (claiming its lag gauge for this lane), unless it is owned already.
     *
     * @return its dense id when it was newly claimed, -1 when it was owned already
     */
    int claim(TopicPartition tp) {
        int id = ids.idOf(tp);
        if (owned.containsKey(id)) {
            return -1;
        }
        owned.put(id, new AssignedPartition(id, tp, lagGauges.claim(id, tp, laneIndex)));
        return id;
    }

    /** The one place a partition's state is dropped. */
    void release(AssignedPartition partition) {
        owned.remove(partition.id);
        lagGauges.release(partition.lag, laneIndex);
    }

    /** Releases every owned partition (the lane closes). */
    void releaseAll() {
        for (AssignedPartition partition : new ArrayList<>(owned.values())) {
            release(partition);
        }
    }

    /** A live view; do not claim or release while iterating it. */
    Collection<AssignedPartition> all() {
        return owned.values();
    }

    int size() {
        return owned.size();
    }
}
