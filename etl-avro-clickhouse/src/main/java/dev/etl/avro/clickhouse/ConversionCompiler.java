package dev.etl.avro.clickhouse;

import dev.etl.clickhouse.ColumnType;
import dev.etl.sink.RowBuffer;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.Schema.Type;

/**
 * Compiles the conversion of one mapped field: a writer schema, the reader schema it resolves to
 * (Avro's rules: promotions, enum symbols by name with the reader's default, union branches by type
 * and name), and a column type. What the value <em>means</em> (a {@code date}, a
 * {@code timestamp-micros}, a {@code decimal}) comes from the reader schema; how it is read comes
 * from the writer schema.
 *
 * <p>Throws {@link AvroMappingException} naming the field, the column and both types for every pair
 * it does not write.
 */
final class ConversionCompiler {
    private static final long UINT32_MAX = 0xFFFF_FFFFL;
    private static final int DATE32_MIN = -25_567;
    private static final int DATE32_MAX = 120_529;

    private final String field;
    private final String column;

    ConversionCompiler(String field, String column) {
        this.field = field;
        this.column = column;
    }

    /**
     * The column type the transcoder writes for {@code type}: parsed ({@link ColumnType#parse}), with every
     * {@code LowCardinality(T)} read as {@code T} (the same bytes in RowBinary), and every part of it one the
     * transcoder writes: the integers up to 64 bits, floats, Bool, String, FixedString, Date, Date32,
     * DateTime, DateTime64, Decimal, UUID, IPv4, IPv6, Enum8/16, and Nullable, Array, Map (String or
     * FixedString keys), Tuple and Variant of those.
     *
     * @throws IllegalArgumentException naming the type and the part the transcoder does not write
     */
    static ColumnType columnType(String type) {
        ColumnType parsed = ColumnType.parse(type).withoutLowCardinality();
        requireTranscodable(parsed, type);
        return parsed;
    }

    private static void requireTranscodable(ColumnType t, String declared) {
        // A switch without default: a kind added to ColumnType does not compile until it is decided here.
        boolean written = switch (t.kind()) {
            case INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32, UINT64 -> true;
            case FLOAT32, FLOAT64, BOOL, STRING, FIXED_STRING, UUID, IPV4, IPV6 -> true;
            case DATE, DATE32, DATE_TIME, DATE_TIME64, DECIMAL, ENUM8, ENUM16 -> true;
            case NULLABLE, ARRAY, TUPLE -> {
                for (ColumnType a : t.arguments()) {
                    requireTranscodable(a, declared);
                }
                yield true;
            }
            case MAP -> {
                ColumnType key = t.arguments().get(0);
                if (key.kind() != ColumnType.Kind.STRING && key.kind() != ColumnType.Kind.FIXED_STRING) {
                    throw new IllegalArgumentException("ClickHouse type '" + declared + "': the key of '" + t.name()
                            + "' is written from an Avro map's string keys: String, LowCardinality(String) or "
                            + "FixedString(n)");
                }
                requireTranscodable(t.arguments().get(1), declared);
                yield true;
            }
            case OTHER -> {
                if (!VariantTypes.isVariant(t)) {
                    yield false;
                }
                for (ColumnType a : t.arguments()) {
                    if (a.kind() == ColumnType.Kind.NULLABLE) {
                        throw new IllegalArgumentException("ClickHouse type '" + declared + "': a Variant holds no "
                                + "Nullable type (NULL is a Variant value of its own)");
                    }
                    requireTranscodable(a, declared);
                }
                yield true;
            }
            case INT128, INT256, UINT128, UINT256, LOW_CARDINALITY -> false;
        };
        if (!written) {
            throw new IllegalArgumentException("ClickHouse type '" + declared + "': type '" + t.name()
                    + "' is not supported by the Avro transcoder");
        }
    }

