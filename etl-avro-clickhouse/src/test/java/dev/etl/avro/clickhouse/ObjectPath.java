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
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
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
 *
 * <p>Where {@code GenericDatumReader} and {@code ClickHouseTypes} do not express the documented behaviour
 * directly, the reference is written from the documentation ({@code docs/connectors/avro-clickhouse.md}, "What
 * converts to what" and "One column per union branch"; ClickHouse's RowBinary layouts), never from the
 * transcoder's code:
 *
 * <ul>
 *   <li>a map keeps its entries in the order the body holds them, a key written twice included: Avro's reader
 *       collects a map into a {@code HashMap}, so a mapping with a Map column reads the body a second time, with
 *       Avro's resolving reader collecting maps in order ({@link Entries}); ClickHouse's {@code Map(K, V)} is
 *       {@code Array(Tuple(K, V))} in RowBinary: a LEB128 count, then key, value, key, value…;
 *   <li>a value of a union of several non-null types belongs to the reader branch of its Java type (or, for a
 *       record, enum or fixed, its schema's name), the one {@code GenericData.resolveUnion} finds: a reader union
 *       has at most one branch of each unnamed type;
 *   <li>IP address text is parsed here ({@link #ipv4(String)}, {@link #ipv6(String)});
 *   <li>a Variant's type for each branch, and its discriminators ({@link #variant}).
 * </ul>
 *
 * <p>What is accepted is decided by the first read, with {@code GenericDatumReader}'s default (fast) reader, as
 * before maps were compared in order. Where the second, resolving, read refuses a body the first took (it checks
 * an enum index in a field only the writer has, the fast reader skips it unchecked), the reference cannot say in
 * which order a map's entries come and {@link #row} throws {@link Abstain}.
 */
final class ObjectPath {
    private final GenericDatumReader<GenericRecord> reader;
    private final GenericDatumReader<GenericRecord> ordered;
    private final RowBinaryEncoder<GenericRecord> encoder;

    /** A map's entries in body order: key, value. */
    record Entries(List<Object[]> entries) {}

    /** A Variant's value: its discriminator, its type and the value converted for it. */
    private record VariantValue(int discriminator, ClickHouseType<Object> type, Object value) {}

    /** The reference has no row to compare for this body (see the class comment). */
    static final class Abstain extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Abstain(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * Avro's resolving reader (not the {@code FastReaderBuilder} Avro 1.12 uses by default, which collects maps
     * into a {@code HashMap} of its own), keeping a map's entries in order ({@link Entries}).
     */
    private static final class OrderedReader extends GenericDatumReader<GenericRecord> {
        OrderedReader(Schema writer, Schema reader) {
            super(writer, reader, new GenericData().setFastReaderEnabled(false));
        }

        @Override
        protected Object newMap(Object old, int size) {
            return new Entries(new ArrayList<>());
        }

        @Override
        protected void addToMap(Object map, Object key, Object value) {
            ((Entries) map).entries().add(new Object[] {key, value});
        }
    }

    private static boolean hasMap(ColumnType t) {
        if (t.kind() == ColumnType.Kind.MAP) {
            return true;
        }
        for (ColumnType a : t.arguments()) {
            if (hasMap(a)) {
                return true;
            }
        }
        return false;
    }

    ObjectPath(AvroRowMapping mapping, Schema writer) {
        this.reader = new GenericDatumReader<>(writer, mapping.readerSchema());
        this.ordered = mapping.mapped().stream().anyMatch(m -> hasMap(m.type()))
                ? new OrderedReader(writer, mapping.readerSchema())
                : null;
        RowBinaryEncoder.Builder<GenericRecord> b = RowBinaryEncoder.builder();
        for (AvroRowMapping.Mapped m : mapping.mapped()) {
            String fieldPath = m.path();
            String selector = null;
            if (fieldPath.endsWith("]")) {
                selector = fieldPath.substring(fieldPath.lastIndexOf('[') + 1, fieldPath.length() - 1);
                fieldPath = fieldPath.substring(0, fieldPath.lastIndexOf('['));
            }
            String[] path = fieldPath.split("\\.");
            Schema leaf = leafSchema(mapping.readerSchema(), path);
            ColumnType t = m.type();
            if (selector == null) {
                b.column(m.column().name(), type(t, leaf), record -> convert(at(record, path), leaf, t));
                continue;
            }
            // One column per union branch (avro-clickhouse.md): Nullable(T); a value of the selected branch is
            // converted into T, any other branch and null write NULL.
            int selected = branchNamed(leaf, selector);
            Schema branch = leaf.getTypes().get(selected);
            b.column(m.column().name(), ClickHouseTypes.nullable(type(t.inner(), branch)), record -> {
                Object v = at(record, path);
                return v != null && GenericData.get().resolveUnion(leaf, v) == selected
                        ? convert(v, branch, t.inner())
                        : null;
            });
        }
        this.encoder = b.build();
    }

    /**
     * The branch a {@code [name]} suffix names (avro-clickhouse.md): by its Avro type ({@code int}, {@code long},
     * …, {@code string}, {@code bytes}), or a record's, enum's or fixed's full or simple name.
     */
    private static int branchNamed(Schema union, String selector) {
        List<Schema> types = union.getTypes();
        for (int i = 0; i < types.size(); i++) {
            Schema b = types.get(i);
            boolean named = switch (b.getType()) {
                case RECORD, ENUM, FIXED -> true;
                default -> false;
            };
            if (named
                    ? selector.equals(b.getFullName()) || selector.equals(b.getName())
                    : selector.equals(b.getType().getName())) {
                return i;
            }
        }
        throw new IllegalArgumentException("no branch " + selector + " in " + union);
    }

    /** The row's bytes for an Avro body, or the exception the object path throws. */
    byte[] row(byte[] body) throws IOException {
        GenericRecord record = reader.read(null, DecoderFactory.get().binaryDecoder(body, null));
        if (ordered != null) {
            try {
                record = ordered.read(null, DecoderFactory.get().binaryDecoder(body, null));
            } catch (IOException | RuntimeException e) {
                throw new Abstain("Avro's resolving reader refuses what its fast reader took: " + e, e);
            }
        }
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
        if (isVariant(t)) {
            return variantType(t.name());
        }
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
                    case IPV4 -> ClickHouseTypes.ipv4();
                    case IPV6 -> ClickHouseTypes.ipv6();
                    case ENUM8 -> ClickHouseTypes.enum8(t.enumValues());
                    case ENUM16 -> ClickHouseTypes.enum16(t.enumValues());
                    case NULLABLE -> ClickHouseTypes.nullable(type(t.inner(), nonNull(avro)));
                    case ARRAY ->
                        ClickHouseTypes.array(type(t.inner(), nonNull(avro).getElementType()));
                    case MAP -> {
                        // RowBinary writes Map(K, V) as Array(Tuple(K, V)): a LEB128 count, then each key and value
                        // (ClickHouse's RowBinary format documentation, "Map").
                        ClickHouseType<Object> key = type(t.arguments().get(0), Schema.create(Schema.Type.STRING));
                        ClickHouseType<Object> value =
                                type(t.arguments().get(1), nonNull(avro).getValueType());
                        yield ClickHouseTypes.array(ClickHouseTypes.<Object[]>tuple()
                                .element(key, e -> e[0])
                                .element(value, e -> e[1])
                                .build());
                    }
                    case TUPLE -> {
                        List<Schema.Field> fields = tupleFields(t, nonNull(avro));
                        ClickHouseTypes.TupleBuilder<Object[]> tuple = ClickHouseTypes.tuple();
                        for (int i = 0; i < fields.size(); i++) {
                            int element = i;
                            tuple.element(
                                    type(t.arguments().get(i), fields.get(i).schema()), e -> e[element]);
                        }
                        yield tuple.build();
                    }
                    default -> throw new IllegalArgumentException("not a transcoder column type: " + t.name());
                };
    }

    /**
     * The reader fields a Tuple takes (avro-clickhouse.md): an unnamed Tuple the record's fields by position, a
     * named one the fields of its element names.
     */
    private static List<Schema.Field> tupleFields(ColumnType tuple, Schema record) {
        if (tuple.elementNames().isEmpty()) {
            return record.getFields();
        }
        List<Schema.Field> fields = new ArrayList<>();
        for (String name : tuple.elementNames()) {
            fields.add(record.getField(name));
        }
        return fields;
    }

    private static boolean isVariant(ColumnType t) {
        return t.kind() == ColumnType.Kind.OTHER && t.name().startsWith("Variant");
    }

    /** Variant in RowBinary: a UInt8 discriminator, then the value as its type writes it; 255 is NULL. */
    private static ClickHouseType<Object> variantType(String name) {
        return new ClickHouseType<>() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public void write(Object value, RowBuffer out) {
                if (value == null) {
                    out.writeByte(255);
                    return;
                }
                VariantValue v = (VariantValue) value;
                out.writeByte(v.discriminator());
                v.type().write(v.value(), out);
            }
        };
    }

    /**
     * A union value into a Variant, by avro-clickhouse.md: "each branch into the first of the Variant's types
     * (as declared; String/FixedString last unless the branch is a string or bytes) it converts to, null as the
     * Variant's NULL". Which types a branch converts to is the documentation's table ({@link #converts}); the
     * discriminator is the type's index among the Variant's types sorted by their names as ClickHouse prints
     * them ({@link #serverName}): ClickHouse's {@code DataTypeVariant} keeps its types ordered by name, and
     * RowBinary writes that index, 255 for NULL (https://clickhouse.com/docs/en/sql-reference/data-types/variant,
     * and the Variant section of https://clickhouse.com/docs/en/interfaces/formats#rowbinary).
     */
    private static Object variant(Object v, Schema avro, ColumnType t) {
        if (v == null) {
            return null;
        }
        Schema s = avro.getType() == Schema.Type.UNION
                ? avro.getTypes().get(GenericData.get().resolveUnion(avro, v))
                : avro;
        Object value = v;
        List<ColumnType> types = t.arguments();
        boolean text = s.getType() == Schema.Type.STRING || s.getType() == Schema.Type.BYTES;
        int chosen = -1;
        for (int round = 0; round < 2 && chosen < 0; round++) {
            for (int i = 0; i < types.size() && chosen < 0; i++) {
                ColumnType.Kind kind = types.get(i).kind();
                boolean late = !text && (kind == ColumnType.Kind.STRING || kind == ColumnType.Kind.FIXED_STRING);
                if (late == (round == 1) && converts(s, types.get(i))) {
                    chosen = i;
                }
            }
        }
        if (chosen < 0) {
            throw new IllegalStateException("the branch " + s + " converts to none of " + t.name());
        }
        List<ColumnType> declared = ColumnType.parse(t.name()).arguments();
        String name = serverName(declared.get(chosen));
        int discriminator = 0;
        for (ColumnType other : declared) {
            discriminator += serverName(other).compareTo(name) < 0 ? 1 : 0;
        }
        ColumnType type = types.get(chosen);
        return new VariantValue(discriminator, type(type, s), convert(value, s, type));
    }

    /**
     * Whether a value of the reader type {@code r} (not a union) is written to a column of type {@code t}: the
     * table "What converts to what" of avro-clickhouse.md, type by type (a value may still be out of the type's
     * range). A logical type adds columns to its base type's ({@code int} + {@code date} also to Date, a
     * {@code long} + {@code timestamp-*} also to DateTime), except {@code decimal}, which goes to a Decimal of
     * its scale only.
     */
    static boolean converts(Schema r, ColumnType t) {
        String logical = r.getLogicalType() == null ? null : r.getLogicalType().getName();
        ColumnType.Kind k = t.kind();
        if (r.getLogicalType() instanceof LogicalTypes.Decimal d) {
            return k == ColumnType.Kind.DECIMAL && t.scale() == d.getScale();
        }
        switch (r.getType()) {
            case INT:
            case LONG:
                return switch (k) {
                    case INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32, UINT64, FLOAT32, FLOAT64, IPV4 -> true;
                    case DECIMAL -> t.precision() <= 18;
                    case DATE, DATE32 -> r.getType() == Schema.Type.INT && "date".equals(logical);
                    case DATE_TIME, DATE_TIME64 ->
                        r.getType() == Schema.Type.LONG && logical != null && logical.contains("timestamp-");
                    default -> false;
                };
            case FLOAT:
                return k == ColumnType.Kind.FLOAT32 || k == ColumnType.Kind.FLOAT64;
            case DOUBLE:
                return k == ColumnType.Kind.FLOAT64;
            case BOOLEAN:
                return k == ColumnType.Kind.BOOL || k == ColumnType.Kind.UINT8;
            case STRING:
            case BYTES:
                return switch (k) {
                    case STRING, FIXED_STRING, IPV6 -> true;
                    case IPV4 -> r.getType() == Schema.Type.STRING;
                    case UUID -> r.getType() == Schema.Type.STRING && "uuid".equals(logical);
                    default -> false;
                };
            case FIXED:
                return switch (k) {
                    case FIXED_STRING -> t.length() >= r.getFixedSize();
                    case STRING -> true;
                    case IPV4 -> r.getFixedSize() == 4;
                    case IPV6 -> r.getFixedSize() == 16;
                    case UUID -> r.getFixedSize() == 16 && "uuid".equals(logical);
                    default -> false;
                };
            case ENUM:
                return k == ColumnType.Kind.STRING
                        || (k == ColumnType.Kind.ENUM8 || k == ColumnType.Kind.ENUM16)
                                && t.enumValues().keySet().containsAll(r.getEnumSymbols());
            default:
                return false;
        }
    }

    /**
     * A type's name as ClickHouse prints it ({@code system.columns}, {@code toTypeName}): arguments after
     * {@code ", "}, {@code DecimalN(S)} as {@code Decimal(P, S)}, enum items {@code 'a' = 1} sorted by value
     * (ClickHouse's EnumValues keeps them so), time zones quoted.
     */
    static String serverName(ColumnType t) {
        return switch (t.kind()) {
            case INT8 -> "Int8";
            case INT16 -> "Int16";
            case INT32 -> "Int32";
            case INT64 -> "Int64";
            case UINT8 -> "UInt8";
            case UINT16 -> "UInt16";
            case UINT32 -> "UInt32";
            case UINT64 -> "UInt64";
            case FLOAT32 -> "Float32";
            case FLOAT64 -> "Float64";
            case BOOL -> "Bool";
            case STRING -> "String";
            case UUID -> "UUID";
            case IPV4 -> "IPv4";
            case IPV6 -> "IPv6";
            case DATE -> "Date";
            case DATE32 -> "Date32";
            case FIXED_STRING -> "FixedString(" + t.length() + ")";
            case DECIMAL -> "Decimal(" + t.precision() + ", " + t.scale() + ")";
            case DATE_TIME -> t.timeZone() == null ? "DateTime" : "DateTime('" + t.timeZone() + "')";
            case DATE_TIME64 ->
                "DateTime64(" + t.precision() + (t.timeZone() == null ? "" : ", '" + t.timeZone() + "'") + ")";
            case ENUM8, ENUM16 -> {
                StringBuilder sb = new StringBuilder(t.kind() == ColumnType.Kind.ENUM8 ? "Enum8(" : "Enum16(");
                List<Map.Entry<String, Integer>> items =
                        new ArrayList<>(t.enumValues().entrySet());
                items.sort(Map.Entry.comparingByValue());
                for (int i = 0; i < items.size(); i++) {
                    sb.append(i == 0 ? "" : ", ")
                            .append('\'')
                            .append(items.get(i).getKey().replace("\\", "\\\\").replace("'", "\\'"))
                            .append("' = ")
                            .append(items.get(i).getValue());
                }
                yield sb.append(')').toString();
            }
            case LOW_CARDINALITY -> "LowCardinality(" + serverName(t.inner()) + ")";
            case NULLABLE -> "Nullable(" + serverName(t.inner()) + ")";
            case ARRAY -> "Array(" + serverName(t.inner()) + ")";
            case MAP ->
                "Map(" + serverName(t.arguments().get(0)) + ", "
                        + serverName(t.arguments().get(1)) + ")";
            case TUPLE -> {
                StringBuilder sb = new StringBuilder("Tuple(");
                for (int i = 0; i < t.arguments().size(); i++) {
                    String element =
                            t.elementNames().isEmpty() ? null : t.elementNames().get(i);
                    sb.append(i == 0 ? "" : ", ")
                            .append(element == null ? "" : element + " ")
                            .append(serverName(t.arguments().get(i)));
                }
                yield sb.append(')').toString();
            }
            default -> throw new IllegalArgumentException("no server name for " + t.name() + " here");
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
        if (isVariant(t)) {
            return variant(v, avro, t);
        }
        if (v == null) {
            return null;
        }
        Schema s = avro;
        if (s.getType() == Schema.Type.UNION) {
            s = s.getTypes().get(GenericData.get().resolveUnion(s, v));
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
                long l = ((Number) v).longValue();
                return switch (logical) {
                    case "timestamp-millis", "local-timestamp-millis" -> Instant.ofEpochMilli(l);
                    case "timestamp-micros", "local-timestamp-micros" ->
                        Instant.ofEpochSecond(Math.floorDiv(l, 1_000_000L), Math.floorMod(l, 1_000_000L) * 1000);
                    default ->
                        Instant.ofEpochSecond(Math.floorDiv(l, 1_000_000_000L), Math.floorMod(l, 1_000_000_000L));
                };
            }
            case DECIMAL:
                if (v instanceof Number n) {
                    // An int or long is the unscaled value (avro-clickhouse.md: cents 1999 into Decimal(18, 2)).
                    return BigDecimal.valueOf(n.longValue(), t.scale());
                }
                return new BigDecimal(new BigInteger(bytes(v)), ((LogicalTypes.Decimal) s.getLogicalType()).getScale());
            case UUID: {
                if (v instanceof CharSequence) {
                    return UUID.fromString(v.toString());
                }
                ByteBuffer b = ByteBuffer.wrap(bytes(v));
                return new UUID(b.getLong(), b.getLong());
            }
            case IPV4: {
                // avro-clickhouse.md: a dotted quad; an int is the address's 32 bits, a long the address as an
                // unsigned number (range-checked), a fixed(4) the address in network order.
                if (v instanceof CharSequence c) {
                    long address = ipv4(c.toString());
                    if (address < 0) {
                        throw new IllegalArgumentException("not an IPv4 address: " + c);
                    }
                    return (int) address;
                }
                if (v instanceof Integer i) {
                    return i;
                }
                if (v instanceof Long l) {
                    if (l < 0 || l > 0xFFFF_FFFFL) {
                        throw new IllegalArgumentException("IPv4 out of range: " + l);
                    }
                    return (int) (long) l;
                }
                return ByteBuffer.wrap(bytes(v)).getInt();
            }
            case IPV6: {
                // Any RFC 4291 text form; a fixed(16) or bytes in network order (a bytes of another length is
                // an error: ClickHouseTypes.ipv6 takes 16 bytes only).
                if (v instanceof CharSequence c) {
                    byte[] address = ipv6(c.toString());
                    if (address == null) {
                        throw new IllegalArgumentException("not an IPv6 address: " + c);
                    }
                    return address;
                }
                return bytes(v);
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
            case MAP: {
                List<Object[]> out = new ArrayList<>();
                Schema key = Schema.create(Schema.Type.STRING);
                for (Object[] e : ((Entries) v).entries()) { // read by the OrderedReader
                    out.add(new Object[] {
                        convert(e[0], key, t.arguments().get(0)),
                        convert(e[1], s.getValueType(), t.arguments().get(1))
                    });
                }
                return out;
            }
            case TUPLE: {
                GenericRecord record = (GenericRecord) v;
                List<Schema.Field> fields = tupleFields(t, s);
                Object[] out = new Object[fields.size()];
                for (int i = 0; i < out.length; i++) {
                    Schema.Field f = fields.get(i);
                    out[i] = convert(
                            record.get(f.pos()), f.schema(), t.arguments().get(i));
                }
                return out;
            }
            default:
                throw new IllegalArgumentException(t.name());
        }
    }

    private static final Pattern QUAD = Pattern.compile("([0-9]{1,3})\\.([0-9]{1,3})\\.([0-9]{1,3})\\.([0-9]{1,3})");

    /**
     * A dotted quad (avro-clickhouse.md: "IPv4 from a dotted quad (192.168.0.1)"; four decimal parts of one
     * to three ASCII digits, each at most 255, leading zeros allowed, as the json-rows reference reads it) as
     * the address's 32 bits, or -1.
     */
    static long ipv4(String text) {
        Matcher m = QUAD.matcher(text);
        if (!m.matches()) {
            return -1;
        }
        long address = 0;
        for (int i = 1; i <= 4; i++) {
            int part = Integer.parseInt(m.group(i));
            if (part > 255) {
                return -1;
            }
            address = address << 8 | part;
        }
        return address;
    }

    private static final Pattern GROUP = Pattern.compile("[0-9a-fA-F]{1,4}");

    /**
     * An IPv6 address in any text form of RFC 4291 section 2.2 as its 16 bytes, or null: eight groups of one to
     * four hex digits separated by colons; or fewer, with one {@code ::} standing for one or more groups of
     * zeros; the last two groups may be written as a dotted quad ({@code ::ffff:1.2.3.4}). No zone index, no
     * brackets, no other spaces or characters.
     */
    static byte[] ipv6(String text) {
        int gap = text.indexOf("::");
        if (gap >= 0 && text.indexOf("::", gap + 1) >= 0) {
            return null;
        }
        List<Integer> head = groups(gap < 0 ? text : text.substring(0, gap), gap < 0);
        List<Integer> tail = gap < 0 ? List.of() : groups(text.substring(gap + 2), true);
        if (head == null || tail == null) {
            return null;
        }
        int explicit = head.size() + tail.size();
        if (gap < 0 ? explicit != 8 : explicit > 7) {
            return null;
        }
        byte[] out = new byte[16];
        for (int i = 0; i < head.size(); i++) {
            out[2 * i] = (byte) (head.get(i) >>> 8);
            out[2 * i + 1] = (byte) (int) head.get(i);
        }
        for (int i = 0; i < tail.size(); i++) {
            int at = 8 - tail.size() + i;
            out[2 * at] = (byte) (tail.get(i) >>> 8);
            out[2 * at + 1] = (byte) (int) tail.get(i);
        }
        return out;
    }

    /** The 16-bit groups of a part of an IPv6 text (a dotted quad last, where it may stand, is two); or null. */
    private static List<Integer> groups(String part, boolean quadAllowed) {
        List<Integer> out = new ArrayList<>();
        if (part.isEmpty()) {
            return out;
        }
        String[] pieces = part.split(":", -1);
        for (int i = 0; i < pieces.length; i++) {
            String piece = pieces[i];
            if (i == pieces.length - 1 && quadAllowed && piece.contains(".")) {
                long v4 = ipv4(piece);
                if (v4 < 0) {
                    return null;
                }
                out.add((int) (v4 >>> 16));
                out.add((int) (v4 & 0xFFFF));
            } else if (GROUP.matcher(piece).matches()) {
                out.add(Integer.parseInt(piece, 16));
            } else {
                return null;
            }
        }
        return out;
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
