package dev.etl.kafka;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The consumer properties of a {@link KafkaSource}, checked and completed: the rules are the ones
 * {@link KafkaSourceConfig} lists (required group and brokers, no auto-commit, byte-array
 * deserializers, a known isolation level, the group protocol's own restrictions), applied in that
 * order, the first refusal thrown as a {@link KafkaConfigException} naming the key. Forced settings
 * and {@link KafkaSourceConfig#THROUGHPUT_DEFAULTS} are applied; a blank {@code group.instance.id}
 * is dropped (dynamic membership).
 *
 * <p>Immutable once built.
 */
final class SourceConsumerProperties {
    private static final String BYTES = ByteArrayDeserializer.class.getName();

    private final Map<String, Object> properties;
    private final boolean consumerProtocol;

    private SourceConsumerProperties(Map<String, Object> properties, boolean consumerProtocol) {
        this.properties = properties;
        this.consumerProtocol = consumerProtocol;
    }

    /**
     * Checks and completes a copy of {@code given}.
     *
     * @throws KafkaConfigException naming the first refused setting and why
     */
    static SourceConsumerProperties of(Map<String, ?> given) {
        Map<String, Object> p = new LinkedHashMap<>(given);
        KafkaSettingNames.check(p, ConsumerConfig.configNames(), "source");
        required(
                p,
                ConsumerConfig.GROUP_ID_CONFIG,
                "a consumer group is how lanes and instances share partitions " + "and where offsets are committed");
        required(p, ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "the consumer needs brokers to connect to");
        refuseAutoCommit(p);
        Object instanceId = p.get(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
        if (instanceId != null && instanceId.toString().isBlank()) {
            // "group.instance.id: ${POD_NAME:}" — static membership where the name is set, dynamic elsewhere.
            p.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
        }
        requireByteArrays(p, ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG);
        requireByteArrays(p, ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG);
        checkIsolationLevel(p);
        KafkaSourceConfig.THROUGHPUT_DEFAULTS.forEach(p::putIfAbsent);
        boolean consumerProtocol = applyGroupProtocol(p);
        return new SourceConsumerProperties(Collections.unmodifiableMap(p), consumerProtocol);
    }

    /** The checked properties, with the forced settings applied. Unmodifiable. */
    Map<String, Object> properties() {
        return properties;
    }

    /** Whether the group uses the KIP-848 consumer protocol ({@code group.protocol=consumer}). */
    boolean consumerProtocol() {
        return consumerProtocol;
    }

    private static void required(Map<String, Object> p, String key, String why) {
        Object v = p.get(key);
        if (v == null || v.toString().isBlank()) {
            throw new KafkaConfigException(key, "it is required (" + why + ")");
        }
    }

    private static void refuseAutoCommit(Map<String, Object> p) {
        Object v = p.get(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG);
        if (v != null && !"false".equalsIgnoreCase(v.toString().trim())) {
            throw new KafkaConfigException(
                    ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                    "must be false (got '" + v
                            + "'): auto-commit would commit offsets of records not yet written to the sink and break "
                            + "at-least-once; the pipeline commits its own watermarks");
        }
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    }

    private static void requireByteArrays(Map<String, Object> p, String key) {
        Object v = p.get(key);
        String name = v instanceof Class<?> c
                ? c.getName()
                : v == null ? BYTES : v.toString().trim();
        if (!BYTES.equals(name)) {
            throw new KafkaConfigException(
                    key,
                    "must be " + BYTES + " (got '" + name + "'): the source hands raw "
                            + "bytes to the chain, whose Deserializer decodes them under the stage's error policy");
        }
        p.put(key, BYTES);
    }

    private static void checkIsolationLevel(Map<String, Object> p) {
        Object v = p.get(ConsumerConfig.ISOLATION_LEVEL_CONFIG);
        if (v == null) {
            return;
        }
        String level = v.toString().trim().toLowerCase(Locale.ROOT);
        if (!level.equals("read_committed") && !level.equals("read_uncommitted")) {
            throw new KafkaConfigException(
                    ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                    "must be read_committed or read_uncommitted, got '" + v + "'");
        }
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, level);
    }

    /** Returns whether the KIP-848 consumer protocol is used. */
    private static boolean applyGroupProtocol(Map<String, Object> p) {
        Object v = p.get(ConsumerConfig.GROUP_PROTOCOL_CONFIG);
        String protocol = v == null ? "classic" : v.toString().trim().toLowerCase(Locale.ROOT);
        switch (protocol) {
            case "classic":
                if (p.get(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG) != null) {
                    throw new KafkaConfigException(
                            ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG,
                            "only applies to group.protocol=consumer (KIP-848); under the classic protocol use "
                                    + "partition.assignment.strategy");
                }
                p.putIfAbsent(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, KafkaSourceConfig.DEFAULT_ASSIGNOR);
                return false;
            case "consumer":
                for (String key : List.of(
                        ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
                        ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG,
                        ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG)) {
                    if (p.get(key) != null) {
                        throw new KafkaConfigException(
                                key,
                                "is not supported with group.protocol=consumer "
                                        + "(KIP-848): assignment, session timeout and heartbeat interval are set on the "
                                        + "broker (group.consumer.*); choose a server-side assignor with "
                                        + "group.remote.assignor");
                    }
                }
                p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
                return true;
            default:
                throw new KafkaConfigException(
                        ConsumerConfig.GROUP_PROTOCOL_CONFIG, "must be classic or consumer, got '" + v + "'");
        }
    }
}
