package dev.etl.avro.clickhouse;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.StringJoiner;
import org.apache.avro.JsonProperties;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.jspecify.annotations.Nullable;

/**
 * The ClickHouse column type of an Avro field that auto-evolve adds to a table, and the {@code DEFAULT} that
 * gives rows inserted without it the value Avro's reader default gives. The table (documented in the YAML
 * pipeline guide's "Schema evolution"):
 *
 * <table>
 * <caption>Avro → ClickHouse</caption>
 * <tr><th>Avro</th><th>column</th></tr>
 * <tr><td>boolean</td><td>{@code Bool} where the server has it (21.12 on), else {@code UInt8}</td></tr>
 * <tr><td>int, long, float, double</td><td>{@code Int32}, {@code Int64}, {@code Float32}, {@code Float64}</td></tr>
 * <tr><td>string, bytes</td><td>{@code String}</td></tr>
 * <tr><td>enum</td><td>{@code String} (a new symbol needs no ALTER; see below)</td></tr>
 * <tr><td>fixed</td><td>{@code FixedString(n)}</td></tr>
 * <tr><td>int date</td><td>{@code Date}</td></tr>
 * <tr><td>long timestamp-millis / -micros</td><td>{@code DateTime64(3)} / {@code DateTime64(6)} where the
 *     server has it (20.1 on), else {@code DateTime} (seconds: the transcoder truncates)</td></tr>
 * <tr><td>string uuid</td><td>{@code UUID}</td></tr>
 * <tr><td>bytes/fixed decimal(p, s)</td><td>{@code Decimal(p, s)}, p ≤ 38</td></tr>
 * <tr><td>union [null, T]</td><td>{@code Nullable(T)} (T not an array or map)</td></tr>
 * <tr><td>array&lt;T&gt;</td><td>{@code Array(T)}</td></tr>
 * <tr><td>map&lt;T&gt;</td><td>{@code Map(String, T)} where the server has it (21.8 on), else refused</td></tr>
 * <tr><td>record</td><td>one column per leaf field, named by its path with {@code _} for {@code .}</td></tr>
 * </table>
 *
 * Anything else (a union of several types, a null, a record inside an array or map) has no mapping: the field
 * is refused. An enum becomes {@code String} rather than {@code Enum8}: producers add symbols (a compatible
 * Avro change), and an {@code Enum8} column would reject them until another ALTER; {@code LowCardinality} is
 * experimental on 18.16. Stateless.
 */
public final class AvroColumnTypes {
    private AvroColumnTypes() {}

    /**
     * What the server's version supports of the types above.
     *
     * @param bool       {@code Bool} (21.12 on)
     * @param dateTime64 {@code DateTime64} (20.1 on)
     * @param map        {@code Map} (21.8 on, when it stopped being experimental)
     */
    public record Server(boolean bool, boolean dateTime64, boolean map) {
        /** ClickHouse 18.16: none of the three. */
        public static final Server LEGACY = new Server(false, false, false);

        /** The types of a server by its {@code SELECT version()} ("18.16.1", "24.3.2.23"). */
        public static Server of(String version) {
            String[] parts = version.strip().split("\\.");
            int major;
            int minor;
            try {
                major = Integer.parseInt(parts[0]);
                minor = parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
            } catch (NumberFormatException e) {
                return LEGACY;
            }
            int v = major * 100 + minor;
            return new Server(v >= 2112, v >= 2001, v >= 2108);
        }
    }

    /** Why a field cannot become a column. */
    public static final class Unmappable extends Exception {
        private static final long serialVersionUID = 1L;