    /**
     * The conversion of a field written as {@code writer}, read as {@code reader}, into a column of
     * {@code type}. When the field path names a union branch ({@code amount[long]}, see {@link UnionBranch}),
     * only that branch's values are converted and the others write NULL.
     */
    /**
     * Refuses a mapping that writes a record whole (a Tuple column) and also maps a field inside it to another
     * column: the plans read a mapped record as one value and do not descend into it.
     */
    static void requireTuplesNotAlsoDescended(List<AvroRowMapping.Mapped> mapped) {
        for (AvroRowMapping.Mapped whole : mapped) {
            if (whole.isIndex() || whole.type().kind() != ColumnType.Kind.TUPLE) {
                continue;
            }
            String prefix = UnionBranch.fieldPath(whole.path()) + ".";
            for (AvroRowMapping.Mapped m : mapped) {
                if (!m.isIndex() && m.path().startsWith(prefix)) {
                    throw new AvroMappingException(
                            m.path(),
                            m.column().name(),
                            "-",
                            m.column().type(),
                            "column '" + whole.column().name() + "' writes the record '" + whole.path()
                                    + "' whole (a Tuple), so its fields cannot also be mapped to other columns: "
                                    + "map the record whole or field by field");
                }
            }
        }
    }

    Conversion compile(Schema writer, Schema reader, ColumnType type) {
        String selector = UnionBranch.selector(field);
        return selector == null ? convert(writer, reader, type) : branch(selector, writer, reader, type);
    }

    /** The column of one union branch: that branch's values into {@code Nullable(T)}, the other branches NULL. */
    private Conversion branch(String selector, Schema writer, Schema reader, ColumnType type) {
        if (reader.getType() != Type.UNION) {
            throw mismatch(
                    writer,
                    reader,
                    type,
                    "[" + selector + "] selects a branch of a union, and the reader field is not a union");
        }
        Schema selected = UnionBranch.find(reader, selector);
        if (selected == null) {
            throw mismatch(
                    writer,
                    reader,
                    type,
                    "the reader union has no branch '" + selector + "' (branches are named by type: int, long, "
                            + "string, …, or a record's, enum's or fixed's name)");
        }
        if (type.kind() != ColumnType.Kind.NULLABLE) {
            throw mismatch(
                    writer,
                    reader,
                    type,
                    "a column of one union branch is Nullable(...): the other branches write NULL");
        }
        List<Schema> branches = writer.getType() == Type.UNION ? writer.getTypes() : List.of(writer);
        Conversion[] children = new Conversion[branches.size()];
        for (int i = 0; i < children.length; i++) {
            Schema w = branches.get(i);
            Schema target = ReaderBranches.resolve(reader, w, field, column, type);
            if (target == selected) {
                children[i] = convert(w, target, type);
            } else {
                children[i] = Conversion.builder(Conversion.OP_OTHER_BRANCH, type.name())
                        .passes(new ResolvedSkip[] {ResolvedSkip.compile(w, target)}, new Schema[] {w})
                        .build();
            }
        }
        return writer.getType() == Type.UNION
                ? Conversion.builder(Conversion.OP_UNION, type.name())
                        .children(children)
                        .build()
                : children[0];
    }

    private Conversion convert(Schema writer, Schema reader, ColumnType type) {
        if (VariantTypes.isVariant(type)) {
            return variant(writer, reader, type);
        }
        if (writer.getType() == Type.UNION) {
            List<Schema> branches = writer.getTypes();
            if (type.kind() != ColumnType.Kind.NULLABLE && branches.stream().anyMatch(b -> b.getType() == Type.NULL)) {
                throw mismatch(writer, reader, type, "the field may be null; declare the column Nullable(...)");
            }
            Conversion[] children = new Conversion[branches.size()];
            for (int i = 0; i < children.length; i++) {
                Schema branch = branches.get(i);
                Schema target = reader.getType() == Type.UNION
                        ? ReaderBranches.resolve(reader, branch, field, column, type)
                        : reader;
                children[i] = convert(branch, target, type);
            }
            return Conversion.builder(Conversion.OP_UNION, type.name())
                    .children(children)
                    .build();
        }
        if (reader.getType() == Type.UNION) {
            return convert(writer, ReaderBranches.resolve(reader, writer, field, column, type), type);
        }
        if (writer.getType() == Type.NULL) {
            if (reader.getType() != Type.NULL) {
                throw mismatch(writer, reader, type, "null does not resolve to " + AvroTypeNames.describe(reader));
            }
            if (type.kind() != ColumnType.Kind.NULLABLE) {
                throw mismatch(writer, reader, type, "the field may be null; declare the column Nullable(...)");
            }
            return Conversion.builder(Conversion.OP_NULL, type.name()).build();
        }
        if (type.kind() == ColumnType.Kind.NULLABLE) {
            return Conversion.builder(Conversion.OP_NOT_NULL, type.name())
                    .children(convert(writer, reader, type.inner()))
                    .build();
        }
        return value(writer, reader, type);
    }

