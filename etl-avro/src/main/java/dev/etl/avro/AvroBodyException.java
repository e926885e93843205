package dev.etl.avro;

/**
 * An Avro body that does not match its writer schema (truncated, malformed varint, bad union or enum
 * index, an invalid block count, trailing bytes) or claims more array items than {@link AvroLimits}
 * allows. Internal: the deserializer turns it into a
 * {@link dev.etl.error.DeserializationException} with the schema id.
 *
 * <p>Without a stack trace: under a {@code SKIP} policy a topic full of bad payloads would otherwise
 * spend most of its time filling stack traces nobody reads; the message says where in the body.
 */
final class AvroBodyException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    AvroBodyException(String message) {
        super(message, null, false, false);
    }
}
