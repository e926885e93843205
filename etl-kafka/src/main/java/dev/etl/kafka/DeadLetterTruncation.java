package dev.etl.kafka;

import dev.etl.error.RateLimitedLog;
import dev.etl.sink.DeadLetterEncoder;
import dev.etl.sink.DeadLetterRecord;
import io.micrometer.core.instrument.Counter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.OptionalInt;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The size limit of one dead-letter topic's records and the cut of those above it (the contract is
 * on {@link KafkaDeadLetterWriter}): a record whose estimated size (key + value + headers + a fixed
 * overhead) exceeds the limit has its value, then if need be its key, cut to fit, gains the headers
 * {@value KafkaDeadLetterWriter#HEADER_TRUNCATED},
 * {@value KafkaDeadLetterWriter#HEADER_ORIGINAL_VALUE_BYTES} (and
 * {@value KafkaDeadLetterWriter#HEADER_ORIGINAL_KEY_BYTES}), counts in
 * {@code etl_dead_letter_truncated_total} and is logged at WARN (at most once per 10 s, with the
 * number suppressed).
 *
 * <p>Used by the writer's io thread; the counter and the rate-limited log are thread-safe.
 */
final class DeadLetterTruncation {
    /** The writer's category: what operators configure for the dead-letter messages. */
    private static final Logger log = LoggerFactory.getLogger(KafkaDeadLetterWriter.class);
    /** Upper bound on a record's framing in a batch (record batch header, varints), with margin. */
    private static final int RECORD_OVERHEAD = 256;
    /** Per header: varint lengths, with margin. */
    private static final int HEADER_OVERHEAD = 10;
    /** Room kept for the truncation headers themselves. */
    private static final int TRUNCATION_HEADERS_RESERVE = 128;

    private final String topic;
    private final int maxRecordBytes;
    private final Counter truncated;
    private final RateLimitedLog truncationLog = new RateLimitedLog(10_000_000_000L, System::nanoTime);

    /**
     * @param maxRecordBytes the limit ({@link #sizeLimit})
     * @param truncated      counts the records cut
     */
    DeadLetterTruncation(String topic, int maxRecordBytes, Counter truncated) {
        this.topic = topic;
        this.maxRecordBytes = maxRecordBytes;
        this.truncated = truncated;
    }

    /**
     * The smallest of the configured limit, max.request.size, buffer.memory and the topic's limit,
     * but at least {@link KafkaDeadLetterWriter#MIN_MAX_RECORD_BYTES}.
     *
     * @throws KafkaConfigException when a producer size setting is not a number
     */
    static int sizeLimit(int configured, Map<String, Object> producer, OptionalInt topicMaxMessageBytes) {
        long limit = configured;
        limit = Math.min(limit, longSetting(producer, ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Long.MAX_VALUE));
        limit = Math.min(limit, longSetting(producer, ProducerConfig.BUFFER_MEMORY_CONFIG, Long.MAX_VALUE));
        if (topicMaxMessageBytes.isPresent()) {
            limit = Math.min(limit, topicMaxMessageBytes.getAsInt());
        }
        return (int) Math.max(limit, KafkaDeadLetterWriter.MIN_MAX_RECORD_BYTES);
    }

    private static long longSetting(Map<String, Object> props, String key, long absent) {
        Object value = props.get(key);
        if (value == null) {
            return absent;
        }
        try {
            return Long.parseLong(String.valueOf(value).trim());
        } catch (NumberFormatException e) {
            throw new KafkaConfigException(
                    DeadLetterProducerSettings.CLIENT, key, "must be a number of bytes, got '" + value + "'");
        }
    }

    int maxRecordBytes() {
        return maxRecordBytes;
    }

    /** The record to send: headers as UTF-8, key and value cut to the size limit when too large. */
    ProducerRecord<byte[], byte[]> toProducerRecord(DeadLetterRecord record) {
        RecordHeaders headers = new RecordHeaders();
        long headerBytes = 0;
        for (Map.Entry<String, String> header : record.headers().entrySet()) {
            byte[] value = header.getValue().getBytes(StandardCharsets.UTF_8);
            headers.add(new RecordHeader(header.getKey(), value));
            headerBytes += header.getKey().length() * 3L + value.length + HEADER_OVERHEAD;
        }
        byte[] key = record.key();
        byte[] value = record.value();
        int keyLength = key == null ? 0 : key.length;
        int valueLength = value == null ? 0 : value.length;
        long fixed = RECORD_OVERHEAD + headerBytes;
        if (fixed + keyLength + valueLength <= maxRecordBytes) {
            return new ProducerRecord<>(topic, null, null, key, value, headers);
        }
        long room = maxRecordBytes - fixed - TRUNCATION_HEADERS_RESERVE;
        boolean keyCut = keyLength > Math.max(0, room);
        if (keyCut) {
            key = Arrays.copyOf(key, (int) Math.max(0, room));
        }
        long valueRoom = Math.max(0, room - (key == null ? 0 : key.length));
        if (value != null && value.length > valueRoom) {
            value = Arrays.copyOf(value, (int) valueRoom);
        }
        headers.add(new RecordHeader(
                KafkaDeadLetterWriter.HEADER_TRUNCATED,
                (keyCut ? "key,value" : "value").getBytes(StandardCharsets.UTF_8)));
        headers.add(new RecordHeader(
                KafkaDeadLetterWriter.HEADER_ORIGINAL_VALUE_BYTES,
                Integer.toString(valueLength).getBytes(StandardCharsets.UTF_8)));
        if (keyCut) {
            headers.add(new RecordHeader(
                    KafkaDeadLetterWriter.HEADER_ORIGINAL_KEY_BYTES,
                    Integer.toString(keyLength).getBytes(StandardCharsets.UTF_8)));
        }
        truncated.increment();
        long suppressed = truncationLog.permit();
        if (suppressed >= 0) {
            log.warn(
                    "dead-letter topic '{}': the record of {}-{}@{} takes about {} bytes, over the limit of {}: "
                            + "truncated (header {}; {} similar suppressed)",
                    topic,
                    record.header(DeadLetterEncoder.HEADER_SOURCE_TOPIC),
                    record.header(DeadLetterEncoder.HEADER_SOURCE_PARTITION),
                    record.header(DeadLetterEncoder.HEADER_SOURCE_OFFSET),
                    fixed + keyLength + valueLength,
                    maxRecordBytes,
                    KafkaDeadLetterWriter.HEADER_TRUNCATED,
                    suppressed);
        }
        return new ProducerRecord<>(topic, null, null, key, value, headers);
    }
}