    private Conversion value(Schema writer, Schema reader, ColumnType type) {
        Type w = writer.getType();
        Type r = reader.getType();
        LogicalType logical = reader.getLogicalType();
        String logicalName = logical == null ? null : logical.getName();
        switch (r) {
            case INT:
            case LONG: {
                int read;
                if (w == Type.INT) {
                    read = Conversion.READ_INT;
                } else if (w == Type.LONG && r == Type.LONG) {
                    read = Conversion.READ_LONG;
                } else {
                    throw promotion(writer, reader, type);
                }
                return integral(read, r, logicalName, writer, reader, type);
            }
            case FLOAT:
            case DOUBLE: {
                int read = switch (w) {
                    case INT -> r == Type.FLOAT ? Conversion.READ_INT_AS_FLOAT : Conversion.READ_INT_AS_DOUBLE;
                    case LONG -> r == Type.FLOAT ? Conversion.READ_LONG_AS_FLOAT : Conversion.READ_LONG_AS_DOUBLE;
                    case FLOAT -> Conversion.READ_FLOAT;
                    case DOUBLE -> {
                        if (r != Type.DOUBLE) {
                            throw promotion(writer, reader, type);
                        }
                        yield Conversion.READ_DOUBLE;
                    }
                    default -> throw promotion(writer, reader, type);
                };
                if (type.kind() == ColumnType.Kind.FLOAT64) {
                    return number(read, Conversion.WRITE_FLOAT64, type).build();
                }
                if (type.kind() == ColumnType.Kind.FLOAT32 && r == Type.FLOAT) {
                    return number(read, Conversion.WRITE_FLOAT32, type).build();
                }
                throw mismatch(
                        writer,
                        reader,
                        type,
                        r == Type.DOUBLE && type.kind() == ColumnType.Kind.FLOAT32
                                ? "a double is not narrowed to Float32 (declare the column Float64)"
                                : r == Type.DOUBLE
                                        ? "a double is written to Float64 columns only"
                                        : "a float is written to Float32 or Float64 columns only");
            }
            case BOOLEAN:
                if (w != Type.BOOLEAN) {
                    throw promotion(writer, reader, type);
                }
                if (type.kind() != ColumnType.Kind.BOOL && type.kind() != ColumnType.Kind.UINT8) {
                    throw mismatch(writer, reader, type, "a boolean is written to Bool or UInt8 columns only");
                }
                return Conversion.builder(Conversion.OP_BOOL, type.name()).build();
            case STRING:
            case BYTES:
                if (w != Type.STRING && w != Type.BYTES) {
                    throw promotion(writer, reader, type);
                }
                if (logical instanceof LogicalTypes.Decimal decimal) {
                    if (type.kind() != ColumnType.Kind.DECIMAL) {
                        throw mismatch(writer, reader, type, "a decimal is written to Decimal columns only");
                    }
                    return decimal(Conversion.OP_DECIMAL_BYTES, 0, decimal, writer, reader, type);
                }
                if (type.kind() == ColumnType.Kind.UUID) {
                    if (!"uuid".equals(logicalName)) {
                        throw mismatch(writer, reader, type, "a UUID column needs logicalType uuid");
                    }
                    return Conversion.builder(Conversion.OP_UUID_STRING, type.name())
                            .build();
                }
                if (type.kind() == ColumnType.Kind.STRING) {
                    return Conversion.builder(Conversion.OP_STRING, type.name()).build();
                }
                if (type.kind() == ColumnType.Kind.IPV4 && r == Type.STRING) {
                    return Conversion.builder(Conversion.OP_IPV4_STRING, type.name())
                            .build();
                }
                if (type.kind() == ColumnType.Kind.IPV6) {
                    return Conversion.builder(
                                    r == Type.STRING ? Conversion.OP_IPV6_STRING : Conversion.OP_IPV6_BYTES,
                                    type.name())
                            .build();
                }
                if (type.kind() == ColumnType.Kind.FIXED_STRING) {
                    return Conversion.builder(Conversion.OP_BYTES_TO_FIXED_STRING, type.name())
                            .width(type.length())
                            .build();
                }
                throw mismatch(
                        writer,
                        reader,
                        type,
                        r == Type.STRING
                                ? "a string is written to String, FixedString, IPv4, IPv6 or (with logicalType uuid) "
                                        + "UUID columns only"
                                : "a bytes is written to String, FixedString or IPv6 (16 bytes) columns only");
            case FIXED: {
                if (w != Type.FIXED || writer.getFixedSize() != reader.getFixedSize()) {
                    throw promotion(writer, reader, type);
                }
                int size = writer.getFixedSize();
                if (logical instanceof LogicalTypes.Decimal decimal) {
                    if (type.kind() != ColumnType.Kind.DECIMAL) {
                        throw mismatch(writer, reader, type, "a decimal is written to Decimal columns only");
                    }
                    return decimal(Conversion.OP_DECIMAL_FIXED, size, decimal, writer, reader, type);
                }
                if (type.kind() == ColumnType.Kind.UUID) {
                    if (size != 16 || !"uuid".equals(logicalName)) {
                        throw mismatch(writer, reader, type, "a UUID column needs a fixed(16) with logicalType uuid");
                    }
                    return Conversion.builder(Conversion.OP_UUID_FIXED, type.name())
                            .size(16)
                            .build();
                }
                if (type.kind() == ColumnType.Kind.IPV4 && size == 4) {
                    return Conversion.builder(Conversion.OP_IPV4_FIXED, type.name())
                            .size(4)
                            .build();
                }
                if (type.kind() == ColumnType.Kind.IPV6 && size == 16) {
                    return Conversion.builder(Conversion.OP_IPV6_FIXED, type.name())
                            .size(16)
                            .build();
                }
                if (type.kind() == ColumnType.Kind.FIXED_STRING) {
                    if (type.length() < size) {
                        throw mismatch(
                                writer, reader, type, "a fixed of " + size + " bytes does not fit " + type.name());
                    }
                    return Conversion.builder(Conversion.OP_FIXED_TO_FIXED_STRING, type.name())
                            .size(size)
                            .width(type.length())
                            .build();
                }
                if (type.kind() == ColumnType.Kind.STRING) {
                    return Conversion.builder(Conversion.OP_FIXED_TO_STRING, type.name())
                            .size(size)
                            .build();
                }
                throw mismatch(
                        writer,
                        reader,
                        type,
                        "a fixed is written to FixedString, String, IPv4 (4 bytes), IPv6 (16 bytes) or (16 bytes, "
                                + "logicalType uuid) UUID columns only");
            }
            case ENUM:
                if (w != Type.ENUM) {
                    throw promotion(writer, reader, type);
                }
                return enumeration(writer, reader, type);
            case ARRAY:
                if (w != Type.ARRAY) {
                    throw promotion(writer, reader, type);
                }
                if (type.kind() != ColumnType.Kind.ARRAY) {
                    throw mismatch(writer, reader, type, "an array is written to Array(...) columns only");
                }
                return Conversion.builder(Conversion.OP_ARRAY, type.name())
                        .children(convert(writer.getElementType(), reader.getElementType(), type.inner()))
                        .build();
            case RECORD:
                if (w != Type.RECORD) {
                    throw promotion(writer, reader, type);
                }
                if (type.kind() != ColumnType.Kind.TUPLE) {
                    throw mismatch(
                            writer,
                            reader,
                            type,
                            "a record is written to Tuple(...) columns only; or map its fields (path a.b)");
                }
                return tuple(writer, reader, type);
            case MAP:
                if (w != Type.MAP) {
                    throw promotion(writer, reader, type);
                }
                if (type.kind() != ColumnType.Kind.MAP) {
                    throw mismatch(writer, reader, type, "a map is written to Map(...) columns only");
                }
                return map(writer, reader, type);
            default:
                throw mismatch(writer, reader, type, "not supported by the transcoder");
        }
    }

