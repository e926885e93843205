package dev.etl.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.etl.error.SinkWriteException;
import dev.etl.sink.DeadLetterEncoder;
import dev.etl.sink.DeadLetterRecord;
import dev.etl.sink.SealedBatch;
import dev.etl.sink.ShardWriter;
import dev.etl.sink.SinkDefinition;

/**
 * The {@link ShardWriter} of a Kafka dead-letter topic: decodes the records of a dead-letter batch
 * ({@link DeadLetterEncoder}) and produces each to the topic with its original key and value bytes
 * and the context headers ({@code etl.source.topic}, {@code etl.source.partition},
 * {@code etl.source.offset}, {@code etl.source.timestamp}, {@code etl.stage},
 * {@code etl.error.class}, {@code etl.error.message}, {@code etl.exception}).
 *
 * <p>Durability: the producer runs with {@code acks=all} and idempotence; {@link #write} sends every
 * record, flushes, and waits for every send's acknowledgement (bounded by the send timeout) before
 * returning, so a normal return means every record is in the topic's in-sync replicas and the
 * engine may commit their source offsets. A retried batch is sent again whole, so the topic can hold
 * a record twice (at-least-once).
 *
 * <p>Failures: retriable Kafka errors and timeouts are transient (the sink retries the batch);
 * authorization, authentication, unknown/invalid topic names, too-large records and unsupported
 * versions are permanent; other client errors are transient and replace the producer (a fenced or
 * out-of-sequence idempotent producer cannot be reused).
 *
 * <p>One writer per shard (a dead-letter sink has one), used by one io thread at a time.
 */
public final class KafkaDeadLetterWriter implements ShardWriter {
    private static final Logger log = LoggerFactory.getLogger(KafkaDeadLetterWriter.class);
    private static final String CLIENT = "dead-letter producer";
    /** Default bound on one {@link #write}'s wait for the broker's acknowledgements. */
    public static final Duration DEFAULT_SEND_TIMEOUT = Duration.ofSeconds(30);

    private final Map<String, Object> properties;
    private final String topic;
    private final Duration sendTimeout;
    private final Function<Map<String, Object>, Producer<byte[], byte[]>> producers;
    private Producer<byte[], byte[]> producer;

    /**
     * A writer producing to {@code topic}.
     *
     * @param producerProperties Kafka producer properties ({@code bootstrap.servers} required); see
     *                           {@link #producerProperties(Map, Duration)} for what is forced or refused
     * @throws KafkaConfigException naming a refused setting
     */
    public KafkaDeadLetterWriter(Map<String, ?> producerProperties, String topic, Duration sendTimeout) {
        this(producerProperties, topic, sendTimeout, KafkaProducer::new);
    }

    KafkaDeadLetterWriter(Map<String, ?> producerProperties, String topic, Duration sendTimeout,
            Function<Map<String, Object>, Producer<byte[], byte[]>> producers) {
        this.sendTimeout = requireTimeout(sendTimeout);
        this.properties = producerProperties(producerProperties, sendTimeout);
        this.topic = requireTopic(topic);
        this.producers = Objects.requireNonNull(producers, "producers");
    }

    /**
     * A one-shard dead-letter {@link SinkDefinition} named {@code name} writing to {@code topic}, for
     * {@code Pipeline.builder(..).deadLetter(..)}, with default batching and retries (transient
     * failures retried until the drain deadline). Settings are checked now.
     *
     * @throws KafkaConfigException naming a refused setting
     */
    public static SinkDefinition sink(String name, Map<String, ?> producerProperties, String topic,
            Duration sendTimeout) {
        Map<String, Object> checked = producerProperties(producerProperties, requireTimeout(sendTimeout));
        String checkedTopic = requireTopic(topic);
        return SinkDefinition.of(name, 1, shard -> new KafkaDeadLetterWriter(checked, checkedTopic, sendTimeout));
    }

