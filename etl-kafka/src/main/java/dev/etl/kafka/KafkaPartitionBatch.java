package dev.etl.kafka;

import dev.etl.record.Payload;
import dev.etl.source.PartitionBatch;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The {@link PartitionBatch} flyweight of a Kafka lane: one instance per lane, re-{@link #wrap wrapped}
 * over {@code ConsumerRecords.records(tp)} for every (poll, partition). Iterates the list by index (no
 * iterator) and points its two {@link Payload}s at each record's key and value arrays (no copy).
 * Confined to the lane thread; valid only during the {@code onBatch} call it is passed to.
 */
final class KafkaPartitionBatch implements PartitionBatch {
    private final Payload key = new Payload();
    private final Payload value = new Payload();
    private List<ConsumerRecord<byte[], byte[]>> records;
    private ConsumerRecord<byte[], byte[]> current;
    private int partition;
    private int size;
    private int index;
    private long backlog = -1;

    /** Points the cursor before the first of {@code records} (non-empty, offset order). */
    KafkaPartitionBatch wrap(int partition, List<ConsumerRecord<byte[], byte[]>> records, long backlog) {
        this.partition = partition;
        this.backlog = backlog;
        this.records = records;
        this.size = records.size();
        this.index = -1;
        this.current = null;
        return this;
    }

    /** Drops the references to the poll's records, so they can be collected before the next poll. */
    void clear() {
        records = null;
        current = null;
        key.clear();
        value.clear();
        size = 0;
        backlog = -1;
    }

    /** The consumer's current lag of the partition after this batch (from its last fetch), or -1. */
    @Override
    public long backlog() {
        return backlog;
    }

    @Override
    public int partition() {
        return partition;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public long lastOffset() {
        return records.get(size - 1).offset();
    }

    @Override
    public boolean next() {
        if (++index >= size) {
            index = size;
            current = null;
            key.clear();
            value.clear();
            return false;
        }
        ConsumerRecord<byte[], byte[]> record = records.get(index);
        current = record;
        key.wrap(record.key());
        value.wrap(record.value());
        return true;
    }

    @Override
    public long offset() {
        return current.offset();
    }

    @Override
    public long timestampMs() {
        long ts = current.timestamp();
        return ts >= 0 ? ts : -1;
    }

    @Override
    public Payload key() {
        return key;
    }

    @Override
    public Payload value() {
        return value;
    }
}