    /** An Avro map as {@code Map(K, V)}: Avro's string keys into K (String or FixedString(n)), values into V. */
    private Conversion map(Schema writer, Schema reader, ColumnType type) {
        ColumnType keyType = type.arguments().get(0);
        Schema string = Schema.create(Type.STRING);
        Conversion key = convert(string, string, keyType);
        Conversion value = convert(
                writer.getValueType(), reader.getValueType(), type.arguments().get(1));
        Conversion pair = Conversion.builder(Conversion.OP_PAIR, type.name())
                .children(key, value)
                .build();
        return Conversion.builder(Conversion.OP_MAP, type.name()).children(pair).build();
    }

    /**
     * A record as {@code Tuple(...)}: an unnamed tuple's elements are the reader record's fields by position
     * (as many elements as fields), a named tuple's the reader fields of those names. Each element is converted
     * as a column would be from the writer field that resolves to its reader field (by name or reader alias);
     * an element whose field the writer lacks is the reader default, encoded once here.
     */
    private Conversion tuple(Schema writer, Schema reader, ColumnType type) {
        List<ColumnType> elements = type.arguments();
        List<String> names = type.elementNames();
        List<Schema.Field> readerFields = reader.getFields();
        Schema.Field[] targets = new Schema.Field[elements.size()];
        if (names.isEmpty()) {
            if (elements.size() != readerFields.size()) {
                throw mismatch(
                        writer,
                        reader,
                        type,
                        "an unnamed Tuple takes the record's fields by position: " + elements.size()
                                + " elements for " + readerFields.size() + " reader fields (name the elements, "
                                + "Tuple(a T, …), to take some fields by name)");
            }
            readerFields.toArray(targets);
        } else {
            for (int e = 0; e < targets.length; e++) {
                String name = names.get(e);
                targets[e] = name == null ? null : reader.getField(name);
                if (targets[e] == null) {
                    throw mismatch(
                            writer,
                            reader,
                            type,
                            name == null
                                    ? "element " + (e + 1) + " has no name (name all elements or none)"
                                    : "the reader record has no field '" + name + "' for the tuple element");
                }
            }
        }
        List<Schema.Field> writerFields = writer.getFields();
        int n = writerFields.size();
        Schema.Field[] readerOf = new Schema.Field[n];
        java.util.Set<String> resolved = new java.util.HashSet<>();
        for (int k = 0; k < n; k++) {
            Schema.Field rf = PlanCompiler.readerField(reader, writerFields.get(k));
            // A second writer field resolving to one reader field (a name and an alias of it): Avro reads the first.
            readerOf[k] = rf != null && resolved.add(rf.name()) ? rf : null;
        }
        Conversion[] children = new Conversion[n];
        int[] elementFields = new int[targets.length];
        byte[][] constants = new byte[targets.length][];
        boolean[] read = new boolean[n];
        for (int e = 0; e < targets.length; e++) {
            Schema.Field rf = targets[e];
            ColumnType elementType = elements.get(e);
            int k = 0;
            while (k < n && readerOf[k] != rf) {
                k++;
            }
            if (k < n) {
                if (read[k]) {
                    throw mismatch(writer, reader, type, "two tuple elements read field '" + rf.name() + "'");
                }
                read[k] = true;
                elementFields[e] = k;
                children[k] = convert(writerFields.get(k).schema(), rf.schema(), elementType);
            } else {
                elementFields[e] = -1;
                constants[e] = defaultElement(writer, reader, type, rf, elementType);
            }
        }
        ResolvedSkip[] passes = new ResolvedSkip[n];
        Schema[] skipSchemas = new Schema[n];
        for (int k = 0; k < n; k++) {
            Schema w = writerFields.get(k).schema();
            skipSchemas[k] = w;
            // Passed over as the object path decodes it (the reader holds it), or as Avro skips it (only the
            // writer has it); a field an element reads is passed as its conversion reads it.
            Schema as = read[k] ? w : readerOf[k] == null ? null : readerOf[k].schema();
            passes[k] = as == null ? null : ResolvedSkip.compile(w, as);
        }
        return Conversion.builder(Conversion.OP_TUPLE, type.name())
                .children(children)
                .passes(passes, skipSchemas)
                .elements(elementFields, constants)
                .build();
    }

