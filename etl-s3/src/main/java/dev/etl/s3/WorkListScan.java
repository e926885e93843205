package dev.etl.s3;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * What a work topic holds, read with {@code isolation.level=read_committed}: per partition the offset
 * after its last work item, and the count. The planner writes a list in one transaction, so a list that
 * was not written to its end (the planner died) is invisible here and to the lanes, and the extent does
 * not count transaction markers. Work lists are small (a record per split), so the scan reads them whole.
 */
final class WorkListScan {
    /** A work topic's content: items per partition and the offset after each partition's last item. */
    record Extent(Map<TopicPartition, Long> afterLast, Map<TopicPartition, Long> earliest, long items) {
        /** Partitions whose first offset is above 0: records were deleted (retention, DeleteRecords). */
        Optional<TopicPartition> truncated() {
            return earliest.entrySet().stream()
                    .filter(e -> e.getValue() > 0)
                    .map(Map.Entry::getKey)
                    .findFirst();
        }
    }

    private WorkListScan() {}

    /**
     * The last stable offsets; with {@code wait}, once they equal the high watermarks (no transaction
     * open: a planner's commit markers are written after its commit returns).
     */
    private static Map<TopicPartition, Long> stableEnd(
            KafkaConsumer<byte[], byte[]> committed,
            List<TopicPartition> partitions,
            Map<String, Object> kafka,
            String topic,
            boolean wait,
            long deadline) {
        Map<TopicPartition, Long> lso = committed.endOffsets(partitions);
        if (!wait) {
            return lso;
        }
        Map<String, Object> settings = KafkaClientSettings.groupless(kafka, "backfill-scan-all", "read_uncommitted");
        try (KafkaConsumer<byte[], byte[]> all =
                new KafkaConsumer<>(settings, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            while (true) {
                Map<TopicPartition, Long> hw = all.endOffsets(partitions);
                if (hw.equals(lso)) {
                    return lso;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("a transaction is still open on the work topic " + topic
                            + " (a planner writing its list, or one that died: the broker aborts it after the"
                            + " transaction timeout); start the backfill once the plan has finished");
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted waiting for the work list", e);
                }
                lso = committed.endOffsets(partitions);
            }
        }
    }

    /**
     * Scans {@code topic}; empty when it does not exist.
     *
     * @throws IllegalStateException when it cannot be read to its end within {@code timeout}
     */
    static Optional<Extent> scan(Map<String, Object> kafka, String topic, Duration timeout) {
        return scan(kafka, topic, timeout, true);
    }

    /**
     * Scans {@code topic}; empty when it does not exist.
     *
     * @param waitForOpenTransactions wait (up to {@code timeout}) until no transaction is open on the
     *     topic — a planner's list whose commit markers are still being written — instead of reading only
     *     what is committed now
     * @throws IllegalStateException when it cannot be read to its end within {@code timeout}
     */
    static Optional<Extent> scan(
            Map<String, Object> kafka, String topic, Duration timeout, boolean waitForOpenTransactions) {
        Map<String, Object> settings = KafkaClientSettings.groupless(kafka, "backfill-scan", "read_committed");
        settings.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            return read(settings, kafka, topic, timeout, waitForOpenTransactions, deadline);
        } catch (org.apache.kafka.common.KafkaException e) {
            throw new IllegalStateException("cannot read the work topic " + topic + ": " + e, e);
        }
    }

    private static Optional<Extent> read(
            Map<String, Object> settings,
            Map<String, Object> kafka,
            String topic,
            Duration timeout,
            boolean waitForOpenTransactions,
            long deadline) {
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(settings, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<PartitionInfo> infos = consumer.listTopics().get(topic); // bounded by default.api.timeout.ms
            if (infos == null || infos.isEmpty()) {
                return Optional.empty();
            }
            List<TopicPartition> partitions = infos.stream()
                    .map(p -> new TopicPartition(topic, p.partition()))
                    .toList();
            consumer.assign(partitions);
            Map<TopicPartition, Long> earliest = new HashMap<>(consumer.beginningOffsets(partitions));
            Map<TopicPartition, Long> end =
                    stableEnd(consumer, partitions, kafka, topic, waitForOpenTransactions, deadline);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> afterLast = new HashMap<>();
            long items = 0;
            while (true) {
                boolean atEnd = true;
                for (TopicPartition tp : partitions) {
                    if (consumer.position(tp) < end.get(tp)) {
                        atEnd = false;
                        break;
                    }
                }
                if (atEnd) {
                    break;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            "cannot read the work topic " + topic + " to its end within " + timeout);
                }
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    afterLast.merge(new TopicPartition(r.topic(), r.partition()), r.offset() + 1, Math::max);
                    items++;
                }
            }
            return Optional.of(new Extent(afterLast, earliest, items));
        }
    }
}
