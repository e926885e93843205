package dev.etl.sink;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One dead-lettered record as decoded from a dead-letter batch ({@link DeadLetterEncoder#decode}):
 * the original source key and value, byte for byte as polled, the source timestamp, and the context
 * headers ({@link DeadLetterEncoder#HEADER_SOURCE_TOPIC} and the others) in a fixed order.
 *
 * @param key         original key bytes, or null when the source record had no key
 * @param value       original value bytes, or null for a tombstone
 * @param timestampMs source timestamp in epoch milliseconds, or -1 when the source had none
 * @param headers     context headers by name, in encoding order (values may be empty, never null)
 */
public record DeadLetterRecord(
        byte @Nullable [] key, byte @Nullable [] value, long timestampMs, Map<String, String> headers) {

    /** A context header, or null when absent. */
    public @Nullable String header(String name) {
        return headers.get(name);
    }
}
