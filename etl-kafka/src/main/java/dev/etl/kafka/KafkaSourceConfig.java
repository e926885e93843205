package dev.etl.kafka;

import dev.etl.error.Secrets;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.jspecify.annotations.Nullable;

/**
 * Settings of a {@link KafkaSource}: the consumer properties (a plain map, as the Spring layer builds
 * it from {@code spring.kafka.consumer.*} and {@code etl.source.kafka.properties}), the topics (a
 * list or a pattern), and the source's own settings. Immutable; build with {@link #builder()}.
 *
 * <p>Validation happens in {@link Builder#build()}, and every refusal is a {@link KafkaConfigException}
 * naming the key:
 * <ul>
 *   <li>{@code group.id} and {@code bootstrap.servers} are required;</li>
 *   <li>{@code enable.auto.commit=true} is refused: the consumer would commit offsets of records not
 *       yet written to the sink. The source forces it to {@code false}; offsets are committed by the
 *       pipeline's checkpointer only;</li>
 *   <li>{@code key.deserializer} / {@code value.deserializer} other than {@link ByteArrayDeserializer}
 *       are refused: the source hands raw bytes to the chain, which deserializes them (so a bad
 *       payload is a record error under the stage's policy, not a poll failure);</li>
 *   <li>{@code group.protocol} must be {@code classic} (default) or {@code consumer} (KIP-848). With
 *       {@code classic}, {@code partition.assignment.strategy} defaults to
 *       {@link CooperativeStickyAssignor} and {@code group.remote.assignor} is refused; with
 *       {@code consumer}, assignment, session timeout and heartbeat interval are the broker's, so
 *       {@code partition.assignment.strategy}, {@code session.timeout.ms} and
 *       {@code heartbeat.interval.ms} are refused;</li>
 *   <li>{@code isolation.level} must be {@code read_uncommitted} or {@code read_committed} (both
 *       keep the guarantee);</li>
 *   <li>{@code group.instance.id} (static membership): each lane suffixes it
 *       ({@link #consumerProperties(int)}); a blank value means dynamic membership (the key is
 *       dropped), so {@code ${POD_NAME:}} turns it on only where the name is set.</li>
 * </ul>
 * Throughput defaults ({@link #THROUGHPUT_DEFAULTS}) are applied where a key is not given: Kafka's
 * own defaults (500 records per poll, 1 byte minimum fetch) hand the chain small batches that fill
 * the sink's 8192-row chunks and 100k-row batches slowly; the measurement is in
 * {@code docs/deployment/tuning.md}.
 * Everything else, SSL and SASL settings included, is passed to the consumer untouched. Secrets
 * never appear in {@link #toString()}: see {@link #redacted()}.
 */
public final class KafkaSourceConfig {
    /** Default {@code partition.assignment.strategy} under the classic protocol. */
    public static final String DEFAULT_ASSIGNOR = CooperativeStickyAssignor.class.getName();

    /**
     * Consumer settings applied when not given ({@code putIfAbsent}): {@code max.poll.records=5000},
     * {@code fetch.min.bytes=65536}, {@code fetch.max.wait.ms=100} (the bound on the broker's wait for
     * those 64 KiB: Kafka's 500 ms held every record of a moderate stream that long before the pipeline
     * saw it; a backlog has its 64 KiB at once and never waits), {@code max.partition.fetch.bytes=2097152}.
     * Any explicit value wins.
     */
    public static final Map<String, Object> THROUGHPUT_DEFAULTS = Map.of(
            ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
            5000,
            ConsumerConfig.FETCH_MIN_BYTES_CONFIG,
            64 * 1024,
            ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG,
            100,
            ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG,
            2 * 1024 * 1024);

    private static final String REDACTED = "[redacted]";
    /** Settings that must differ per consumer; each lane's value is suffixed {@code -lane-<i>}. */
    private static final List<String> PER_LANE_KEYS =
            List.of(ConsumerConfig.CLIENT_ID_CONFIG, ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);

    private final Map<String, Object> consumerProperties;
    private final List<String> topics;
    private final Pattern topicPattern;
    private final String pipeline;
    private final MeterRegistry meterRegistry;
    private final Duration commitTimeout;
    private final Duration closeTimeout;
    private final Duration lagSampleInterval;
    private final Duration unreachableAfter;
    private final boolean consumerProtocol;

