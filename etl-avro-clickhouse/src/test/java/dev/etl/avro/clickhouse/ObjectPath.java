package dev.etl.avro.clickhouse;

import dev.etl.clickhouse.ClickHouseType;
import dev.etl.clickhouse.ClickHouseTypes;
import dev.etl.clickhouse.ColumnType;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.sink.RowBuffer;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericEnumSymbol;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;

/**
 * The reference the transcoder must match byte for byte: Avro's {@code GenericDatumReader(writer,
 * reader)} materialises the record, then the project's {@link RowBinaryEncoder} (built here from the
 * mapping's columns with {@link ClickHouseTypes}, over the generic values) writes the row. Nothing
 * of the transcoder is used but the mapping's declarations.
 */
final class ObjectPath {
    private final GenericDatumReader<GenericRecord> reader;
    private final RowBinaryEncoder<GenericRecord> encoder;

    ObjectPath(AvroRowMapping mapping, Schema writer) {
        this.reader = new GenericDatumReader<>(writer, mapping.readerSchema());
        RowBinaryEncoder.Builder<GenericRecord> b = RowBinaryEncoder.builder();
        for (AvroRowMapping.Mapped m : mapping.mapped()) {
            String[] path = m.path().split("\\.");
            Schema leaf = leafSchema(mapping.readerSchema(), path);
            b.column(m.column().name(), type(m.type(), leaf), record -> convert(at(record, path), leaf, m.type()));
        }
        this.encoder = b.build();
    }

    /** The row's bytes for an Avro body, or the exception the object path throws. */
    byte[] row(byte[] body) throws IOException {
        GenericRecord record = reader.read(null, DecoderFactory.get().binaryDecoder(body, null));
        RowBuffer out = new RowBuffer(64);
        encoder.encode(record, out);
        return out.toByteArray();
    }

    static Schema leafSchema(Schema record, String[] path) {
        Schema s = record;
        for (String segment : path) {
            s = s.getField(segment).schema();
        }
        return s;
    }

