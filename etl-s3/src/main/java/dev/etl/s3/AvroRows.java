package dev.etl.s3;

import dev.etl.avro.WriterSchemas;
import dev.etl.avro.binary.AvroFraming;
import org.apache.avro.Schema;

/**
 * How a backfill hands Avro rows to a chain: Avro's single-object encoding ({@code C3 01}, the writer
 * schema's 8-byte little-endian CRC-64-AVRO fingerprint, the binary body), with the writer schema
 * registered in {@link WriterSchemas#shared()} first. Any {@code AvroDeserializer} and the transcoder
 * read such rows, so the chains of a Kafka topic read its backfill unchanged.
 */
public final class AvroRows {
    /** The header's length: marker (2) + fingerprint (8). */
    public static final int HEADER_LENGTH = AvroFraming.SINGLE_OBJECT_HEADER_LENGTH;

    private AvroRows() {}

    /** Registers {@code writer} in the shared set and returns its fingerprint, for {@link #writeHeader}. */
    public static long register(Schema writer) {
        return WriterSchemas.shared().register(writer);
    }

    /** Writes the 10-byte header at {@code offset} of {@code dst}. */
    public static void writeHeader(byte[] dst, int offset, long fingerprint) {
        AvroFraming.writeSingleObjectHeader(dst, offset, fingerprint);
    }
}