    private KafkaSourceConfig(Builder b, SourceConsumerProperties consumer) {
        this.consumerProperties = consumer.properties();
        this.topics = List.copyOf(b.topics);
        this.topicPattern = b.topicPattern;
        this.pipeline = b.pipeline;
        this.meterRegistry = b.meterRegistry != null ? b.meterRegistry : new SimpleMeterRegistry();
        this.commitTimeout = b.commitTimeout;
        this.closeTimeout = b.closeTimeout;
        this.lagSampleInterval = b.lagSampleInterval;
        this.unreachableAfter = b.unreachableAfter;
        this.consumerProtocol = consumer.consumerProtocol();
    }

    /** A builder with no properties, no topics, and the documented defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** The validated consumer properties, with the forced settings applied. Unmodifiable. */
    public Map<String, Object> consumerProperties() {
        return consumerProperties;
    }

    /**
     * The consumer properties of lane {@code laneIndex}: {@link #consumerProperties()} with
     * {@code client.id} and {@code group.instance.id}, when set, suffixed {@code -lane-<i>}. Client ids
     * must differ per consumer for their JMX metrics not to collide; static member ids must differ per
     * consumer or the lanes of one process fence each other (the broker keeps one member per
     * {@code group.instance.id}).
     */
    public Map<String, Object> consumerProperties(int laneIndex) {
        Map<String, Object> copy = null;
        for (String key : PER_LANE_KEYS) {
            Object value = consumerProperties.get(key);
            if (value != null && !value.toString().isBlank()) {
                if (copy == null) {
                    copy = new LinkedHashMap<>(consumerProperties);
                }
                copy.put(key, value.toString().trim() + "-lane-" + laneIndex);
            }
        }
        return copy != null ? copy : consumerProperties;
    }

    /** The {@code group.instance.id} of lane {@code laneIndex}, or null without static membership. */
    public @Nullable String groupInstanceId(int laneIndex) {
        Object id = consumerProperties(laneIndex).get(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
        return id == null ? null : id.toString();
    }

    /** Subscribed topics, when subscribing by list; empty when subscribing by {@link #topicPattern()}. */
    public List<String> topics() {
        return topics;
    }

    /** Subscription pattern, or null when subscribing by {@link #topics()}. */
    public @Nullable Pattern topicPattern() {
        return topicPattern;
    }

    /** The consumer group every lane joins ({@code group.id}). */
    public String groupId() {
        return consumerProperties.get(ConsumerConfig.GROUP_ID_CONFIG).toString();
    }

    /** Whether the group uses the KIP-848 consumer protocol ({@code group.protocol=consumer}). */
    public boolean consumerProtocol() {
        return consumerProtocol;
    }

    /** Value of the {@code pipeline} tag on the source's metrics. */
    public String pipeline() {
        return pipeline;
    }

    /** Where the source registers its meters. */
    public MeterRegistry meterRegistry() {
        return meterRegistry;
    }

    /** Bound on one synchronous commit (at revoke and shutdown). */
    public Duration commitTimeout() {
        return commitTimeout;
    }

    /** Bound on closing a lane's consumer (leaving the group). */
    public Duration closeTimeout() {
        return closeTimeout;
    }

    /** How often a lane samples the lag of its partitions for {@code etl_source_lag_records}. */
    public Duration lagSampleInterval() {
        return lagSampleInterval;
    }

    /**
     * How long a lane may go without contact with its group (not joined since it opened, or no
     * heartbeat) before {@code etl_source_broker_unreachable} turns 1 and a WARN naming the bootstrap
     * servers is logged (repeated at this interval while it lasts).
     */
    public Duration unreachableAfter() {
        return unreachableAfter;
    }

    /** The {@code bootstrap.servers} setting, for messages. */
    public String bootstrapServers() {
        return String.valueOf(consumerProperties.get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG));
    }

    /** The subscription for logs: {@code [orders, payments]} or {@code /orders-.*}{@code /}. */
    public String subscription() {
        return topicPattern != null ? "/" + topicPattern.pattern() + "/" : topics.toString();
    }

    /** The consumer properties with every secret value replaced by {@code [redacted]}, sorted by key. */
    public Map<String, Object> redacted() {
        Map<String, Object> out = new TreeMap<>();
        consumerProperties.forEach((k, v) -> out.put(k, isSecret(k) ? REDACTED : v));
        return out;
    }

    /**
     * Whether the value of {@code key} is a secret: Kafka declares it a password, or its name says so
     * ({@link Secrets#isSecretKey}: password, secret, jaas, credential, token, api key, private key).
     * Over-redacting is harmless.
     */
    public static boolean isSecret(String key) {
        ConfigDef.ConfigKey known = ConsumerConfig.configDef().configKeys().get(key);
        if (known != null && known.type == ConfigDef.Type.PASSWORD) {
            return true;
        }
        return Secrets.isSecretKey(key);
    }

