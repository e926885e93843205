package dev.etl.sink;

/**
 * A {@link CharSequence} that holds its own UTF-8 encoding, such as the strings the Avro deserializer
 * emits (Avro's {@code Utf8}, read into in place). {@link RowBuffer#writeString} copies these bytes
 * instead of encoding the chars: writing such a string allocates nothing, where Avro's {@code Utf8}
 * answers {@code length()} and {@code charAt} through a {@code String} it creates for each new value.
 *
 * <p>The method names are Avro's {@code Utf8}'s, so a subclass of {@code Utf8} implements this interface
 * without a method of its own.
 */
public interface Utf8CharSequence extends CharSequence {
    /**
     * The array whose first {@link #getByteLength()} bytes are this value's UTF-8 encoding; it may be
     * longer. Owned by the value: read it, do not keep or change it.
     */
    byte[] getBytes();

    /** How many bytes of {@link #getBytes()} this value's UTF-8 encoding takes. */
    int getByteLength();
}
