package dev.etl.s3;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One unit of backfill work: an object, or a split of one, in a format. A work item is the value of
 * one record of the work topic; the pipeline's consumer group shares the records between instances,
 * and a record's offset is committed only when every row the item produced is durable.
 *
 * <p>{@code start} and {@code end} are the split's range in the format's unit: bytes for Avro object
 * container files (the blocks whose sync marker ends in {@code [start, end)}) and for uncompressed
 * NDJSON (the lines that start in {@code [start, end)}); the row-group index range for Parquet;
 * {@code 0} and {@code -1} for the whole object (compressed NDJSON).
 *
 * @param format     the format's name ({@link BackfillFormat#name()})
 * @param bucket     the bucket
 * @param key        the object key
 * @param start      the split's first unit (inclusive)
 * @param end        the split's end (exclusive), or -1 for the end of the object
 * @param objectSize the object's size in bytes when planned
 * @param etag       the object's ETag when planned (the reader refuses an object that changed), or empty
 */
public record WorkItem(String format, String bucket, String key, long start, long end, long objectSize, String etag) {
    private static final String VERSION = "etl-backfill/1";

    public WorkItem {
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(bucket, "bucket");
        Objects.requireNonNull(key, "key");
        etag = etag == null ? "" : etag;
        if (start < 0 || (end != -1 && end < start)) {
            throw new IllegalArgumentException(
                    "bad split range [" + start + ", " + end + ") of s3://" + bucket + "/" + key);
        }
    }

    /** Whether the item covers the whole object. */
    public boolean wholeObject() {
        return start == 0 && end == -1;
    }

    /** {@code s3://bucket/key[start,end)} for logs and errors. */
    public String describe() {
        return "s3://" + bucket + "/" + key
                + (wholeObject() ? "" : "[" + start + "," + (end == -1 ? "end" : end) + ")");
    }

    /** The record value on the work topic: one line of {@code name=url-encoded-value} fields. */
    public byte[] encode() {
        String line = VERSION + " format=" + enc(format) + " bucket=" + enc(bucket) + " key=" + enc(key) + " start="
                + start + " end=" + end + " size=" + objectSize + " etag=" + enc(etag);
        return line.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Parses a work-topic record value.
     *
     * @throws IllegalArgumentException naming what is wrong, when the value is not a work item
     */
    public static WorkItem decode(byte[] array, int offset, int length) {
        String line = new String(array, offset, length, StandardCharsets.UTF_8);
        String[] parts = line.trim().split(" ");
        if (parts.length == 0 || !parts[0].equals(VERSION)) {
            throw new IllegalArgumentException(
                    "not a backfill work item (expected a value starting with '" + VERSION + "'): " + abbreviate(line));
        }
        Map<String, String> fields = new HashMap<>();
        for (int i = 1; i < parts.length; i++) {
            int eq = parts[i].indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException(
                        "bad field '" + abbreviate(parts[i]) + "' in work item: " + abbreviate(line));
            }
            fields.put(
                    parts[i].substring(0, eq), URLDecoder.decode(parts[i].substring(eq + 1), StandardCharsets.UTF_8));
        }
        try {
            return new WorkItem(
                    required(fields, "format", line),
                    required(fields, "bucket", line),
                    required(fields, "key", line),
                    Long.parseLong(required(fields, "start", line)),
                    Long.parseLong(required(fields, "end", line)),
                    Long.parseLong(fields.getOrDefault("size", "-1")),
                    fields.getOrDefault("etag", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad number in work item: " + abbreviate(line), e);
        }
    }

    private static String required(Map<String, String> fields, String name, String line) {
        String value = fields.get(name);
        if (value == null) {
            throw new IllegalArgumentException("work item lacks '" + name + "': " + abbreviate(line));
        }
        return value;
    }

    private static String enc(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    private static String abbreviate(String text) {
        return text.length() <= 200 ? text : text.substring(0, 200) + "...";
    }
}