    /** Safe to log: secrets are redacted. */
    @Override
    public String toString() {
        return "KafkaSourceConfig{subscription=" + subscription() + ", pipeline=" + pipeline + ", commitTimeout="
                + commitTimeout + ", closeTimeout=" + closeTimeout + ", lagSampleInterval=" + lagSampleInterval
                + ", properties=" + redacted() + "}";
    }

    /** Collects settings; {@link #build()} validates them. Not thread-safe. */
    public static final class Builder {
        private final Map<String, Object> properties = new LinkedHashMap<>();
        private final List<String> topics = new ArrayList<>();
        private Pattern topicPattern;
        private String pipeline = "default";
        private MeterRegistry meterRegistry;
        private Duration commitTimeout = Duration.ofSeconds(30);
        private Duration closeTimeout = Duration.ofSeconds(10);
        private Duration lagSampleInterval = Duration.ofSeconds(1);
        private Duration unreachableAfter = Duration.ofSeconds(30);

        private Builder() {}

        /** Adds consumer properties (later calls override earlier keys). Null values remove the key. */
        public Builder properties(Map<String, ? extends @Nullable Object> properties) {
            properties.forEach(this::property);
            return this;
        }

        /** Sets one consumer property; a null value removes it. */
        public Builder property(String key, @Nullable Object value) {
            Objects.requireNonNull(key, "key");
            if (value == null) {
                properties.remove(key);
            } else {
                properties.put(key, value);
            }
            return this;
        }

        /** Subscribes to these topics (replacing a pattern). */
        public Builder topics(Collection<String> topics) {
            this.topics.clear();
            this.topics.addAll(topics);
            this.topicPattern = null;
            return this;
        }

        /** Subscribes to these topics (replacing a pattern). */
        public Builder topics(String... topics) {
            return topics(List.of(topics));
        }

        /** Subscribes to every topic matching {@code pattern}, now and later (replacing a list). */
        public Builder topicPattern(Pattern pattern) {
            this.topicPattern = Objects.requireNonNull(pattern, "pattern");
            this.topics.clear();
            return this;
        }

        /** The {@code pipeline} tag of the source's metrics (use the pipeline's name). */
        public Builder pipeline(String pipeline) {
            this.pipeline = Objects.requireNonNull(pipeline, "pipeline");
            return this;
        }

        /** Where the source registers its metrics; a private {@code SimpleMeterRegistry} when unset. */
        public Builder meterRegistry(@Nullable MeterRegistry meterRegistry) {
            this.meterRegistry = meterRegistry;
            return this;
        }

        /** Bound on one synchronous commit (revoke, shutdown); default 30 s. */
        public Builder commitTimeout(Duration commitTimeout) {
            this.commitTimeout = commitTimeout;
            return this;
        }

        /** Bound on closing a lane's consumer (leaving the group); default 10 s. */
        public Builder closeTimeout(Duration closeTimeout) {
            this.closeTimeout = closeTimeout;
            return this;
        }

        /** How often a lane samples its partitions' lag for the lag gauge; default 1 s. */
        public Builder lagSampleInterval(Duration lagSampleInterval) {
            this.lagSampleInterval = lagSampleInterval;
            return this;
        }

        /** See {@link KafkaSourceConfig#unreachableAfter()}; default 30 s. */
        public Builder unreachableAfter(Duration unreachableAfter) {
            this.unreachableAfter = unreachableAfter;
            return this;
        }

        /**
         * Validates and builds.
         *
         * @throws KafkaConfigException naming the first refused setting and why
         */
        public KafkaSourceConfig build() {
            SourceConsumerProperties consumer = SourceConsumerProperties.of(properties);
            validateSubscription();
            positive(commitTimeout, "commit-timeout");
            positive(closeTimeout, "close-timeout");
            positive(lagSampleInterval, "lag-sample-interval");
            positive(unreachableAfter, "unreachable-after");
            return new KafkaSourceConfig(this, consumer);
        }

        private void validateSubscription() {
            if (topicPattern == null && topics.isEmpty()) {
                throw new KafkaConfigException(
                        "topics", "no topics and no topic pattern: the source needs one of them");
            }
            for (String topic : topics) {
                if (topic == null || topic.isBlank()) {
                    throw new KafkaConfigException("topics", "contains a blank topic name: " + topics);
                }
            }
        }

        private static void positive(Duration d, String key) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new KafkaConfigException(key, "must be > 0, got " + d);
            }
        }
    }
}
