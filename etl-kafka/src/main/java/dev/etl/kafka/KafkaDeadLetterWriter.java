package dev.etl.kafka;

import dev.etl.error.SinkWriteException;
import dev.etl.sink.DeadLetterEncoder;
import dev.etl.sink.DeadLetterRecord;
import dev.etl.sink.SealedBatch;
import dev.etl.sink.ShardWriter;
import dev.etl.sink.SinkDefinition;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
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
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * <p><b>Startup check</b> ({@link #sink(String, Map, String, Duration, Options)}): when the sink
 * creates its writer (at {@code PipelineRuntime.start()}), an {@link Admin} client describes the
 * topic. A topic that does not exist fails the start with a {@link KafkaConfigException} naming it
 * (the producer never creates it; without the check the first bad record would stall the pipeline
 * while every send waits for metadata). A broker that does not answer within the check timeout, or
 * refuses to describe the topic, is logged at WARN and the start goes on. The topic's
 * {@code max.message.bytes} lowers the size limit below.
 *
 * <p><b>Oversized records</b>: a record whose estimated size (key + value + headers + a fixed
 * overhead) exceeds the size limit — the smallest of {@link Options#maxRecordBytes()}, the producer's
 * {@code max.request.size} and {@code buffer.memory}, and the topic's {@code max.message.bytes} — is
 * not refused by Kafka and does not fail the pipeline: its value (then, if that is not enough, its
 * key) is cut to fit, and headers {@value #HEADER_TRUNCATED} ({@code value} or {@code key,value}),
 * {@value #HEADER_ORIGINAL_VALUE_BYTES} and {@value #HEADER_ORIGINAL_KEY_BYTES} say so. Counted in
 * {@code etl_dead_letter_truncated_total}; the original is still in the source topic at the offset in
 * {@code etl.source.offset} (until retention removes it).
 *
 * <p><b>Health</b>: after a failed write the writer reports unhealthy ({@link #isHealthy()}, so
 * readiness is not UP) until a write succeeds; every failed attempt counts in
 * {@code etl_dead_letter_write_failures_total}, and the first failure of a streak is logged at WARN.
 *
 * <p>One writer per shard (a dead-letter sink has one), used by one io thread at a time.
 */
public final class KafkaDeadLetterWriter implements ShardWriter {
    private static final Logger log = LoggerFactory.getLogger(KafkaDeadLetterWriter.class);
    /** Default bound on one {@link #write}'s wait for the broker's acknowledgements. */
    public static final Duration DEFAULT_SEND_TIMEOUT = Duration.ofSeconds(30);
    /** Default upper bound on one dead-letter record's size: Kafka's default {@code max.request.size}, 1 MiB. */
    public static final int DEFAULT_MAX_RECORD_BYTES = 1 << 20;
    /** Smallest accepted {@link Options#maxRecordBytes()}: the headers alone can take a few KiB. */
    public static final int MIN_MAX_RECORD_BYTES = 16 << 10;
    /** Header on a truncated record: what was cut, {@code value} or {@code key,value}. */
    public static final String HEADER_TRUNCATED = "etl.truncated";
    /** Header on a truncated record: the value's size before truncation, in bytes. */
    public static final String HEADER_ORIGINAL_VALUE_BYTES = "etl.original.value.bytes";
    /** Header on a record whose key was truncated: the key's size before truncation, in bytes. */
    public static final String HEADER_ORIGINAL_KEY_BYTES = "etl.original.key.bytes";
    /** Longest the startup check waits for the broker. */
    private static final Duration MAX_CHECK_TIMEOUT = Duration.ofSeconds(15);

    /**
     * Settings besides the producer properties.
     *
     * @param maxRecordBytes upper bound on one record's size; larger records are truncated (at least
     *                       {@value #MIN_MAX_RECORD_BYTES})
     * @param checkTopic     whether the writer factory checks at startup that the topic exists
     * @param meterRegistry  where {@code etl_dead_letter_*} meters go (null: a private registry)
     * @param pipeline       the {@code pipeline} tag of those meters
     */
    public record Options(
            int maxRecordBytes,
            boolean checkTopic,
            @Nullable MeterRegistry meterRegistry,
            String pipeline) {
        public Options {
            if (maxRecordBytes < MIN_MAX_RECORD_BYTES) {
                throw new KafkaConfigException(
                        DeadLetterProducerSettings.CLIENT,
                        "max-record-bytes",
                        "must be at least " + MIN_MAX_RECORD_BYTES + " bytes (room for the context headers), got "
                                + maxRecordBytes);
            }
            Objects.requireNonNull(pipeline, "pipeline");
        }

        /** 1 MiB records, the topic checked, a private registry, pipeline {@code default}. */
        public static Options defaults() {
            return new Options(DEFAULT_MAX_RECORD_BYTES, true, null, "default");
        }
    }

    private final Map<String, Object> properties;
    private final String topic;
    private final Duration sendTimeout;
    private final Function<Map<String, Object>, Producer<byte[], byte[]>> producers;
    /** The size limit and the cut of records above it. */
    private final DeadLetterTruncation truncation;

    private final Counter writeFailures;
    private volatile boolean failing;
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

    /**
     * A writer producing to {@code topic}, truncating records above the size limit (see the class
     * comment; the topic's own limit is not looked up here) and registering its meters per
     * {@code options}. Does not check the topic: {@link #sink(String, Map, String, Duration, Options)} does.
     */
    public KafkaDeadLetterWriter(
            Map<String, ?> producerProperties, String topic, Duration sendTimeout, Options options) {
        this(producerProperties, topic, sendTimeout, options, OptionalInt.empty(), KafkaProducer::new);
    }

    KafkaDeadLetterWriter(
            Map<String, ?> producerProperties,
            String topic,
            Duration sendTimeout,
            Function<Map<String, Object>, Producer<byte[], byte[]>> producers) {
        this(producerProperties, topic, sendTimeout, Options.defaults(), OptionalInt.empty(), producers);
    }

    KafkaDeadLetterWriter(
            Map<String, ?> producerProperties,
            String topic,
            Duration sendTimeout,
            Options options,
            OptionalInt topicMaxMessageBytes,
            Function<Map<String, Object>, Producer<byte[], byte[]>> producers) {
        this.sendTimeout = DeadLetterProducerSettings.requireTimeout(sendTimeout);
        this.properties = producerProperties(producerProperties, sendTimeout);
        this.topic = DeadLetterProducerSettings.requireTopic(topic);
        this.producers = Objects.requireNonNull(producers, "producers");
        int maxRecordBytes = DeadLetterTruncation.sizeLimit(options.maxRecordBytes(), properties, topicMaxMessageBytes);
        MeterRegistry registry = options.meterRegistry() != null ? options.meterRegistry() : new SimpleMeterRegistry();
        Counter truncated = Counter.builder("etl.dead.letter.truncated")
                .description("Dead-letter records cut to the size limit (header etl.truncated)")
                .tag("pipeline", options.pipeline())
                .tag("topic", this.topic)
                .register(registry);
        this.truncation = new DeadLetterTruncation(this.topic, maxRecordBytes, truncated);
        this.writeFailures = Counter.builder("etl.dead.letter.write.failures")
                .description("Failed dead-letter write attempts (readiness is not UP while the last one failed)")
                .tag("pipeline", options.pipeline())
                .tag("topic", this.topic)
                .register(registry);
    }

    /**
     * A one-shard dead-letter {@link SinkDefinition} named {@code name} writing to {@code topic}, for
     * {@code Pipeline.builder(..).deadLetter(..)}, with default batching and retries (transient
     * failures retried until the drain deadline). Settings are checked now.
     *
     * @throws KafkaConfigException naming a refused setting
     */
    public static SinkDefinition sink(
            String name, Map<String, ?> producerProperties, String topic, Duration sendTimeout) {
        return sink(name, producerProperties, topic, sendTimeout, Options.defaults());
    }

    /**
     * As {@link #sink(String, Map, String, Duration)}, with {@code options}. When
     * {@link Options#checkTopic()} is set, creating the writer (at {@code PipelineRuntime.start()})
     * checks that the topic exists ({@link #checkTopic}) and fails the start when it does not.
     *
     * @throws KafkaConfigException naming a refused setting
     */
    public static SinkDefinition sink(
            String name, Map<String, ?> producerProperties, String topic, Duration sendTimeout, Options options) {
        Map<String, Object> checked =
                producerProperties(producerProperties, DeadLetterProducerSettings.requireTimeout(sendTimeout));
        String checkedTopic = DeadLetterProducerSettings.requireTopic(topic);
        Objects.requireNonNull(options, "options");
        return SinkDefinition.builder(name, 1, shard -> {
                    OptionalInt topicLimit = options.checkTopic()
                            ? checkTopic(
                                    checked,
                                    checkedTopic,
                                    sendTimeout.compareTo(MAX_CHECK_TIMEOUT) < 0 ? sendTimeout : MAX_CHECK_TIMEOUT)
                            : OptionalInt.empty();
                    return new KafkaDeadLetterWriter(
                            checked, checkedTopic, sendTimeout, options, topicLimit, KafkaProducer::new);
                })
                .build();
    }

    /**
     * Checks with an {@link Admin} client that {@code topic} exists, and returns its
     * {@code max.message.bytes} when the broker tells it.
     *
     * @throws KafkaConfigException when the broker answers that the topic does not exist
     */
    public static OptionalInt checkTopic(Map<String, ?> producerProperties, String topic, Duration timeout) {
        return DeadLetterTopicCheck.run(producerProperties, topic, timeout);
    }

    /**
     * The effective producer properties: {@code key.serializer}/{@code value.serializer} are
     * {@link ByteArraySerializer}, {@code acks} is {@code all} and {@code enable.idempotence} is
     * {@code true} (other values are refused, as is {@code transactional.id}), {@code max.block.ms}
     * defaults to the send timeout; everything else passes through.
     */
    public static Map<String, Object> producerProperties(Map<String, ?> given, Duration sendTimeout) {
        return DeadLetterProducerSettings.effective(given, sendTimeout);
    }

    /** The effective producer properties (diagnostics and tests). */
    public Map<String, Object> producerProperties() {
        return java.util.Collections.unmodifiableMap(properties);
    }

    /** The topic records are written to. */
    public String topic() {
        return topic;
    }

    /** The size limit in bytes a record is truncated to (diagnostics and tests). */
    public int maxRecordBytes() {
        return truncation.maxRecordBytes();
    }

    /** False from a failed write until the next successful one: readiness is not UP meanwhile. */
    @Override
    public boolean isHealthy() {
        return !failing;
    }

    @Override
    public void write(SealedBatch batch) throws SinkWriteException {
        try {
            send(batch);
        } catch (SinkWriteException e) {
            writeFailures.increment();
            if (!failing) {
                failing = true;
                log.warn(
                        "dead-letter topic '{}': writes are failing, records failed under DEAD_LETTER are not "
                                + "committed until they succeed (readiness is not UP): {}",
                        topic,
                        e.getMessage());
            }
            throw e;
        }
        if (failing) {
            failing = false;
            log.info("dead-letter topic '{}': writes succeed again", topic);
        }
    }

    private void send(SealedBatch batch) throws SinkWriteException {
        List<DeadLetterRecord> records = DeadLetterEncoder.decode(batch);
        Producer<byte[], byte[]> producer = producer();
        List<Future<RecordMetadata>> sends = new ArrayList<>(records.size());
        try {
            for (DeadLetterRecord record : records) {
                sends.add(producer.send(truncation.toProducerRecord(record)));
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
                throw SinkWriteException.transientFailure(
                        "dead-letter topic '" + topic + "': could not create the Kafka producer: " + e, e);
            }
        }
        return producer;
    }

    SinkWriteException classify(SealedBatch batch, Throwable error) {
        String message = describe(batch) + ": " + error;
        if (error instanceof RetriableException) {
            return SinkWriteException.transientFailure(message, error);
        }
        if (error instanceof AuthorizationException
                || error instanceof AuthenticationException
                || error instanceof InvalidTopicException
                || error instanceof RecordTooLargeException
                || error instanceof RecordBatchTooLargeException
                || error instanceof UnsupportedVersionException) {
            return SinkWriteException.permanentFailure(message, error);
        }
        if (error instanceof ApiException
                || error instanceof KafkaException
                || error instanceof IllegalStateException) {
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
