package dev.etl.avro;

import dev.etl.avro.binary.AvroFraming;
import dev.etl.error.DeserializationException;
import org.agrona.collections.Long2ObjectHashMap;
import org.apache.avro.Schema;

/**
 * One lane's decoders for payloads in Avro's single-object encoding ({@code C3 01}, the writer
 * schema's 8-byte little-endian CRC-64-AVRO parsing fingerprint, the body), by fingerprint: first the
 * schemas the deserializer was configured with, then those of its {@link WriterSchemas}.
 *
 * <p>A decoder (or the writer schema's incompatibility, which is permanent: a fingerprint names one
 * schema) is compiled at a fingerprint's first payload and kept in a primitive map, so later payloads
 * cost one lookup and allocate nothing.
 *
 * <p><b>An unknown fingerprint is not remembered.</b> Every payload of it asks the {@link WriterSchemas}
 * again and fails with a {@link DeserializationException}. That ask is one lock-free
 * {@code ConcurrentHashMap} read, cheaper than the exception the payload throws anyway; remembering the
 * miss would need an invalidation when the schema is registered later, or a time to live that keeps
 * failing good rows for a while. As it is, the first payload after the registration decodes.
 */
final class FingerprintWriters<T> {
    private final Framing<T> framing;
    private final WriterSchemas schemas;
    private final Long2ObjectHashMap<Framing.Writer<T>> writers = new Long2ObjectHashMap<>();
    private int configured;

    FingerprintWriters(Framing<T> framing, WriterSchemas schemas) {
        this.framing = framing;
        this.schemas = schemas;
    }

    /** Compiles a configured writer schema now (it takes precedence over the {@link WriterSchemas}). */
    void configure(Schema schema) {
        long fingerprint = WriterSchemas.fingerprint(schema);
        if (!writers.containsKey(fingerprint)) {
            writers.put(fingerprint, framing.compile(schema, label(fingerprint, schema)));
            configured++;
        }
    }

    /** Decodes a payload that starts with the marker ({@link AvroFraming#isSingleObject}). */
    T decode(byte[] array, int offset, int length, T reuse) {
        if (length < AvroFraming.SINGLE_OBJECT_HEADER_LENGTH) {
            throw AvroFraming.shortSingleObject(length);
        }
        long fingerprint = AvroFraming.fingerprint(array, offset);
        Framing.Writer<T> writer = writers.get(fingerprint);
        if (writer == null) {
            writer = load(fingerprint);
        }
        return Framing.decodeBody(
                writer,
                -1,
                array,
                offset + AvroFraming.SINGLE_OBJECT_HEADER_LENGTH,
                length - AvroFraming.SINGLE_OBJECT_HEADER_LENGTH,
                reuse);
    }

    private Framing.Writer<T> load(long fingerprint) {
        Schema schema = schemas.byFingerprint(fingerprint);
        if (schema == null) {
            throw DeserializationException.of(
                    -1,
                    "unknown writer schema fingerprint " + AvroFraming.hex(fingerprint) + " (single-object payload): "
                            + (configured > 0 ? "not among the " + configured + " configured schemas, nor " : "not ")
                            + "registered in WriterSchemas (" + schemas.size() + " known); whatever produces such "
                            + "rows must register their writer schema there before handing out the first",
                    null);
        }
        Framing.Writer<T> writer = framing.compile(schema, label(fingerprint, schema));
        writers.put(fingerprint, writer);
        return writer;
    }

    private static String label(long fingerprint, Schema schema) {
        return "fingerprint " + AvroFraming.hex(fingerprint) + " (" + schema.getFullName() + ")";
    }
}