    /** A tuple element's RowBinary bytes from the reader field's default (the writer lacks the field). */
    private byte[] defaultElement(
            Schema writer, Schema reader, ColumnType type, Schema.Field rf, ColumnType elementType) {
        if (!rf.hasDefaultValue()) {
            throw mismatch(
                    writer,
                    reader,
                    type,
                    "the writer record has no field '" + rf.name() + "' and the reader field has no default");
        }
        byte[] avro = ReaderDefaults.avroBytes(
                rf.schema(), org.apache.avro.generic.GenericData.get().getDefaultValue(rf));
        Conversion c = convert(rf.schema(), rf.schema(), elementType);
        dev.etl.avro.binary.AvroCursor in = new dev.etl.avro.binary.AvroCursor();
        in.wrap(avro, 0, avro.length);
        RowBuffer out = new RowBuffer(16);
        try {
            c.write(in, out);
        } catch (ValueRejected e) {
            throw mismatch(
                    writer,
                    reader,
                    type,
                    "the default of reader field '" + rf.name() + "' does not fit " + elementType.name() + ": "
                            + e.getMessage());
        }
        return out.toByteArray();
    }

    /**
     * A union (or one type) into {@code Variant(T1, …)}: each branch into the first of the Variant's types,
     * as declared, that it converts to, behind that type's discriminator (its index among the types sorted by
     * name, {@link VariantTypes}); null writes the NULL discriminator 255.
     */
    private Conversion variant(Schema writer, Schema reader, ColumnType type) {
        List<Schema> branches = writer.getType() == Type.UNION ? writer.getTypes() : List.of(writer);
        int[] discriminators = VariantTypes.discriminators(type);
        Conversion[] children = new Conversion[branches.size()];
        for (int i = 0; i < children.length; i++) {
            Schema w = branches.get(i);
            Schema target =
                    reader.getType() == Type.UNION ? ReaderBranches.resolve(reader, w, field, column, type) : reader;
            if (w.getType() == Type.NULL) {
                if (target.getType() != Type.NULL) {
                    throw promotion(w, target, type);
                }
                children[i] = Conversion.builder(Conversion.OP_VARIANT, type.name())
                        .width(VariantTypes.NULL_DISCRIMINATOR)
                        .build();
                continue;
            }
            List<ColumnType> types = type.arguments();
            StringBuilder why = new StringBuilder();
            // Two rounds: the types other than String and FixedString first, unless the branch is a string or
            // bytes (an enum or fixed goes to String only when the Variant has nothing closer).
            boolean text = target.getType() == Type.STRING || target.getType() == Type.BYTES;
            int[] order = new int[types.size()];
            int tried = 0;
            for (int round = 0; round < 2; round++) {
                for (int t = 0; t < types.size(); t++) {
                    ColumnType.Kind kind = types.get(t).kind();
                    boolean late = !text && (kind == ColumnType.Kind.STRING || kind == ColumnType.Kind.FIXED_STRING);
                    if (late == (round == 1)) {
                        order[tried++] = t;
                    }
                }
            }
            for (int j = 0; j < order.length && children[i] == null; j++) {
                int t = order[j];
                try {
                    // Whether the branch converts to the type is the reader branch's matter (an enum: every reader
                    // symbol a value of the Enum), as when the mapping was built: a writer that lacks some symbols
                    // must not send its values to another of the Variant's types.
                    convert(target, target, types.get(t));
                    children[i] = Conversion.builder(Conversion.OP_VARIANT, type.name())
                            .width(discriminators[t])
                            .children(convert(w, target, types.get(t)))
                            .build();
                } catch (AvroMappingException e) {
                    why.append(why.length() == 0 ? "" : "; ")
                            .append(types.get(t).name())
                            .append(": ")
                            .append(e.getMessage().substring(e.getMessage().indexOf("): ") + 3));
                }
            }
            if (children[i] == null) {
                throw mismatch(
                        w,
                        target,
                        type,
                        "the branch " + AvroTypeNames.describe(target) + " converts to none of the Variant's types ("
                                + why + ")");
            }
        }
        return writer.getType() == Type.UNION
                ? Conversion.builder(Conversion.OP_UNION, type.name())
                        .children(children)
                        .build()
                : children[0];
    }

