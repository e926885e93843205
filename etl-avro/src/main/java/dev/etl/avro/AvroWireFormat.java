package dev.etl.avro;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;

/**
 * Encodes values in the wire formats {@link AvroDeserializer} reads — for producers, samples and
 * tests. Allocates per call (a new stream and writer); not meant for a hot path.
 */
public final class AvroWireFormat {
    /** First byte of a Confluent-framed payload. */
    public static final byte CONFLUENT_MAGIC = 0;
    /** First two bytes of an Avro single-object payload. */
    public static final byte[] SINGLE_OBJECT_MARKER = {(byte) 0xC3, 0x01};

    private AvroWireFormat() {}

    /** Magic byte 0, the 4-byte big-endian {@code schemaId}, then the body of {@code datum}. */
    public static byte[] confluent(int schemaId, Schema schema, Object datum) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64);
        out.write(CONFLUENT_MAGIC);
        out.write(schemaId >>> 24);
        out.write(schemaId >>> 16);
        out.write(schemaId >>> 8);
        out.write(schemaId);
        return body(out, schema, datum);
    }

    /** {@code C3 01}, the little-endian CRC-64-AVRO fingerprint of {@code schema}, then the body. */
    public static byte[] singleObject(Schema schema, Object datum) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64);
        out.writeBytes(SINGLE_OBJECT_MARKER);
        long fingerprint = SchemaNormalization.parsingFingerprint64(schema);
        for (int i = 0; i < 8; i++) {
            out.write((int) (fingerprint >>> (8 * i)));
        }
        return body(out, schema, datum);
    }

    /** The bare Avro binary body of {@code datum}. */
    public static byte[] raw(Schema schema, Object datum) {
        return body(new ByteArrayOutputStream(64), schema, datum);
    }

    private static byte[] body(ByteArrayOutputStream out, Schema schema, Object datum) {
        DatumWriter<Object> writer;
        if (datum instanceof SpecificRecord) {
            GeneratedClassTrust.trust(datum.getClass());
            writer = new SpecificDatumWriter<>(schema, SpecificData.getForClass(datum.getClass()));
        } else {
            writer = new GenericDatumWriter<>(schema);
        }
        BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
        try {
            writer.write(datum, encoder);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
