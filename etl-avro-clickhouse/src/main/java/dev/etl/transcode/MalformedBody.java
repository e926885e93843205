package dev.etl.transcode;

/**
 * The Avro bytes do not match their writer schema (truncated, malformed varint, bad union index, an
 * invalid block count, trailing bytes) or claim more array items than {@link dev.etl.avro.AvroLimits}
 * allows. Internal: {@link AvroRowTranscoder} turns it into a
 * {@link dev.etl.error.DeserializationException} naming the schema id. Without a stack trace: it is
 * about the data, and the transcoder's frames say nothing more.
 */
final class MalformedBody extends RuntimeException {
    private static final long serialVersionUID = 1L;

    MalformedBody(String message) {
        super(message, null, false, false);
    }
}
