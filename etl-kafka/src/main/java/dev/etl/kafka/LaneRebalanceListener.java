package dev.etl.kafka;

import dev.etl.source.PartitionListener;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.TopicPartition;

/**
 * Kafka's view of one lane: translates the consumer's rebalance callbacks into the lane's
 * {@link PartitionListener} calls, with dense ids, in the order Kafka makes them, and keeps
 * {@link OwnedPartitions} in step (the contract is on {@link KafkaSourceLane}):
 * <ul>
 *   <li>revoked → {@link PartitionListener#onRevoked}, then the partitions are released (they are
 *       still owned while the listener drains and commits: the commit needs their leader epochs);</li>
 *   <li>lost → {@link PartitionListener#onLost}, then released;</li>
 *   <li>assigned → {@link PartitionListener#onAssigned} for the partitions not owned yet, paused
 *       first if the lane is paused, else resumed (a new assignment never inherits an earlier
 *       one's per-partition pause).</li>
 * </ul>
 * Empty changes are not forwarded, nor revokes once {@link #closing()} was called. The first
 * exception the listener throws is kept instead of escaping into the consumer (which would wrap it
 * and carry on); later changes are then not forwarded, and {@link #rethrowFailure()} throws it
 * unchanged.
 *
 * <p>Every method runs on the lane thread: the callbacks inside {@code consumer.poll} (or a commit
 * or close), the others from the lane.
 */
final class LaneRebalanceListener implements ConsumerRebalanceListener {
    private final Consumer<byte[], byte[]> consumer;
    private final OwnedPartitions partitions;
    private final PartitionListener listener;
    private final BooleanSupplier lanePaused;
    private final TopicIds topicIds;
    private boolean joined;
    private boolean closing;
    private RuntimeException callbackFailure;

    /**
     * @param lanePaused whether the whole lane is paused (read when partitions are assigned)
     */
    LaneRebalanceListener(
            Consumer<byte[], byte[]> consumer,
            OwnedPartitions partitions,
            PartitionListener listener,
            BooleanSupplier lanePaused,
            TopicIds topicIds) {
        this.consumer = consumer;
        this.partitions = partitions;
        this.listener = listener;
        this.lanePaused = lanePaused;
        this.topicIds = topicIds;
    }

    /** Whether Kafka has completed a rebalance for this consumer: it has joined its group. */
    boolean hasJoined() {
        return joined;
    }

    /** From now on revokes (Kafka's revoke-on-close) release partitions without being forwarded. */
    void closing() {
        closing = true;
    }

    /** Throws the listener's first exception, unchanged, if it threw. */
    void rethrowFailure() {
        if (callbackFailure != null) {
            throw callbackFailure;
        }
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
        leave(revoked, Change.REVOKED);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> lost) {
        leave(lost, Change.LOST);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
        // Kafka calls this after every completed rebalance, with an empty collection when nothing
        // new was assigned: the first call means the consumer has joined its group.
        joined = true;
        int[] added = new int[assigned.size()];
        int n = 0;
        for (TopicPartition tp : assigned) {
            int id = partitions.claim(tp);
            if (id >= 0) {
                added[n++] = id;
            }
        }
        if (n == 0) {
            return;
        }
        // Before the engine sees the partitions: their identities (dedup tokens) name the topic id.
        topicIds.resolve(assigned);
        if (lanePaused.getAsBoolean()) {
            consumer.pause(assigned);
        } else {
            // A new assignment starts unpaused, whatever pausePartition did to an earlier one (the
            // consumer drops a revoked partition's pause, but not every Consumer does).
            List<TopicPartition> fresh = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                fresh.add(partitions.get(added[i]).topicPartition);
            }
            consumer.resume(fresh);
        }
        forward(Change.ASSIGNED, Arrays.copyOf(added, n));
    }

    private void leave(Collection<TopicPartition> gone, Change change) {
        List<AssignedPartition> leaving = new ArrayList<>(gone.size());
        for (TopicPartition tp : gone) {
            AssignedPartition partition = partitions.get(tp);
            if (partition != null) {
                leaving.add(partition);
            }
        }
        if (leaving.isEmpty()) {
            return;
        }
        try {
            if (!closing) {
                int[] ids = new int[leaving.size()];
                for (int i = 0; i < ids.length; i++) {
                    ids[i] = leaving.get(i).id;
                }
                // Still owned while the listener drains and commits (the commit needs the epochs).
                forward(change, ids);
            }
        } finally {
            for (AssignedPartition partition : leaving) {
                partitions.release(partition);
            }
        }
    }

    private enum Change {
        ASSIGNED,
        REVOKED,
        LOST
    }

    private void forward(Change change, int[] ids) {
        if (callbackFailure != null) {
            return;
        }
        try {
            switch (change) {
                case ASSIGNED -> listener.onAssigned(ids);
                case REVOKED -> listener.onRevoked(ids);
                case LOST -> listener.onLost(ids);
            }
        } catch (RuntimeException e) {
            callbackFailure = e;
        }
    }
}
