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
     * DateTime, DateTime64, Decimal, UUID, Enum8/16, and Nullable and Array of those.
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
            case FLOAT32, FLOAT64, BOOL, STRING, FIXED_STRING, UUID -> true;
            case DATE, DATE32, DATE_TIME, DATE_TIME64, DECIMAL, ENUM8, ENUM16 -> true;
            case NULLABLE, ARRAY -> {
                requireTranscodable(t.inner(), declared);
                yield true;
            }
            case INT128, INT256, UINT128, UINT256, IPV4, IPV6, LOW_CARDINALITY, MAP, TUPLE, OTHER -> false;
        };
        if (!written) {
            throw new IllegalArgumentException("ClickHouse type '" + declared + "': type '" + t.name()
                    + "' is not supported by the Avro transcoder");
        }
    }

    Conversion compile(Schema writer, Schema reader, ColumnType type) {
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
                children[i] = compile(branch, target, type);
            }
            return Conversion.builder(Conversion.OP_UNION, type.name())
                    .children(children)
                    .build();
        }
        if (reader.getType() == Type.UNION) {
            return compile(writer, ReaderBranches.resolve(reader, writer, field, column, type), type);
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
                    .children(compile(writer, reader, type.inner()))
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
                if (type.kind() == ColumnType.Kind.FIXED_STRING) {
                    return Conversion.builder(Conversion.OP_BYTES_TO_FIXED_STRING, type.name())
                            .width(type.length())
                            .build();
                }
                throw mismatch(
                        writer,
                        reader,
                        type,
                        "a " + r.getName() + " is written to String, FixedString"
                                + (r == Type.STRING ? " or (with logicalType uuid) UUID" : "") + " columns only");
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
                if (type.kind() == ColumnType.Kind.UUID && size == 16) {
                    return Conversion.builder(Conversion.OP_UUID_FIXED, type.name())
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
                        "a fixed is written to FixedString, String or (16 bytes, logicalType uuid) UUID columns only");
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
                        .children(compile(writer.getElementType(), reader.getElementType(), type.inner()))
                        .build();
            case RECORD:
                throw mismatch(writer, reader, type, "a record is not a column value: map its fields (path a.b)");
            case MAP:
                throw mismatch(writer, reader, type, "maps are not supported by the transcoder");
            default:
                throw mismatch(writer, reader, type, "not supported by the transcoder");
        }
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
                                + " is written to integer, float, Date/Date32 (date) and DateTime/DateTime64 (timestamps) columns only");
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
