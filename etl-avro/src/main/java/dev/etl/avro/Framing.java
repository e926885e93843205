package dev.etl.avro;

import dev.etl.avro.binary.AvroFraming;
import dev.etl.avro.binary.MalformedAvroException;
import dev.etl.error.DeserializationException;
import java.io.IOException;
import java.util.List;
import java.util.stream.Collectors;
import org.agrona.collections.Int2ObjectHashMap;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;

/**
 * How a payload names its writer schema — Confluent header, single-object header, or nothing (raw,
 * one configured writer) — and the lane's cache of decoders per writer schema.
 *
 * <p>Every framing with a header also reads Avro single-object payloads ({@code C3 01}, fingerprint,
 * body) whose writer schema is known by fingerprint ({@link FingerprintWriters}): a Confluent payload
 * starts with 0x00, so the marker is unambiguous.
 *
 * <p>One instance per deserializer (so per lane): the caches are plain Agrona primitive maps, no
 * locks. A writer schema that the reader cannot read is cached too, as its error, so every record of
 * it fails fast with the same message.
 */
abstract class Framing<T> {
    final AvroTarget<T> target;
    final boolean fastPath;

    Framing(AvroTarget<T> target, boolean fastPath) {
        this.target = target;
        this.fastPath = fastPath;
    }

    /**
     * Decodes a present payload.
     *
     * @throws DeserializationException (or {@link SchemaRegistryUnavailableException}) naming the
     *         schema id (or fingerprint) and what was wrong
     */
    abstract T decode(byte[] array, int offset, int length, T reuse);

    /** A writer schema's decoder, or the reason it cannot be read. */
    static final class Writer<T> {
        final BodyDecoder<T> decoder;
        final String label;
        final String incompatibility;

        private Writer(BodyDecoder<T> decoder, String label, String incompatibility) {
            this.decoder = decoder;
            this.label = label;
            this.incompatibility = incompatibility;
        }
    }

    Writer<T> compile(Schema writer, String label) {
        SchemaCompatibility.SchemaPairCompatibility pair =
                SchemaCompatibility.checkReaderWriterCompatibility(target.reader, writer);
        if (pair.getType() != SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE) {
            List<SchemaCompatibility.Incompatibility> problems =
                    pair.getResult().getIncompatibilities();
            String why = problems.stream()
                    .map(p -> p.getType() + " at " + p.getLocation() + " (" + p.getMessage() + ")")
                    .collect(Collectors.joining("; "));
            return new Writer<>(
                    null,
                    label,
                    "writer schema " + label + " cannot be read as reader schema " + target.reader.getFullName() + ": "
                            + why);
        }
        return new Writer<>(target.decoderFor(writer, fastPath, label), label, null);
    }

    static <T> T decodeBody(Writer<T> writer, int schemaId, byte[] array, int offset, int length, T reuse) {
        if (writer.incompatibility != null) {
            throw DeserializationException.of(schemaId, writer.incompatibility, null);
        }
        try {
            return writer.decoder.decode(array, offset, length, reuse);
        } catch (AvroTarget.MappingException e) {
            throw DeserializationException.of(
                    schemaId,
                    "mapping a record of writer schema " + writer.label + " failed: " + e.getCause(),
                    e.getCause());
        } catch (MalformedAvroException e) {
            throw DeserializationException.of(
                    schemaId, "Avro body does not match writer schema " + writer.label + ": " + e.getMessage(), null);
        } catch (IOException | RuntimeException e) {
            throw DeserializationException.of(
                    schemaId, "Avro body does not match writer schema " + writer.label + ": " + e, e);
        }
    }

    /** Magic byte 0, 4-byte big-endian schema id, Avro body; writer schemas from the registry. */
    static final class Confluent<T> extends Framing<T> {
        private final SchemaRegistryClient registry;
        private final Int2ObjectHashMap<Writer<T>> writers = new Int2ObjectHashMap<>();
        private final FingerprintWriters<T> singleObjects;

        Confluent(AvroTarget<T> target, boolean fastPath, SchemaRegistryClient registry, WriterSchemas schemas) {
            super(target, fastPath);
            this.registry = registry;
            this.singleObjects = new FingerprintWriters<>(this, schemas);
        }

        @Override
        T decode(byte[] array, int offset, int length, T reuse) {
            if (!AvroFraming.isConfluent(array, offset, length)) {
                if (AvroFraming.isSingleObject(array, offset, length)) {
                    return singleObjects.decode(array, offset, length, reuse); // a backfill's row
                }
                throw AvroFraming.unframed(array, offset, length);
            }
            int schemaId = AvroFraming.schemaId(array, offset);
            Writer<T> writer = writers.get(schemaId);
            if (writer == null) {
                writer = load(schemaId);
            }
            return decodeBody(
                    writer,
                    schemaId,
                    array,
                    offset + AvroFraming.CONFLUENT_HEADER_LENGTH,
                    length - AvroFraming.CONFLUENT_HEADER_LENGTH,
                    reuse);
        }

        private Writer<T> load(int schemaId) {
            Schema schema;
            try {
                schema = registry.schemaById(schemaId);
            } catch (SchemaRegistryException e) {
                if (e.notFound()) {
                    throw DeserializationException.of(
                            schemaId, "unknown schema id " + schemaId + ": " + e.getMessage(), e);
                }
                if (e.invalidAnswer()) {
                    throw DeserializationException.of(schemaId, "unusable writer schema: " + e.getMessage(), e);
                }
                throw SchemaRegistryUnavailableException.of(
                        schemaId, "cannot fetch writer schema id " + schemaId + ": " + e.getMessage(), e);
            }
            Writer<T> writer = compile(schema, "id " + schemaId + " (" + schema.getFullName() + ")");
            writers.put(schemaId, writer);
            return writer;
        }
    }

    /** No header: every payload is a body of one configured writer schema. */
    static final class Raw<T> extends Framing<T> {
        private final Writer<T> writer;

        Raw(AvroTarget<T> target, boolean fastPath, Schema writerSchema) {
            super(target, fastPath);
            this.writer = compile(writerSchema, writerSchema.getFullName() + " (raw)");
        }

        @Override
        T decode(byte[] array, int offset, int length, T reuse) {
            return decodeBody(writer, -1, array, offset, length, reuse);
        }
    }

    /**
     * Avro single-object encoding: {@code C3 01}, 8-byte little-endian CRC-64-AVRO fingerprint, body;
     * writer schemas among the configured ones, else in the {@link WriterSchemas}.
     */
    static final class SingleObject<T> extends Framing<T> {
        private final FingerprintWriters<T> writers;

        SingleObject(AvroTarget<T> target, boolean fastPath, List<Schema> writerSchemas, WriterSchemas schemas) {
            super(target, fastPath);
            this.writers = new FingerprintWriters<>(this, schemas);
            for (Schema schema : writerSchemas) {
                writers.configure(schema);
            }
        }

        @Override
        T decode(byte[] array, int offset, int length, T reuse) {
            if (!AvroFraming.isSingleObject(array, offset, length)) {
                if (length < 2) {
                    throw DeserializationException.of(
                            -1,
                            "payload of " + length + " byte(s) is shorter than the 10-byte single-object header",
                            null);
                }
                throw DeserializationException.of(
                        -1,
                        String.format(
                                "bad single-object marker 0x%02x%02x (expected 0xC301)",
                                array[offset] & 0xff, array[offset + 1] & 0xff),
                        null);
            }
            return writers.decode(array, offset, length, reuse);
        }
    }
}