        Unmappable(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * The column type of a value of {@code schema}.
     *
     * @throws Unmappable saying why there is none
     */
    public static String type(Schema schema, Server server) throws Unmappable {
        Objects.requireNonNull(server, "server");
        LogicalType logical = schema.getLogicalType();
        switch (schema.getType()) {
            case BOOLEAN:
                return server.bool() ? "Bool" : "UInt8";
            case INT:
                if (logical != null && "date".equals(logical.getName())) {
                    return "Date";
                }
                return "Int32";
            case LONG:
                if (logical != null) {
                    String name = logical.getName();
                    if (name.endsWith("timestamp-millis")) {
                        return server.dateTime64() ? "DateTime64(3)" : "DateTime";
                    }
                    if (name.endsWith("timestamp-micros")) {
                        return server.dateTime64() ? "DateTime64(6)" : "DateTime";
                    }
                    if (name.endsWith("timestamp-nanos")) {
                        return server.dateTime64() ? "DateTime64(9)" : "DateTime";
                    }
                }
                return "Int64";
            case FLOAT:
                return "Float32";
            case DOUBLE:
                return "Float64";
            case STRING:
                if (logical != null && "uuid".equals(logical.getName())) {
                    return "UUID";
                }
                return "String";
            case BYTES:
            case FIXED:
                if (logical instanceof LogicalTypes.Decimal decimal) {
                    if (decimal.getPrecision() > 38) {
                        throw new Unmappable("decimal(" + decimal.getPrecision() + ", " + decimal.getScale()
                                + ") has more than 38 digits");
                    }
                    return "Decimal(" + decimal.getPrecision() + ", " + decimal.getScale() + ")";
                }
                return schema.getType() == Schema.Type.FIXED ? "FixedString(" + schema.getFixedSize() + ")" : "String";
            case ENUM:
                return "String";
            case UNION: {
                Schema value = nullableValue(schema);
                if (value == null) {
                    throw new Unmappable("a union of " + schema.getTypes().size() + " branches other than [null, T]");
                }
                if (value.getType() == Schema.Type.ARRAY || value.getType() == Schema.Type.MAP) {
                    throw new Unmappable("a nullable " + value.getType().getName() + " (ClickHouse has no "
                            + "Nullable(Array) or Nullable(Map))");
                }
                if (value.getType() == Schema.Type.RECORD) {
                    throw new Unmappable("a nullable record");
                }
                return "Nullable(" + type(value, server) + ")";
            }
            case ARRAY:
                if (schema.getElementType().getType() == Schema.Type.RECORD) {
                    throw new Unmappable("an array of records");
                }
                return "Array(" + type(schema.getElementType(), server) + ")";
            case MAP:
                if (!server.map()) {
                    throw new Unmappable("a map (the server has no Map type)");
                }
                if (schema.getValueType().getType() == Schema.Type.RECORD) {
                    throw new Unmappable("a map of records");
                }
                return "Map(String, " + type(schema.getValueType(), server) + ")";
            case RECORD:
                throw new Unmappable("a record (its leaf fields become columns)");
            default:
                throw new Unmappable("type " + schema.getType().getName() + " has no column type");
        }
    }

    /** The T of a union [null, T] or [T, null], else null. */
    static @Nullable Schema nullableValue(Schema union) {
        List<Schema> types = union.getTypes();
        if (types.size() != 2) {
            return null;
        }
        if (types.get(0).getType() == Schema.Type.NULL) {
            return types.get(1).getType() == Schema.Type.NULL ? null : types.get(1);
        }
        return types.get(1).getType() == Schema.Type.NULL ? types.get(0) : null;
    }

    /**
     * The SQL of a {@code DEFAULT} of a column of {@link #type type(schema)} equal to the Avro default value
     * {@code value} (as {@link Schema.Field#defaultVal()} gives it), or "" when it has none or it cannot be
     * written as a constant expression (the type's default then applies).
     */
    public static String defaultExpression(Schema schema, @Nullable Object value, Server server) {
        if (value == null) {
            return "";
        }
        try {
            return literal(schema, value, server);
        } catch (RuntimeException | Unmappable e) {
            return "";
        }
    }

    private static String literal(Schema schema, Object value, Server server) throws Unmappable {
        if (value == JsonProperties.NULL_VALUE) {
            if (schema.getType() == Schema.Type.UNION || schema.getType() == Schema.Type.NULL) {
                return "NULL";
            }
            throw new Unmappable("null for " + schema);
        }
        LogicalType logical = schema.getLogicalType();
        switch (schema.getType()) {
            case UNION:
                // Avro's default is of the union's first branch.
                return literal(schema.getTypes().get(0), value, server);
            case BOOLEAN:
                return ((Boolean) value) ? "1" : "0";
            case INT:
                if (logical != null && "date".equals(logical.getName())) {
                    return quote(
                            LocalDate.ofEpochDay(((Number) value).longValue()).toString());
                }
                return Long.toString(((Number) value).longValue());
            case LONG: {
                long n = ((Number) value).longValue();
                String type = type(schema, server);
                if (type.startsWith("DateTime64(")) {
                    String unit =
                            type.equals("DateTime64(3)") ? "Milli" : type.equals("DateTime64(6)") ? "Micro" : "Nano";
                    return "fromUnixTimestamp64" + unit + "(toInt64(" + n + "))";
                }
                if (type.equals("DateTime")) {
                    long perSecond = logical.getName().endsWith("millis")
                            ? 1_000L
                            : logical.getName().endsWith("micros") ? 1_000_000L : 1_000_000_000L;
                    return "toDateTime(" + Math.floorDiv(n, perSecond) + ")";
                }
                return Long.toString(n);
            }
            case FLOAT:
            case DOUBLE: {
                double d = ((Number) value).doubleValue();
                if (Double.isNaN(d)) {
                    return "nan";
                }
                if (Double.isInfinite(d)) {
                    return d > 0 ? "inf" : "-inf";
                }
                return schema.getType() == Schema.Type.FLOAT ? Float.toString((float) d) : Double.toString(d);
            }
            case STRING:
                if (logical != null && "uuid".equals(logical.getName())) {
                    return "toUUID(" + quote(value.toString()) + ")";
                }
                return quote(value.toString());
            case ENUM:
                return quote(value.toString());
            case BYTES:
            case FIXED: {
                byte[] bytes = value instanceof byte[] b ? b : value.toString().getBytes(StandardCharsets.ISO_8859_1);
                if (logical instanceof LogicalTypes.Decimal decimal) {
                    BigDecimal d = new BigDecimal(new BigInteger(bytes), decimal.getScale());
                    return "CAST(" + quote(d.toPlainString()) + " AS " + type(schema, server) + ")";
                }
                return quoteBytes(bytes);
            }
            case ARRAY: {
                StringJoiner items = new StringJoiner(", ", "[", "]");
                for (Object item : (Collection<?>) value) {
                    items.add(literal(schema.getElementType(), item, server));
                }
                return items.toString();
            }
            case MAP: {
                Map<?, ?> map = (Map<?, ?>) value;
                if (map.isEmpty()) {
                    return "map()";
                }
                StringJoiner items = new StringJoiner(", ", "map(", ")");
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    items.add(quote(e.getKey().toString()));
                    items.add(literal(schema.getValueType(), e.getValue(), server));
                }
                return items.toString();
            }
            default:
                throw new Unmappable("no literal of " + schema.getType());
        }
    }

    /** A ClickHouse string literal of {@code s}. */
    static String quote(String s) {
        StringBuilder out = new StringBuilder(s.length() + 2).append('\'');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\'' -> out.append("\\'");
                case '\n' -> out.append("\\n");
                case '\t' -> out.append("\\t");
                case '\r' -> out.append("\\r");
                case '\0' -> out.append("\\0");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\x%02X", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('\'').toString();
    }

    /** A ClickHouse string literal of raw bytes: printable ASCII as is, the rest as {@code \xHH}. */
    static String quoteBytes(byte[] bytes) {
        StringBuilder out = new StringBuilder(bytes.length + 2).append('\'');
        for (byte b : bytes) {
            int c = b & 0xFF;
            if (c == '\\' || c == '\'') {
                out.append('\\').append((char) c);
            } else if (c >= 0x20 && c < 0x7F) {
                out.append((char) c);
            } else {
                out.append(String.format("\\x%02X", c));
            }
        }
        return out.append('\'').toString();
    }
}