    private static Object at(GenericRecord record, String[] path) {
        Object v = record;
        for (String segment : path) {
            v = ((GenericRecord) v).get(segment);
        }
        return v;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static ClickHouseType<Object> type(ColumnType t, Schema avro) {
        return (ClickHouseType)
                switch (t.kind()) {
                    case INT8 -> ClickHouseTypes.int8();
                    case INT16 -> ClickHouseTypes.int16();
                    case INT32 -> ClickHouseTypes.int32();
                    case INT64 -> ClickHouseTypes.int64();
                    case UINT8 -> ClickHouseTypes.uint8();
                    case UINT16 -> ClickHouseTypes.uint16();
                    case UINT32 -> ClickHouseTypes.uint32();
                    case UINT64 -> ClickHouseTypes.uint64();
                    case FLOAT32 -> ClickHouseTypes.float32();
                    case FLOAT64 -> ClickHouseTypes.float64();
                    case BOOL -> ClickHouseTypes.bool();
                    case STRING ->
                        nonNull(avro).getType() == Schema.Type.STRING
                                        || nonNull(avro).getType() == Schema.Type.ENUM
                                ? ClickHouseTypes.string()
                                : ClickHouseTypes.stringBytes();
                    case FIXED_STRING -> ClickHouseTypes.fixedString(t.length());
                    case DATE -> ClickHouseTypes.date();
                    case DATE32 -> ClickHouseTypes.date32();
                    case DATE_TIME -> ClickHouseTypes.dateTime();
                    case DATE_TIME64 -> ClickHouseTypes.dateTime64(t.precision());
                    case DECIMAL -> ClickHouseTypes.decimal(t.precision(), t.scale());
                    case UUID -> ClickHouseTypes.uuid();
                    case ENUM8 -> ClickHouseTypes.enum8(t.enumValues());
                    case ENUM16 -> ClickHouseTypes.enum16(t.enumValues());
                    case NULLABLE -> ClickHouseTypes.nullable(type(t.inner(), nonNull(avro)));
                    case ARRAY ->
                        ClickHouseTypes.array(type(t.inner(), nonNull(avro).getElementType()));
                    default -> throw new IllegalArgumentException("not a transcoder column type: " + t.name());
                };
    }

    /** The non-null branch of a {@code ["null", T]} union, else the schema. */
    private static Schema nonNull(Schema s) {
        if (s.getType() != Schema.Type.UNION) {
            return s;
        }
        return s.getTypes().stream()
                .filter(b -> b.getType() != Schema.Type.NULL)
                .findFirst()
                .orElse(s);
    }

    /** A generic value as the Java value the column's ClickHouseType takes. */
    private static Object convert(Object v, Schema avro, ColumnType t) {
        if (v == null) {
            return null;
        }
        Schema s = avro;
        if (s.getType() == Schema.Type.UNION) {
            s = s.getTypes().get(org.apache.avro.generic.GenericData.get().resolveUnion(s, v));
        }
        if (t.kind() == ColumnType.Kind.NULLABLE) {
            return convert(v, s, t.inner());
        }
        String logical = s.getLogicalType() == null ? null : s.getLogicalType().getName();
        switch (t.kind()) {
            case INT8, INT16, INT32, UINT8, UINT16:
                if (v instanceof Boolean b) {
                    return b ? 1 : 0;
                }
                return Math.toIntExact(((Number) v).longValue());
            case UINT32, INT64, UINT64:
                return ((Number) v).longValue();
            case FLOAT32:
                return ((Number) v).floatValue();
            case FLOAT64:
                return ((Number) v).doubleValue();
            case BOOL:
                return v;
            case STRING:
                if (v instanceof CharSequence || v instanceof GenericEnumSymbol) {
                    return v.toString();
                }
                return bytes(v);
            case FIXED_STRING:
                return bytes(v);
            case DATE, DATE32:
                return LocalDate.ofEpochDay((Integer) v);
            case DATE_TIME, DATE_TIME64: {
                long l = (Long) v;
                return switch (logical) {
                    case "timestamp-millis", "local-timestamp-millis" -> Instant.ofEpochMilli(l);
                    case "timestamp-micros", "local-timestamp-micros" ->
                        Instant.ofEpochSecond(Math.floorDiv(l, 1_000_000L), Math.floorMod(l, 1_000_000L) * 1000);
                    default ->
                        Instant.ofEpochSecond(Math.floorDiv(l, 1_000_000_000L), Math.floorMod(l, 1_000_000_000L));
                };
            }
            case DECIMAL:
                return new BigDecimal(new BigInteger(bytes(v)), ((LogicalTypes.Decimal) s.getLogicalType()).getScale());
            case UUID: {
                if (v instanceof CharSequence) {
                    return UUID.fromString(v.toString());
                }
                ByteBuffer b = ByteBuffer.wrap(bytes(v));
                return new UUID(b.getLong(), b.getLong());
            }
            case ENUM8, ENUM16:
                return t.enumValues().get(v.toString());
            case ARRAY: {
                List<Object> out = new ArrayList<>();
                for (Object e : (List<?>) v) {
                    out.add(convert(e, s.getElementType(), t.inner()));
                }
                return out;
            }
            default:
                throw new IllegalArgumentException(t.name());
        }
    }

    private static byte[] bytes(Object v) {
        if (v instanceof ByteBuffer b) {
            ByteBuffer d = b.duplicate();
            byte[] out = new byte[d.remaining()];
            d.get(out);
            return out;
        }
        if (v instanceof GenericFixed f) {
            return f.bytes().clone();
        }
        if (v instanceof org.apache.avro.util.Utf8 u) {
            return Arrays.copyOf(u.getBytes(), u.getByteLength());
        }
        throw new IllegalArgumentException(v.getClass().getName());
    }

    static Function<byte[], byte[]> unchecked(ObjectPath path) {
        return body -> {
            try {
                return path.row(body);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        };
    }
}