    private Conversion integral(int read, Type r, String logical, Schema writer, Schema reader, ColumnType type) {
        switch (type.kind()) {
            case INT8:
                return ints(read, 1, Byte.MIN_VALUE, Byte.MAX_VALUE, type);
            case INT16:
                return ints(read, 2, Short.MIN_VALUE, Short.MAX_VALUE, type);
            case INT32:
                return ints(read, 4, Integer.MIN_VALUE, Integer.MAX_VALUE, type);
            case INT64:
                return ints(read, 8, Long.MIN_VALUE, Long.MAX_VALUE, type);
            case UINT8:
                return ints(read, 1, 0, 0xFF, type);
            case UINT16:
                return ints(read, 2, 0, 0xFFFF, type);
            case UINT32:
                return ints(read, 4, 0, UINT32_MAX, type);
            case UINT64:
                return ints(read, 8, 0, Long.MAX_VALUE, type);
            case IPV4:
                // An int is the address's 32 bits ({@code 0x7F000001} is 127.0.0.1, as RowBinaryEncoder.ipv4
                // takes it); a long is the address as an unsigned number.
                return r == Type.INT
                        ? ints(read, 4, Integer.MIN_VALUE, Integer.MAX_VALUE, type)
                        : ints(read, 4, 0, UINT32_MAX, type);
            case FLOAT32:
                return number(read, Conversion.WRITE_FLOAT32_OF_LONG, type).build();
            case FLOAT64:
                return number(read, Conversion.WRITE_FLOAT64_OF_LONG, type).build();
            case DECIMAL: {
                // The unscaled value (cents into Decimal(18, 2)), as RowBinaryEncoder.decimal64 takes it.
                if (type.precision() > 18) {
                    throw mismatch(
                            writer,
                            reader,
                            type,
                            "an " + r.getName() + " is the unscaled value of a Decimal of at most 18 digits "
                                    + "(Decimal32, Decimal64); for more, use bytes with logicalType decimal");
                }
                long bound = Decimals.pow10(type.precision()) - 1;
                return ints(read, type.fixedWidth(), -bound, bound, type);
            }
            case DATE:
            case DATE32:
                if (!"date".equals(logical)) {
                    throw mismatch(
                            writer, reader, type, "a " + type.kind() + " column needs an int with logicalType date");
                }
                return type.kind() == ColumnType.Kind.DATE
                        ? ints(read, 2, 0, 0xFFFF, type)
                        : ints(read, 4, DATE32_MIN, DATE32_MAX, type);
            case DATE_TIME:
            case DATE_TIME64: {
                int unit = timestampDigits(logical);
                if (r != Type.LONG || unit < 0) {
                    throw mismatch(
                            writer,
                            reader,
                            type,
                            "a " + type.kind() + " column needs a long with logicalType "
                                    + "timestamp-millis, -micros or -nanos (or local-timestamp-*)");
                }
                int precision = type.kind() == ColumnType.Kind.DATE_TIME ? 0 : type.precision();
                long multiplier = precision >= unit ? Decimals.pow10(precision - unit) : 1;
                long divisor = precision < unit ? Decimals.pow10(unit - precision) : 1;
                Conversion.Builder b = number(read, Conversion.WRITE_TIME, type).scale(multiplier, divisor);
                return type.kind() == ColumnType.Kind.DATE_TIME
                        ? b.width(4).range(0, UINT32_MAX).build()
                        : b.width(8).build();
            }
            default:
                throw mismatch(
                        writer,
                        reader,
                        type,
                        "an " + r.getName()
                                + " is written to integer, float, IPv4, Date/Date32 (date) and DateTime/DateTime64 "
                                + "(timestamps) columns only");
        }
    }

