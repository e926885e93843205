package dev.etl.datagen;

import java.util.Objects;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;

/**
 * Random records of an Avro schema, reproducible by seed, encoded as the Avro binary the Avro
 * connector's {@code AvroDeserializer} reads: a bare body ({@link Builder#raw()}, for
 * {@code AvroDeserializer...raw(schema)}), the Confluent wire format ({@link Builder#confluent(int)}: magic
 * byte 0, the 4-byte big-endian schema id, the body — for {@code ...confluent(registry)}, the id being the
 * schema's id in that registry) or Avro's single-object encoding ({@link Builder#singleObject()}:
 * {@code C3 01}, the schema's CRC-64-AVRO fingerprint, the body — for {@code ...singleObject(schemas)}).
 *
 * <pre>{@code
 * Schema orders = new Schema.Parser().parse(Path.of("order.avsc").toFile());
 * RecordGenerator avro = AvroRecordGenerator.builder(orders).confluent(registry.register("orders-value", orders)).build();
 * DatagenSource source = DatagenSource.builder(avro).partitions(8).records(1_000_000).build();
 * }</pre>
 *
 * <p><b>Values</b> are drawn from each field's type (every Avro type and the standard logical types: see
 * {@code docs/connectors/datagen.md} for the ranges), narrowed by an optional {@code "datagen"} object on
 * the field: {@code min}/{@code max} (numbers, inclusive), {@code length} or
 * {@code min-length}/{@code max-length} (strings, bytes, arrays, maps), {@code values} (pick one of a
 * list), {@code null-probability} (a union with null) and {@code kind}: {@code "id"} (the record's
 * unique {@link GeneratedRecord#id() id}), {@code "sequence"} or {@code "partition"}. An unknown hint fails
 * {@link Builder#build()} naming the field.
 *
 * <pre>{@code
 * {"name": "id",     "type": "long",   "datagen": {"kind": "id"}},
 * {"name": "status", "type": "string", "datagen": {"values": ["NEW", "PAID", "CANCELLED"]}},
 * {"name": "amount", "type": "long",   "datagen": {"min": 100, "max": 100000}}
 * }</pre>
 *
 * <p>The schema is compiled once into a tree of small writers that encode straight into the record's
 * buffer: no {@code GenericRecord}, no per-record allocation. Stateless, so one instance serves every lane.
 * The key is the record's id as 8 big-endian bytes ({@link Key#ID}, the default: keyed records spread over
 * shards by {@code KeyHashRouter.byRecordKey()}) or absent ({@link Key#NONE}).
 */
public final class AvroRecordGenerator implements RecordGenerator {
    /** How the value bytes are framed. */
    public enum Encoding {
        /** The Avro binary body alone. */
        RAW,
        /** Magic byte 0, the 4-byte big-endian schema id, the body. */
        CONFLUENT,
        /** {@code C3 01}, the 8-byte little-endian CRC-64-AVRO fingerprint of the schema, the body. */
        SINGLE_OBJECT
    }

    /** What the record key is. */
    public enum Key {
        /** The record's {@link GeneratedRecord#id() id}, 8 bytes big-endian. */
        ID,
        /** No key (absent). */
        NONE
    }

    private final Schema schema;
    private final Encoding encoding;
    private final int schemaId;
    private final Key key;
    private final byte[] header;
    private final AvroValueWriter body;

    private AvroRecordGenerator(Builder b) {
        this.schema = b.schema;
        this.encoding = b.encoding;
        this.schemaId = b.schemaId;
        this.key = b.key;
        this.body = AvroValueWriter.compile(b.schema);
        this.header = header(b.encoding, b.schemaId, b.schema);
    }

    private static byte[] header(Encoding encoding, int schemaId, Schema schema) {
        switch (encoding) {
            case CONFLUENT:
                return new byte[] {
                    0, (byte) (schemaId >>> 24), (byte) (schemaId >>> 16), (byte) (schemaId >>> 8), (byte) schemaId
                };
            case SINGLE_OBJECT:
                long fingerprint = SchemaNormalization.parsingFingerprint64(schema);
                byte[] h = new byte[10];
                h[0] = (byte) 0xC3;
                h[1] = 0x01;
                for (int i = 0; i < 8; i++) {
                    h[2 + i] = (byte) (fingerprint >>> (8 * i));
                }
                return h;
            case RAW:
            default:
                return new byte[0];
        }
    }

    /** A builder of records of {@code schema} (any Avro schema; usually a record), raw-encoded by default. */
    public static Builder builder(Schema schema) {
        return new Builder(schema);
    }

    @Override
    public void generate(int partition, long sequence, DatagenRandom random, GeneratedRecord out) {
        if (key == Key.ID) {
            out.key().writeLongBE(out.id());
        }
        RecordBytes value = out.value();
        value.writeBytes(header);
        body.write(random, out, value);
    }

    public Schema schema() {
        return schema;
    }

    public Encoding encoding() {
        return encoding;
    }

    /** The schema id written into Confluent-framed values, or -1 for the other encodings. */
    public int schemaId() {
        return encoding == Encoding.CONFLUENT ? schemaId : -1;
    }

    public Key key() {
        return key;
    }

    @Override
    public String toString() {
        return "avro[" + schema.getFullName() + ", "
                + encoding.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-')
                + (encoding == Encoding.CONFLUENT ? " id " + schemaId : "") + "]";
    }

    /** Builds an {@link AvroRecordGenerator}. Not thread-safe. */
    public static final class Builder {
        private final Schema schema;
        private Encoding encoding = Encoding.RAW;
        private int schemaId = -1;
        private Key key = Key.ID;

        private Builder(Schema schema) {
            this.schema = Objects.requireNonNull(schema, "schema");
        }

        /** The Avro binary body alone (the default). */
        public Builder raw() {
            this.encoding = Encoding.RAW;
            return this;
        }

        /** The Confluent wire format with {@code schemaId}, the id of this schema in the registry the consumer reads. */
        public Builder confluent(int schemaId) {
            if (schemaId < 0) {
                throw new IllegalArgumentException("Confluent schema id must be >= 0, got " + schemaId);
            }
            this.encoding = Encoding.CONFLUENT;
            this.schemaId = schemaId;
            return this;
        }

        /** Avro's single-object encoding (marker, fingerprint, body). */
        public Builder singleObject() {
            this.encoding = Encoding.SINGLE_OBJECT;
            return this;
        }

        /** What the record key is (default {@link Key#ID}). */
        public Builder key(Key key) {
            this.key = Objects.requireNonNull(key, "key");
            return this;
        }

        /**
         * Compiles the schema and its {@code "datagen"} hints.
         *
         * @throws IllegalArgumentException naming the field, for an unknown or unusable hint or a recursive schema
         */
        public AvroRecordGenerator build() {
            return new AvroRecordGenerator(this);
        }
    }
}
