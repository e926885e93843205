package dev.etl.kafka;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The startup check of a dead-letter topic ({@link KafkaDeadLetterWriter#checkTopic}): an
 * {@link Admin} client built from the producer properties (producer-only settings removed, its own
 * {@code client.id} suffixed {@code -dead-letter-check}, timeouts bounded by the check timeout)
 * describes the topic and its {@code max.message.bytes}.
 *
 * <p>A topic the broker says does not exist is a {@link KafkaConfigException}; a broker that does not
 * answer in time, refuses, or answers something unreadable is logged at WARN and the check passes
 * without a limit. Called on the thread that creates the writer; the Admin client is closed before
 * it returns.
 */
final class DeadLetterTopicCheck {
    /** The writer's category: what operators configure for the dead-letter messages. */
    private static final Logger log = LoggerFactory.getLogger(KafkaDeadLetterWriter.class);

    private DeadLetterTopicCheck() {}

    /**
     * @return the topic's {@code max.message.bytes} when the broker tells it, else empty
     * @throws KafkaConfigException when the broker answers that the topic does not exist
     * @throws IllegalStateException when interrupted (the interrupt flag is kept)
     */
    static OptionalInt run(Map<String, ?> producerProperties, String topic, Duration timeout) {
        Map<String, Object> adminProps = new LinkedHashMap<>(producerProperties);
        Object clientId = adminProps.get(ProducerConfig.CLIENT_ID_CONFIG);
        adminProps.put(
                AdminClientConfig.CLIENT_ID_CONFIG, (clientId == null ? "etl" : clientId) + "-dead-letter-check");
        adminProps.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        adminProps.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(timeout.toMillis(), 30_000));
        for (String producerOnly : List.of(
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                ProducerConfig.ACKS_CONFIG,
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                ProducerConfig.MAX_BLOCK_MS_CONFIG)) {
            adminProps.remove(producerOnly);
        }
        Object servers = adminProps.get(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG);
        try (Admin admin = Admin.create(adminProps)) {
            admin.describeTopics(List.of(topic)).allTopicNames().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            Config config = admin.describeConfigs(List.of(resource))
                    .all()
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
                    .get(resource);
            ConfigEntry entry = config == null ? null : config.get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG);
            if (entry != null && entry.value() != null) {
                return OptionalInt.of(Integer.parseInt(entry.value().trim()));
            }
            return OptionalInt.empty();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                throw new KafkaConfigException(
                        DeadLetterProducerSettings.CLIENT,
                        "topic",
                        "the dead-letter topic '"
                                + topic + "' does not exist on " + servers
                                + ". Create it before starting (the producer never creates it; "
                                + "size its partitions and retention as in docs/connectors/kafka.md#dead-letter-topic), "
                                + "or fix the topic name");
            }
            log.warn(
                    "dead-letter topic '{}': could not check that it exists on {} ({}); starting anyway",
                    topic,
                    servers,
                    String.valueOf(e.getCause()));
        } catch (TimeoutException e) {
            log.warn(
                    "dead-letter topic '{}': the brokers {} did not answer within {}; could not check that it "
                            + "exists, starting anyway",
                    topic,
                    servers,
                    timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while checking the dead-letter topic '" + topic + "'", e);
        } catch (KafkaException | NumberFormatException e) {
            log.warn(
                    "dead-letter topic '{}': could not check that it exists on {} ({}); starting anyway",
                    topic,
                    servers,
                    e.toString());
        }
        return OptionalInt.empty();
    }
}