    private static int timestampDigits(String logical) {
        if (logical == null) {
            return -1;
        }
        return switch (logical) {
            case "timestamp-millis", "local-timestamp-millis" -> 3;
            case "timestamp-micros", "local-timestamp-micros" -> 6;
            case "timestamp-nanos", "local-timestamp-nanos" -> 9;
            default -> -1;
        };
    }

    private static Conversion ints(int read, int width, long min, long max, ColumnType type) {
        return number(read, Conversion.WRITE_INT, type)
                .width(width)
                .range(min, max)
                .build();
    }

    private static Conversion.Builder number(int read, int write, ColumnType type) {
        return Conversion.builder(Conversion.OP_NUMBER, type.name()).read(read).write(write);
    }

    private Conversion decimal(
            int op, int size, LogicalTypes.Decimal decimal, Schema writer, Schema reader, ColumnType type) {
        if (decimal.getScale() != type.scale()) {
            throw mismatch(
                    writer,
                    reader,
                    type,
                    "scale " + decimal.getScale() + " differs from the column's scale " + type.scale()
                            + " (values are never rescaled)");
        }
        byte[] limit = BigInteger.TEN.pow(type.precision()).toByteArray();
        int first = limit[0] == 0 ? 1 : 0;
        byte[] magnitude = java.util.Arrays.copyOfRange(limit, first, limit.length);
        return Conversion.builder(op, type.name())
                .size(size)
                .width(type.fixedWidth())
                .decimal(type.precision(), magnitude)
                .build();
    }

