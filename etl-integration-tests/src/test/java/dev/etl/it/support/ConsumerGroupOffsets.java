package dev.etl.it.support;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * What a consumer group committed against what a topic holds: an at-least-once IT is done when the
 * two are equal. Each call asks the broker, bounded by 10 s.
 */
public final class ConsumerGroupOffsets {

    private static final long TIMEOUT_SECONDS = 10;

    private ConsumerGroupOffsets() {}

    /**
     * Offsets {@code group} committed, per partition that has one.
     * @param admin admin client of the broker
     * @param group the consumer group
     * @return committed offsets (the next offset to read)
     * @throws Exception if the broker does not answer within 10 s
     */
    public static Map<TopicPartition, Long> committed(Admin admin, String group) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        Map<TopicPartition, Long> out = new HashMap<>();
        offsets.forEach((tp, om) -> {
            if (om != null) {
                out.put(tp, om.offset());
            }
        });
        return out;
    }

    /**
     * End offsets of partitions {@code 0..partitions-1} of {@code topic}.
     * @param admin admin client of the broker
     * @param topic the topic
     * @param partitions its partition count
     * @return the offset after the last record, per partition
     * @throws Exception if the broker does not answer within 10 s
     */
    public static Map<TopicPartition, Long> endOffsets(Admin admin, String topic, int partitions) throws Exception {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            request.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        Map<TopicPartition, Long> out = new HashMap<>();
        admin.listOffsets(request)
                .all()
                .get(TIMEOUT_SECONDS, TimeUnit.SECONDS)
                .forEach((tp, info) -> out.put(tp, info.offset()));
        return out;
    }
}
