package dev.etl.avro.binary;

import org.jspecify.annotations.Nullable;

/**
 * Avro bytes that do not match their writer schema: truncated, a malformed varint, a bad union index,
 * an invalid block count or size, a negative length, trailing bytes, or more array items than
 * {@link dev.etl.avro.AvroLimits} allows. The message says what and at which byte of the body.
 *
 * <p>Thrown by {@link AvroCursor} and {@link AvroSkipper}, by the reader of object container files
 * ({@link dev.etl.avro.container.AvroContainerReader}, which also throws it for a file it cannot read:
 * a header that does not parse, a codec whose library is missing), and by the decoders built on them. It is about
 * the data, so a decoder turns it into its own error with context (the Avro deserializer and the
 * transcoder into a {@link dev.etl.error.DeserializationException} naming the schema id, the S3 backfill
 * into a {@code CorruptSplitException} naming the object); users of those never see this type.
 *
 * <p>Without a stack trace: under a {@code SKIP} policy a topic full of bad payloads would otherwise
 * spend most of its time filling stack traces nobody reads; the message says where in the body.
 */
public final class MalformedAvroException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** An error whose message says what is wrong and at which byte. */
    public MalformedAvroException(String message) {
        super(message, null, false, false);
    }

    /**
     * An error whose message says what is wrong and where, caused by {@code cause} (a schema that does not
     * parse, a block that does not decompress, a codec whose library is missing).
     */
    public MalformedAvroException(String message, @Nullable Throwable cause) {
        super(message, cause, false, false);
    }
}
