package dev.etl.kafka;

import dev.etl.error.SourceException;
import dev.etl.source.PartitionListener;
import dev.etl.source.Source;
import dev.etl.source.SourceLane;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kafka {@link Source}: every lane gets its own {@link KafkaConsumer}, created on the lane's thread
 * in {@link #openLane}, all in one consumer group and subscribed to the same topics (a list or a
 * pattern), so the group coordinator spreads partitions over the lanes of this process and over the
 * other instances of the service.
 *
 * <pre>{@code
 * KafkaSource source = new KafkaSource(KafkaSourceConfig.builder()
 *         .properties(Map.of("bootstrap.servers", "broker:9092", "group.id", "orders-etl"))
 *         .topics("orders", "refunds")
 *         .pipeline("orders").meterRegistry(registry)
 *         .build());
 * Pipeline.builder(pipelineConfig).source(source)...build().start();
 * }</pre>
 *
 * <p>Partition ids are dense and stable for the life of this object ({@link #partitionIds()}).
 * Thread-safe: lanes open concurrently. See {@link KafkaSourceLane} for the poll loop, rebalance and
 * commit semantics, and {@code docs/connectors/kafka.md} for configuration.
 */
public final class KafkaSource implements Source {
    private static final Logger log = LoggerFactory.getLogger(KafkaSource.class);
    /** How long a lane waits for the topic ids of a new assignment's topics before naming them without. */
    private static final java.time.Duration TOPIC_ID_TIMEOUT = java.time.Duration.ofSeconds(10);

    private final KafkaSourceConfig config;
    private final Function<Map<String, Object>, Consumer<byte[], byte[]>> consumerFactory;
    private final TopicPartitionIds ids = new TopicPartitionIds();
    private final PartitionLagGauges lagGauges;
    private final TopicIds topicIds;

    /** A source whose lanes create real {@link KafkaConsumer}s from {@code config}. */
    public KafkaSource(KafkaSourceConfig config) {
        this(
                config,
                props -> new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer()),
                TopicIds.admin(config.consumerProperties(0), config.groupId(), TOPIC_ID_TIMEOUT));
    }

    /** With a consumer factory (tests: kafka-clients' {@code MockConsumer}); partitions are named without topic ids. */
    KafkaSource(KafkaSourceConfig config, Function<Map<String, Object>, Consumer<byte[], byte[]>> consumerFactory) {
        this(config, consumerFactory, new TopicIds(TopicIds.NONE, config.groupId()));
    }

    KafkaSource(
            KafkaSourceConfig config,
            Function<Map<String, Object>, Consumer<byte[], byte[]>> consumerFactory,
            TopicIds topicIds) {
        this.config = Objects.requireNonNull(config, "config");
        this.consumerFactory = consumerFactory;
        this.lagGauges = new PartitionLagGauges(config.meterRegistry(), config.pipeline());
        this.topicIds = topicIds;
    }

    /**
     * Creates lane {@code laneIndex}'s consumer and subscribes it. Called on the lane's thread; the
     * consumer is used only there (except {@link SourceLane#wakeup()}).
     *
     * @throws SourceException if the consumer cannot be created (bad settings, unresolvable brokers)
     */
    @Override
    public SourceLane openLane(int laneIndex, PartitionListener listener) {
        Consumer<byte[], byte[]> consumer;
        try {
            consumer = consumerFactory.apply(config.consumerProperties(laneIndex));
        } catch (KafkaException e) {
            throw new SourceException(
                    "cannot create the Kafka consumer of lane " + laneIndex + " for " + describe() + ": "
                            + e.getMessage(),
                    e);
        }
        KafkaSourceLane lane = new KafkaSourceLane(
                consumer,
                laneIndex,
                listener,
                ids,
                topicIds,
                lagGauges,
                new KafkaLaneMetrics(config.meterRegistry(), config.pipeline(), laneIndex),
                config);
        try {
            lane.subscribe();
        } catch (RuntimeException e) {
            lane.close();
            throw new SourceException(
                    "lane " + laneIndex + " cannot subscribe to " + config.subscription() + ": " + e, e);
        }
        log.info(
                "pipeline={} lane={} subscribed to {} in group {} (protocol {})",
                config.pipeline(),
                laneIndex,
                config.subscription(),
                config.groupId(),
                config.consumerProtocol() ? "consumer" : "classic");
        return lane;
    }

    /** {@code kafka[orders, refunds] group=orders-etl}; never includes secrets. */
    @Override
    public String describe() {
        String topics = config.topicPattern() != null ? config.subscription() : String.join(", ", config.topics());
        return "kafka[" + topics + "] group=" + config.groupId();
    }

    /** The dense id registry shared by this source's lanes. */
    public TopicPartitionIds partitionIds() {
        return ids;
    }

    /** The validated settings (safe to log: secrets redacted in its {@code toString}). */
    public KafkaSourceConfig config() {
        return config;
    }

    /** Removes the lag gauges. The lanes close their own consumers before this is called. */
    @Override
    public void close() {
        lagGauges.close();
        topicIds.close();
    }

    @Override
    public String toString() {
        return describe();
    }
}
