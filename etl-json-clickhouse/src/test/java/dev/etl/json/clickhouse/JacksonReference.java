package dev.etl.json.clickhouse;

import dev.etl.clickhouse.ClickHouseType;
import dev.etl.clickhouse.ClickHouseTypes;
import dev.etl.clickhouse.ColumnType;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import tools.jackson.databind.JsonNode;

/**
 * The reference model of the property harness: a column's value read from Jackson's tree (the JSON parsed
 * by Jackson 3, numbers as BigDecimal/BigInteger so nothing is rounded on the way), as the Java object
 * {@link ClickHouseTypes}' type of the column takes, written by {@code RowBinaryEncoder}. It implements
 * the documented conversions of {@link JsonRowTranscoder} the plain way, with the JDK's parsers.
 */
final class JacksonReference {
    private JacksonReference() {}

    /** The {@link ClickHouseTypes} type writing {@code type}'s RowBinary. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static ClickHouseType<Object> type(ColumnType type) {
        ColumnType t = type.withoutLowCardinality();
        ClickHouseType<?> r = switch (t.kind()) {
            case INT8 -> ClickHouseTypes.int8();
            case INT16 -> ClickHouseTypes.int16();
            case INT32 -> ClickHouseTypes.int32();
            case INT64 -> ClickHouseTypes.int64();
            case UINT8 -> ClickHouseTypes.uint8();
            case UINT16 -> ClickHouseTypes.uint16();
            case UINT32 -> ClickHouseTypes.uint32();
            case UINT64 -> ClickHouseTypes.uint64();
            case INT128 -> ClickHouseTypes.int128();
            case INT256 -> ClickHouseTypes.int256();
            case UINT128 -> ClickHouseTypes.uint128();
            case UINT256 -> ClickHouseTypes.uint256();
            case FLOAT32 -> ClickHouseTypes.float32();
            case FLOAT64 -> ClickHouseTypes.float64();
            case DECIMAL -> ClickHouseTypes.decimal(t.precision(), t.scale());
            case BOOL -> ClickHouseTypes.bool();
            case STRING -> ClickHouseTypes.string();
            case FIXED_STRING -> ClickHouseTypes.fixedString(t.length());
            case DATE -> ClickHouseTypes.date();
            case DATE32 -> ClickHouseTypes.date32();
            case DATE_TIME -> ClickHouseTypes.dateTime();
            case DATE_TIME64 -> ClickHouseTypes.dateTime64(t.precision());
            case UUID -> ClickHouseTypes.uuid();
            case IPV4 -> ClickHouseTypes.ipv4();
            case ENUM8 -> ClickHouseTypes.enum8(t.enumValues());
            case ENUM16 -> ClickHouseTypes.enum16(t.enumValues());
            case NULLABLE -> ClickHouseTypes.nullable(type(t.inner()));
            case ARRAY -> ClickHouseTypes.array(type(t.inner()));
            case MAP ->
                ClickHouseTypes.map(ClickHouseTypes.string(), type(t.arguments().get(1)));
            default -> throw new IllegalArgumentException("no reference for " + type);
        };
        return (ClickHouseType) r;
    }

    /** The value of {@code node} (null when missing) for a column of {@code type}. */
    static Object value(ColumnType type, JsonNode node) {
        ColumnType t = type.withoutLowCardinality();
        if (t.kind() == ColumnType.Kind.NULLABLE) {
            return node == null || node.isNull() ? null : value(t.inner(), node);
        }
        return switch (t.kind()) {
            case INT8, INT16, INT32, UINT8, UINT16 ->
                node.isBoolean() ? (node.booleanValue() ? 1 : 0) : integer(node).intValueExact();
            case INT64, UINT32, UINT64 -> integer(node).longValueExact();
            case INT128, INT256, UINT128, UINT256 -> integer(node);
            case FLOAT32 -> node.isString() ? Float.parseFloat(node.stringValue()) : Float.parseFloat(number(node));
            case FLOAT64 -> node.isString() ? Double.parseDouble(node.stringValue()) : Double.parseDouble(number(node));
            case DECIMAL -> node.isString() ? new java.math.BigDecimal(node.stringValue()) : node.decimalValue();
            case BOOL -> node.booleanValue();
            case STRING -> node.isString() ? node.stringValue() : number(node);
            case FIXED_STRING -> node.stringValue().getBytes(StandardCharsets.UTF_8);
            case DATE, DATE32 ->
                node.isString() ? LocalDate.parse(node.stringValue()) : LocalDate.ofEpochDay(node.longValue());
            case DATE_TIME -> node.isString() ? instant(node.stringValue()) : Instant.ofEpochSecond(node.longValue());
            case DATE_TIME64 -> node.isString() ? instant(node.stringValue()) : ticks(node.longValue(), t.precision());
            case UUID -> UUID.fromString(node.stringValue());
            case IPV4 -> ipv4(node.stringValue());
            case ENUM8, ENUM16 -> t.enumValues().get(node.stringValue());
            case ARRAY -> {
                List<Object> list = new ArrayList<>();
                for (JsonNode e : node.values()) {
                    list.add(value(t.inner(), e));
                }
                yield list;
            }
            case MAP -> {
                Map<String, Object> map = new LinkedHashMap<>();
                for (Map.Entry<String, JsonNode> e : node.properties()) {
                    map.put(e.getKey(), value(t.arguments().get(1), e.getValue()));
                }
                yield map;
            }
            default -> throw new IllegalArgumentException("no reference for " + type);
        };
    }

    private static BigInteger integer(JsonNode node) {
        return node.isString() ? new BigInteger(node.stringValue()) : node.bigIntegerValue();
    }

    /** A number node's exact value as text (BigDecimal or BigInteger: never a double on the way). */
    private static String number(JsonNode node) {
        return node.isIntegralNumber()
                ? node.bigIntegerValue().toString()
                : node.decimalValue().toString();
    }

    static Instant instant(String text) {
        String s = text.replace(' ', 'T');
        if (s.length() == 10) {
            return LocalDate.parse(s).atStartOfDay(ZoneOffset.UTC).toInstant();
        }
        boolean zoned = s.endsWith("Z") || s.lastIndexOf('+') > 10 || s.lastIndexOf('-') > 10;
        return zoned
                ? OffsetDateTime.parse(s).toInstant()
                : LocalDateTime.parse(s).toInstant(ZoneOffset.UTC);
    }

    private static Instant ticks(long ticks, int precision) {
        long unit = BigInteger.TEN.pow(precision).longValueExact();
        return Instant.ofEpochSecond(Math.floorDiv(ticks, unit), Math.floorMod(ticks, unit) * (1_000_000_000L / unit));
    }

    private static int ipv4(String text) {
        String[] parts = text.split("\\.");
        int v = 0;
        for (String p : parts) {
            v = (v << 8) | Integer.parseInt(p);
        }
        return v;
    }
}