    /**
     * The effective producer properties: {@code key.serializer}/{@code value.serializer} are
     * {@link ByteArraySerializer}, {@code acks} is {@code all} and {@code enable.idempotence} is
     * {@code true} (other values are refused, as is {@code transactional.id}), {@code max.block.ms}
     * defaults to the send timeout; everything else passes through.
     */
    public static Map<String, Object> producerProperties(Map<String, ?> given, Duration sendTimeout) {
        Map<String, Object> props = new LinkedHashMap<>(Objects.requireNonNull(given, "producerProperties"));
        Object servers = props.get(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG);
        if (servers == null || String.valueOf(servers).isBlank()) {
            throw new KafkaConfigException(CLIENT, ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "it is required");
        }
        Object acks = props.get(ProducerConfig.ACKS_CONFIG);
        if (acks != null && !"all".equals(String.valueOf(acks).trim()) && !"-1".equals(String.valueOf(acks).trim())) {
            throw new KafkaConfigException(CLIENT, ProducerConfig.ACKS_CONFIG, "must be 'all': a dead-lettered "
                    + "record's source offset is committed once the write returns, got " + acks);
        }
        Object idempotence = props.get(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG);
        if (idempotence != null && !"true".equalsIgnoreCase(String.valueOf(idempotence).trim())) {
            throw new KafkaConfigException(CLIENT, ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                    "must be true (retries within the producer must not duplicate or reorder), got " + idempotence);
        }
        if (props.containsKey(ProducerConfig.TRANSACTIONAL_ID_CONFIG)) {
            throw new KafkaConfigException(CLIENT, ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                    "the dead-letter writer does not use transactions");
        }
        requireByteArraySerializer(props, ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG);
        requireByteArraySerializer(props, ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.putIfAbsent(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(requireTimeout(sendTimeout).toMillis()));
        return props;
    }

    private static void requireByteArraySerializer(Map<String, Object> props, String key) {
        Object value = props.get(key);
        if (value == null) {
            return;
        }
        String name = value instanceof Class<?> c ? c.getName() : String.valueOf(value).trim();
        if (!ByteArraySerializer.class.getName().equals(name)) {
            throw new KafkaConfigException(CLIENT, key, "must be " + ByteArraySerializer.class.getName()
                    + " (the original bytes are written as they were polled), got " + value);
        }
    }

    private static String requireTopic(String topic) {
        if (topic == null || topic.isBlank()) {
            throw new KafkaConfigException(CLIENT, "topic", "the dead-letter topic must not be blank");
        }
        return topic;
    }

    private static Duration requireTimeout(Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("dead-letter send timeout must be > 0, got " + timeout);
        }
        return timeout;
    }

    /** The effective producer properties (diagnostics and tests). */
    public Map<String, Object> producerProperties() {
        return java.util.Collections.unmodifiableMap(properties);
    }

    /** The topic records are written to. */
    public String topic() {
        return topic;
    }

    @Override
    public void write(SealedBatch batch) throws SinkWriteException {
        List<DeadLetterRecord> records = DeadLetterEncoder.decode(batch);
        Producer<byte[], byte[]> producer = producer();
        List<Future<RecordMetadata>> sends = new ArrayList<>(records.size());
        try {
            for (DeadLetterRecord record : records) {
                RecordHeaders headers = new RecordHeaders();
                for (Map.Entry<String, String> header : record.headers().entrySet()) {
                    headers.add(new RecordHeader(header.getKey(), header.getValue().getBytes(StandardCharsets.UTF_8)));
                }
                sends.add(producer.send(new ProducerRecord<>(topic, null, null, record.key(), record.value(), headers)));
            }
            producer.flush();
            long deadlineNs = System.nanoTime() + sendTimeout.toNanos();
            for (Future<RecordMetadata> send : sends) {
                send.get(Math.max(0, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
        } catch (ExecutionException e) {
            throw classify(batch, e.getCause() != null ? e.getCause() : e);
        } catch (TimeoutException e) {
            throw SinkWriteException.transientFailure(describe(batch) + ": not acknowledged within " + sendTimeout, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw SinkWriteException.transientFailure(describe(batch) + ": interrupted while waiting for acks", e);
        } catch (RuntimeException e) {
            throw classify(batch, e);
        }
    }

    private Producer<byte[], byte[]> producer() throws SinkWriteException {
        if (producer == null) {
            try {
                producer = producers.apply(properties);
            } catch (RuntimeException e) {
                throw SinkWriteException.transientFailure("dead-letter topic '" + topic
                        + "': could not create the Kafka producer: " + e, e);
            }
        }
        return producer;
    }

    SinkWriteException classify(SealedBatch batch, Throwable error) {
        String message = describe(batch) + ": " + error;
        if (error instanceof RetriableException) {
            return SinkWriteException.transientFailure(message, error);
        }
        if (error instanceof AuthorizationException || error instanceof AuthenticationException
                || error instanceof InvalidTopicException || error instanceof RecordTooLargeException
                || error instanceof RecordBatchTooLargeException || error instanceof UnsupportedVersionException) {
            return SinkWriteException.permanentFailure(message, error);
        }
        if (error instanceof ApiException || error instanceof KafkaException || error instanceof IllegalStateException) {
            // Fenced, out of sequence, closed: this producer cannot go on; the retry gets a new one.
            resetProducer();
        }
        return SinkWriteException.transientFailure(message, error);
    }

    private String describe(SealedBatch batch) {
        return "dead-letter topic '" + topic + "' batch " + batch.sequence() + " (" + batch.rowCount()
                + " records, attempt " + batch.attempt() + ")";
    }

    private void resetProducer() {
        Producer<byte[], byte[]> old = producer;
        producer = null;
        if (old != null) {
            try {
                old.close(Duration.ZERO);
            } catch (RuntimeException e) {
                log.debug("closing the failed dead-letter producer", e);
            }
        }
    }

    @Override
    public void close() {
        Producer<byte[], byte[]> old = producer;
        producer = null;
        if (old != null) {
            old.close(Duration.ofSeconds(5));
        }
    }
}
