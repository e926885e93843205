package dev.etl.kafka;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The settings of a dead-letter writer, checked before any producer exists
 * ({@link KafkaDeadLetterWriter#producerProperties(Map, Duration)} states the contract): what would
 * weaken the write's durability or change the bytes written is refused with a
 * {@link KafkaConfigException} naming the key; the rest passes through. Stateless.
 */
final class DeadLetterProducerSettings {
    /** The client named in refusals and in the typo check. */
    static final String CLIENT = "dead-letter producer";

    private DeadLetterProducerSettings() {}

    /**
     * The effective producer properties: the given ones checked, with serializers, {@code acks},
     * idempotence forced and {@code max.block.ms} defaulted to the send timeout.
     *
     * @throws KafkaConfigException naming a refused setting
     * @throws IllegalArgumentException when the send timeout is not positive
     */
    static Map<String, Object> effective(Map<String, ?> given, Duration sendTimeout) {
        Map<String, Object> props = new LinkedHashMap<>(Objects.requireNonNull(given, "producerProperties"));
        KafkaSettingNames.check(props, ProducerConfig.configNames(), CLIENT);
        Object servers = props.get(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG);
        if (servers == null || String.valueOf(servers).isBlank()) {
            throw new KafkaConfigException(CLIENT, ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "it is required");
        }
        Object acks = props.get(ProducerConfig.ACKS_CONFIG);
        if (acks != null
                && !"all".equals(String.valueOf(acks).trim())
                && !"-1".equals(String.valueOf(acks).trim())) {
            throw new KafkaConfigException(
                    CLIENT,
                    ProducerConfig.ACKS_CONFIG,
                    "must be 'all': a dead-lettered "
                            + "record's source offset is committed once the write returns, got " + acks);
        }
        Object idempotence = props.get(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG);
        if (idempotence != null
                && !"true".equalsIgnoreCase(String.valueOf(idempotence).trim())) {
            throw new KafkaConfigException(
                    CLIENT,
                    ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                    "must be true (retries within the producer must not duplicate or reorder), got " + idempotence);
        }
        if (props.containsKey(ProducerConfig.TRANSACTIONAL_ID_CONFIG)) {
            throw new KafkaConfigException(
                    CLIENT, ProducerConfig.TRANSACTIONAL_ID_CONFIG, "the dead-letter writer does not use transactions");
        }
        requireByteArraySerializer(props, ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG);
        requireByteArraySerializer(props, ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.putIfAbsent(
                ProducerConfig.MAX_BLOCK_MS_CONFIG,
                Long.toString(requireTimeout(sendTimeout).toMillis()));
        return props;
    }

    private static void requireByteArraySerializer(Map<String, Object> props, String key) {
        Object value = props.get(key);
        if (value == null) {
            return;
        }
        String name = value instanceof Class<?> c
                ? c.getName()
                : String.valueOf(value).trim();
        if (!ByteArraySerializer.class.getName().equals(name)) {
            throw new KafkaConfigException(
                    CLIENT,
                    key,
                    "must be " + ByteArraySerializer.class.getName()
                            + " (the original bytes are written as they were polled), got " + value);
        }
    }

    /**
     * @throws KafkaConfigException when the topic is null or blank
     */
    static String requireTopic(String topic) {
        if (topic == null || topic.isBlank()) {
            throw new KafkaConfigException(CLIENT, "topic", "the dead-letter topic must not be blank");
        }
        return topic;
    }

    /**
     * @throws IllegalArgumentException when the send timeout is null, zero or negative
     */
    static Duration requireTimeout(Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("dead-letter send timeout must be > 0, got " + timeout);
        }
        return timeout;
    }
}
