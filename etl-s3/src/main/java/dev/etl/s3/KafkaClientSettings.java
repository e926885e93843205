package dev.etl.s3;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;

/** Admin and producer settings derived from the work topic's consumer settings (same brokers, same security). */
final class KafkaClientSettings {
    private KafkaClientSettings() {}

    static Map<String, Object> admin(Map<String, Object> consumer, String clientIdSuffix) {
        Map<String, Object> admin = only(consumer, AdminClientConfig.configNames());
        Object clientId = consumer.get(AdminClientConfig.CLIENT_ID_CONFIG);
        admin.put(AdminClientConfig.CLIENT_ID_CONFIG, (clientId == null ? "etl" : clientId) + "-" + clientIdSuffix);
        return admin;
    }

    /**
     * Settings of a consumer outside the group (assigned partitions, no commits), reading with
     * {@code isolationLevel}.
     */
    static Map<String, Object> groupless(Map<String, Object> consumer, String clientIdSuffix, String isolationLevel) {
        Map<String, Object> out = only(consumer, ConsumerConfig.configNames());
        out.remove(ConsumerConfig.GROUP_ID_CONFIG);
        out.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
        out.remove(ConsumerConfig.GROUP_PROTOCOL_CONFIG);
        Object clientId = consumer.get(ConsumerConfig.CLIENT_ID_CONFIG);
        out.put(ConsumerConfig.CLIENT_ID_CONFIG, (clientId == null ? "etl" : clientId) + "-" + clientIdSuffix);
        out.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        out.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolationLevel);
        return out;
    }

    static Map<String, Object> producer(Map<String, Object> consumer, String clientIdSuffix) {
        Map<String, Object> producer = only(consumer, ProducerConfig.configNames());
        Object clientId = consumer.get(ProducerConfig.CLIENT_ID_CONFIG);
        producer.put(ProducerConfig.CLIENT_ID_CONFIG, (clientId == null ? "etl" : clientId) + "-" + clientIdSuffix);
        producer.put(ProducerConfig.ACKS_CONFIG, "all");
        producer.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        producer.remove(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
        return producer;
    }

    private static Map<String, Object> only(Map<String, Object> settings, Set<String> names) {
        Map<String, Object> out = new LinkedHashMap<>();
        settings.forEach((k, v) -> {
            if (names.contains(k)) {
                out.put(k, v);
            }
        });
        return out;
    }
}