    private Conversion enumeration(Schema writer, Schema reader, ColumnType type) {
        List<String> symbols = writer.getEnumSymbols();
        boolean code = type.kind() == ColumnType.Kind.ENUM8 || type.kind() == ColumnType.Kind.ENUM16;
        if (!code && type.kind() != ColumnType.Kind.STRING) {
            throw mismatch(writer, reader, type, "an enum is written to Enum8, Enum16 or String columns only");
        }
        int[] codes = new int[symbols.size()];
        byte[][] strings = new byte[symbols.size()][];
        for (int i = 0; i < codes.length; i++) {
            String symbol = symbols.get(i);
            String target = reader.hasEnumSymbol(symbol) ? symbol : reader.getEnumDefault();
            if (target == null) {
                throw mismatch(
                        writer,
                        reader,
                        type,
                        "writer symbol " + symbol + " is not a reader symbol and the " + "reader enum has no default");
            }
            if (code) {
                Integer c = type.enumValues().get(target);
                if (c == null) {
                    throw mismatch(writer, reader, type, "symbol " + target + " has no value in the column's enum");
                }
                codes[i] = c;
            } else {
                RowBuffer rb = new RowBuffer(16);
                byte[] utf8 = target.getBytes(StandardCharsets.UTF_8);
                rb.writeStringBytes(utf8, 0, utf8.length);
                strings[i] = rb.toByteArray();
            }
        }
        if (code) {
            return Conversion.builder(Conversion.OP_ENUM_CODE, type.name())
                    .width(type.fixedWidth())
                    .codes(codes)
                    .build();
        }
        return Conversion.builder(Conversion.OP_ENUM_STRING, type.name())
                .strings(strings)
                .build();
    }

    private AvroMappingException promotion(Schema writer, Schema reader, ColumnType type) {
        return mismatch(
                writer,
                reader,
                type,
                "writer " + AvroTypeNames.describe(writer) + " does not resolve to reader "
                        + AvroTypeNames.describe(reader));
    }

    private AvroMappingException mismatch(Schema writer, Schema reader, ColumnType type, String problem) {
        String avro = writer == reader || writer.equals(reader)
                ? AvroTypeNames.describe(reader)
                : AvroTypeNames.describe(reader) + " (written as " + AvroTypeNames.describe(writer) + ")";
        return new AvroMappingException(field, column, avro, type.name(), problem);
    }
}
