package dev.etl.sink;

import dev.etl.error.RecordException;
import dev.etl.error.Secrets;
import dev.etl.record.Payload;
import dev.etl.record.RecordMeta;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The framing of dead-lettered records inside a dead-letter sink's chunks and sealed batches, written
 * on the lane (failure path only) and decoded by the dead-letter {@link ShardWriter} (for Kafka,
 * {@code dev.etl.kafka.KafkaDeadLetterWriter}).
 *
 * <p>Per record, little-endian: {@code byte version (1)}, {@code int64 timestampMs}, key and value
 * as {@code int32 length} ({@code -1} = absent) + bytes, {@code int32 headerCount}, then per header
 * {@code int32 nameLength} + UTF-8 name, {@code int32 valueLength} + UTF-8 value. A batch is the
 * concatenation of its records.
 *
 * <p>Headers written for every record: {@value #HEADER_SOURCE_TOPIC}, {@value #HEADER_SOURCE_PARTITION},
 * {@value #HEADER_SOURCE_OFFSET}, {@value #HEADER_SOURCE_TIMESTAMP}, {@value #HEADER_STAGE},
 * {@value #HEADER_ERROR_CLASS}, {@value #HEADER_ERROR_MESSAGE} (secrets masked with
 * {@link Secrets#mask}: URL user info, {@code password=…}; then truncated to
 * {@value #MAX_MESSAGE_CHARS} characters) and {@value #HEADER_EXCEPTION}.
 */
public final class DeadLetterEncoder {
    public static final String HEADER_SOURCE_TOPIC = "etl.source.topic";
    public static final String HEADER_SOURCE_PARTITION = "etl.source.partition";
    public static final String HEADER_SOURCE_OFFSET = "etl.source.offset";
    public static final String HEADER_SOURCE_TIMESTAMP = "etl.source.timestamp";
    public static final String HEADER_STAGE = "etl.stage";
    public static final String HEADER_ERROR_CLASS = "etl.error.class";
    public static final String HEADER_ERROR_MESSAGE = "etl.error.message";
    public static final String HEADER_EXCEPTION = "etl.exception";
    /** Longest error message kept in {@value #HEADER_ERROR_MESSAGE}; longer ones end in "...". */
    public static final int MAX_MESSAGE_CHARS = 1000;

    private static final byte VERSION = 1;

    private DeadLetterEncoder() {}

    /**
     * Appends the current source record of {@code meta} ({@link RecordMeta#sourceKey()} and
     * {@link RecordMeta#sourceValue()}, copied) with the context of {@code failure}. Allocates: failure
     * path only. When there is no source record (a value a stateful operator emitted from held data), the
     * key and value are absent and the offset and timestamp headers empty.
     *
     * @param topic         the source topic of the record's partition
     * @param partitionName the partition's name, e.g. {@code orders-3}; its numeric suffix after
     *                      {@code topic-} becomes {@value #HEADER_SOURCE_PARTITION}, else the whole name
     */
    public static void encode(
            RecordMeta meta, String topic, String partitionName, RecordException failure, RowBuffer out) {
        Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
        // No source value: a value a stateful operator emitted from data it held (or from flush) has no
        // single source record, so no payload, offset or timestamp is claimed for it.
        boolean hasSource = meta.sourceValue() != null;
        encode(
                out,
                meta.sourceKey(),
                meta.sourceValue(),
                hasSource ? meta.timestampMs() : -1,
                HEADER_SOURCE_TOPIC,
                topic,
                HEADER_SOURCE_PARTITION,
                partitionNumber(topic, partitionName),
                HEADER_SOURCE_OFFSET,
                hasSource ? Long.toString(meta.offset()) : "",
                HEADER_SOURCE_TIMESTAMP,
                hasSource ? Long.toString(meta.timestampMs()) : "",
                HEADER_STAGE,
                failure.stage(),
                HEADER_ERROR_CLASS,
                failure.errorClass().label(),
                HEADER_ERROR_MESSAGE,
                truncate(Secrets.mask(failure.getMessage())),
                HEADER_EXCEPTION,
                cause.getClass().getName());
    }

    /** Appends one record with explicit headers ({@code name, value} pairs). */
    public static void encode(
            RowBuffer out,
            @Nullable Payload key,
            @Nullable Payload value,
            long timestampMs,
            @Nullable String... headers) {
        if ((headers.length & 1) != 0) {
            throw new IllegalArgumentException("headers must be name/value pairs");
        }
        out.writeByte(VERSION);
        out.writeLongLE(timestampMs);
        writePayload(out, key);
        writePayload(out, value);
        out.writeIntLE(headers.length / 2);
        for (String header : headers) {
            byte[] bytes = (header == null ? "" : header).getBytes(StandardCharsets.UTF_8);
            out.writeIntLE(bytes.length);
            out.writeBytes(bytes);
        }
    }

    private static void writePayload(RowBuffer out, Payload payload) {
        if (payload == null || !payload.isPresent()) {
            out.writeIntLE(-1);
            return;
        }
        out.writeIntLE(payload.length());
        out.writeBytes(payload.array(), payload.offset(), payload.length());
    }

    /** Decodes every record of {@code bytes[0, length)}. */
    public static List<DeadLetterRecord> decode(byte[] bytes, int length) {
        ByteBuffer in = ByteBuffer.wrap(bytes, 0, length).order(ByteOrder.LITTLE_ENDIAN);
        List<DeadLetterRecord> records = new ArrayList<>();
        while (in.hasRemaining()) {
            byte version = in.get();
            if (version != VERSION) {
                throw new IllegalArgumentException("dead-letter framing version " + version + " at byte "
                        + (in.position() - 1) + " (expected " + VERSION + ")");
            }
            long timestamp = in.getLong();
            byte[] key = readBytes(in);
            byte[] value = readBytes(in);
            int count = in.getInt();
            if (count < 0) {
                throw new IllegalArgumentException("negative dead-letter header count " + count);
            }
            Map<String, String> headers = new LinkedHashMap<>();
            for (int i = 0; i < count; i++) {
                String name = utf8(readBytes(in));
                headers.put(name, utf8(readBytes(in)));
            }
            records.add(new DeadLetterRecord(key, value, timestamp, headers));
        }
        return records;
    }

    /** Decodes a sealed dead-letter batch. */
    public static List<DeadLetterRecord> decode(SealedBatch batch) {
        return decode(batch.bytes(), batch.byteCount());
    }

    private static byte[] readBytes(ByteBuffer in) {
        int length = in.getInt();
        if (length < 0) {
            return null;
        }
        byte[] bytes = new byte[length];
        in.get(bytes);
        return bytes;
    }

    private static String utf8(byte[] bytes) {
        return bytes == null ? "" : new String(bytes, StandardCharsets.UTF_8);
    }

    static String partitionNumber(String topic, String partitionName) {
        if (partitionName == null) {
            return "";
        }
        if (topic != null
                && partitionName.length() > topic.length() + 1
                && partitionName.startsWith(topic)
                && partitionName.charAt(topic.length()) == '-') {
            String suffix = partitionName.substring(topic.length() + 1);
            if (suffix.chars().allMatch(Character::isDigit)) {
                return suffix;
            }
        }
        return partitionName;
    }

    static String truncate(String message) {
        if (message == null) {
            return "";
        }
        return message.length() <= MAX_MESSAGE_CHARS ? message : message.substring(0, MAX_MESSAGE_CHARS - 3) + "...";
    }
}
