package dev.etl.kafka;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;

/**
 * The dense partition ids of one {@link KafkaSource}: every {@link TopicPartition} any lane sees gets
 * the next int (0, 1, 2, …) the first time, and keeps it for the life of the source, so the engine's
 * per-partition state can live in primitive-keyed maps and a partition that moves between lanes keeps
 * its id.
 *
 * <p>Thread-safe: lanes register partitions concurrently from their rebalance callbacks, and any
 * thread may name an id. Lookups of known partitions take no lock.
 */
public final class TopicPartitionIds {
    private final ConcurrentHashMap<TopicPartition, Integer> ids = new ConcurrentHashMap<>();
    /** Index = id. Replaced (never mutated in place once published) when it grows; see {@link #idOf}. */
    private volatile TopicPartition[] byId = new TopicPartition[16];

    private int next; // guarded by this

    /** The id of {@code partition}, assigning the next free one the first time it is seen. */
    public int idOf(TopicPartition partition) {
        Integer id = ids.get(partition);
        return id != null ? id : register(partition);
    }

    private synchronized int register(TopicPartition partition) {
        Integer existing = ids.get(partition);
        if (existing != null) {
            return existing;
        }
        int id = next++;
        TopicPartition[] current = byId;
        TopicPartition[] updated = id < current.length ? current : Arrays.copyOf(current, current.length * 2);
        updated[id] = partition;
        // Publish the array before the id: whoever learns the id through the map (a release/acquire
        // pair) then also sees the array entry.
        byId = updated;
        ids.put(partition, id);
        return id;
    }

    /**
     * The partition behind {@code id}.
     *
     * @throws IllegalArgumentException if this source never assigned {@code id}
     */
    public TopicPartition topicPartition(int id) {
        TopicPartition[] current = byId;
        TopicPartition tp = id >= 0 && id < current.length ? current[id] : null;
        if (tp == null) {
            throw new IllegalArgumentException("unknown partition id " + id + " (" + size() + " partitions known)");
        }
        return tp;
    }

    /** {@code topic-partition}, e.g. {@code orders-3}; {@code #<id>} for an unknown id. */
    public String describe(int id) {
        TopicPartition[] current = byId;
        TopicPartition tp = id >= 0 && id < current.length ? current[id] : null;
        return tp != null ? tp.topic() + "-" + tp.partition() : "#" + id;
    }

    /** Number of partitions known so far. */
    public int size() {
        return ids.size();
    }
}
