package dev.etl.record;

import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * A view over bytes owned by the source (a Kafka record value or key, a memory-source entry).
 *
 * <p>Flyweight: one instance per lane is re-{@link #wrap wrapped} for every record, so nothing is
 * copied or allocated per record. The bytes are valid only until the lane's next poll; a consumer
 * that needs them later must copy them. A payload may be <em>absent</em> (a Kafka tombstone or a
 * record without key), which is distinct from present and empty.
 *
 * <p>Not thread-safe: confined to the lane thread that owns it.
 */
public final class Payload {
    private static final byte[] EMPTY = new byte[0];

    private byte[] array = EMPTY;
    private int offset;
    private int length;

    /** An absent payload; a source creates one per lane and re-wraps it for every record. */
    public Payload() {}

    private boolean present;

    /** Points this view at {@code length} bytes of {@code array} starting at {@code offset}. */
    public Payload wrap(byte @Nullable [] array, int offset, int length) {
        if (array == null) {
            return clear();
        }
        this.array = array;
        this.offset = offset;
        this.length = length;
        this.present = true;
        return this;
    }

    /** Points this view at the whole of {@code array}, or makes it absent when {@code array} is null. */
    public Payload wrap(byte @Nullable [] array) {
        return array == null ? clear() : wrap(array, 0, array.length);
    }

    /** Makes this view absent. */
    public Payload clear() {
        this.array = EMPTY;
        this.offset = 0;
        this.length = 0;
        this.present = false;
        return this;
    }

    /** Whether the source had bytes for this field (false for a null Kafka key or tombstone value). */
    public boolean isPresent() {
        return present;
    }

    /** Backing array; read only {@link #offset()} to {@code offset() + length()}. Never copy-free to keep. */
    public byte[] array() {
        return array;
    }

    public int offset() {
        return offset;
    }

    public int length() {
        return length;
    }

    /** Byte at {@code index} relative to {@link #offset()}. */
    public byte get(int index) {
        return array[offset + index];
    }

    /** Copies the viewed bytes (allocates; for tests and cold paths only). */
    public byte[] toByteArray() {
        byte[] copy = new byte[length];
        System.arraycopy(array, offset, copy, 0, length);
        return copy;
    }

    /** Decodes the viewed bytes as UTF-8 (allocates; for tests and cold paths only). */
    public String toUtf8String() {
        return new String(array, offset, length, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return present ? "Payload[" + length + " bytes]" : "Payload[absent]";
    }
}
