package dev.etl.json.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.ClickHouseTableSchema;
import dev.etl.clickhouse.ClickHouseType;
import dev.etl.clickhouse.ColumnType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A seeded randomized property harness against a reference model: random tables (every type the
 * transcoder writes, nested in Nullable, Array and Map, some columns at nested paths), random messages
 * for them (fields in random order, unknown fields of every JSON shape, random whitespace, strings with
 * random escapes including surrogate pairs and lone surrogates, numbers in every JSON spelling and as
 * strings, missing Nullable fields), each encoded both ways: by the transcoder from the bytes, and by
 * {@code RowBinaryEncoder} from the values {@link JacksonReference} reads out of Jackson's tree of the
 * same bytes. The rows must be equal byte for byte. A failure prints the seed, the table and the message.
 */
class TranscoderPropertyTest {
    private static final JsonMapper JACKSON = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .build();

    private static final List<String> SCALARS = List.of(
            "Int8",
            "Int16",
            "Int32",
            "Int64",
            "UInt8",
            "UInt16",
            "UInt32",
            "UInt64",
            "Int128",
            "UInt256",
            "Float32",
            "Float64",
            "Decimal(9, 2)",
            "Decimal(18, 4)",
            "Decimal(38, 6)",
            "Decimal(76, 10)",
            "Bool",
            "String",
            "LowCardinality(String)",
            "FixedString(8)",
            "Date",
            "Date32",
            "DateTime",
            "DateTime64(3)",
            "DateTime64(9)",
            "UUID",
            "IPv4",
            "Enum8('a' = 1, 'é' = -3, 'x y' = 7)",
            "Enum16('big' = 1000, 'neg' = -1000)");

    private static final String NAME_CHARS = "abcxyz_é€\"\\/\n😀";
    private static final String TEXT_CHARS = "aZ09 _-\"\\/\b\f\n\r\t\u0001\u001fé€ñ😀\u2028";

    @Test
    void transcoderWritesWhatTheReferenceWritesForRandomTablesAndMessages() throws Exception {
        long seed = Long.getLong("etl.seed", 0x5EED_0033L);
        Random random = new Random(seed);
        int messages = 0;
        for (int table = 0; table < 250; table++) {
            long tableSeed = random.nextLong();
            messages += checkTable(tableSeed);
        }
        assertThat(messages).isGreaterThan(2500);
    }

    private int checkTable(long tableSeed) throws Exception {
        Random random = new Random(tableSeed);
        int columns = 1 + random.nextInt(8);
        List<ClickHouseColumn> cols = new ArrayList<>();
        Map<String, List<String>> paths = new LinkedHashMap<>();
        Set<String> names = new java.util.HashSet<>();
        JsonRowTranscoder.Builder builder;
        for (int i = 0; i < columns; i++) {
            String name;
            do {
                name = randomName(random);
            } while (!names.add(name));
            cols.add(new ClickHouseColumn(name, randomType(random, 0)));
        }
        builder = JsonRowTranscoder.builder(ClickHouseTableSchema.of(cols, Set.of()));
        for (ClickHouseColumn c : cols) {
            List<String> path = new ArrayList<>();
            if (random.nextInt(4) == 0) {
                int depth = 1 + random.nextInt(2);
                for (int d = 0; d < depth; d++) {
                    path.add("n" + random.nextInt(2));
                }
                path.add(c.name().replace(".", "_"));
                builder.field(c.name(), String.join(".", path));
            } else {
                path.add(c.name());
            }
            paths.put(c.name(), path);
        }
        JsonRowTranscoder transcoder = builder.build();
        List<ClickHouseType<?>> types = new ArrayList<>();
        for (ClickHouseColumn c : cols) {
            types.add(JacksonReference.type(ColumnType.parse(c.type())));
        }
        int n = 10 + random.nextInt(10);
        for (int m = 0; m < n; m++) {
            Map<String, Object> message = new LinkedHashMap<>();
            for (ClickHouseColumn c : cols) {
                ColumnType type = ColumnType.parse(c.type());
                if (type.withoutLowCardinality().kind() == ColumnType.Kind.NULLABLE && random.nextInt(4) == 0) {
                    continue; // missing: NULL
                }
                put(message, paths.get(c.name()), value(random, type));
            }
            addUnknown(random, message, 0);
            byte[] json = serialize(random, message).getBytes(StandardCharsets.UTF_8);
            JsonNode root = JACKSON.readTree(json);
            List<Object> values = new ArrayList<>();
            for (ClickHouseColumn c : cols) {
                JsonNode node = root;
                for (String segment : paths.get(c.name())) {
                    node = node == null || !node.isObject() ? null : node.get(segment);
                }
                values.add(JacksonReference.value(ColumnType.parse(c.type()), node));
            }
            byte[] expected = Rows.expected(types, values);
            byte[] actual = Rows.transcode(transcoder, json);
            assertThat(actual)
                    .as(
                            "table seed %d, columns %s, paths %s, message %s",
                            tableSeed, cols, paths, new String(json, StandardCharsets.UTF_8))
                    .isEqualTo(expected);
        }
        return n;
    }

    private static String randomName(Random random) {
        if (random.nextInt(3) > 0) {
            return "c" + random.nextInt(40);
        }
        StringBuilder sb = new StringBuilder();
        int length = 1 + random.nextInt(5);
        for (int i = 0; i < length; i++) {
            sb.appendCodePoint(NAME_CHARS.codePoints()
                    .toArray()[random.nextInt((int) NAME_CHARS.codePoints().count())]);
        }
        return sb.toString();
    }

    private static String randomType(Random random, int depth) {
        int r = random.nextInt(10);
        if (depth < 2 && r == 0) {
            return "Array(" + randomType(random, depth + 1) + ")";
        }
        if (depth < 2 && r == 1) {
            return "Map(String, " + randomType(random, depth + 1) + ")";
        }
        String scalar = SCALARS.get(random.nextInt(SCALARS.size()));
        if (r < 4 && !scalar.startsWith("LowCardinality")) {
            return "Nullable(" + scalar + ")";
        }
        return scalar;
    }

    @SuppressWarnings("unchecked")
    private static void put(Map<String, Object> message, List<String> path, String json) {
        Map<String, Object> level = message;
        for (int i = 0; i < path.size() - 1; i++) {
            level = (Map<String, Object>)
                    level.computeIfAbsent(path.get(i), (k) -> new LinkedHashMap<String, Object>());
        }
        level.put(path.get(path.size() - 1), json);
    }

    private static void addUnknown(Random random, Map<String, Object> message, int depth) {
        int n = random.nextInt(4);
        for (int i = 0; i < n; i++) {
            message.put("zz" + depth + i, junk(random, 0));
        }
        for (Object v : message.values()) {
            if (v instanceof Map<?, ?> && depth < 2) {
                @SuppressWarnings("unchecked")
                Map<String, Object> nested = (Map<String, Object>) v;
                addUnknown(random, nested, depth + 1);
            }
        }
    }

    /** Any JSON value, as text. */
    private static String junk(Random random, int depth) {
        return switch (random.nextInt(depth < 3 ? 8 : 5)) {
            case 0 -> "null";
            case 1 -> random.nextBoolean() ? "true" : "false";
            case 2 -> number(random);
            case 3, 4 -> string(random, text(random));
            case 5, 6 -> {
                StringBuilder sb = new StringBuilder("{");
                int n = random.nextInt(3);
                for (int i = 0; i < n; i++) {
                    sb.append(i > 0 ? "," : "")
                            .append(string(random, "k" + i))
                            .append(':')
                            .append(junk(random, depth + 1));
                }
                yield sb.append('}').toString();
            }
            default -> {
                StringBuilder sb = new StringBuilder("[");
                int n = random.nextInt(3);
                for (int i = 0; i < n; i++) {
                    sb.append(i > 0 ? ", " : "").append(junk(random, depth + 1));
                }
                yield sb.append(']').toString();
            }
        };
    }

    private static String number(Random random) {
        return switch (random.nextInt(4)) {
            case 0 -> Long.toString(random.nextLong());
            case 1 -> Double.toString(random.nextDouble() * 1e6);
            case 2 -> "-0.5e-7";
            default -> "123456789012345678901234567890";
        };
    }

    /** A JSON object from the message tree: random key order, whitespace and key escapes. */
    @SuppressWarnings("unchecked")
    private static String serialize(Random random, Map<String, Object> message) {
        List<Map.Entry<String, Object>> fields = new ArrayList<>(message.entrySet());
        Collections.shuffle(fields, random);
        StringBuilder sb = new StringBuilder().append(space(random)).append('{');
        for (int i = 0; i < fields.size(); i++) {
            Map.Entry<String, Object> f = fields.get(i);
            sb.append(i > 0 ? "," : "")
                    .append(space(random))
                    .append(string(random, f.getKey()))
                    .append(space(random))
                    .append(':')
                    .append(space(random));
            sb.append(f.getValue() instanceof Map<?, ?> m ? serialize(random, (Map<String, Object>) m) : f.getValue());
            sb.append(space(random));
        }
        return sb.append('}').append(space(random)).toString();
    }

    private static String space(Random random) {
        return switch (random.nextInt(6)) {
            case 0 -> " ";
            case 1 -> "\n\t ";
            case 2 -> "\r\n";
            default -> "";
        };
    }

    private static String text(Random random) {
        StringBuilder sb = new StringBuilder();
        int[] cps = TEXT_CHARS.codePoints().toArray();
        int length = random.nextInt(12);
        for (int i = 0; i < length; i++) {
            sb.appendCodePoint(cps[random.nextInt(cps.length)]);
        }
        if (random.nextInt(10) == 0) {
            sb.append(random.nextBoolean() ? '\uD83D' : '\uDE00'); // a lone surrogate (written as \\u escape)
        }
        return sb.toString();
    }

    /** A JSON string of {@code s}: escapes where needed and randomly where not. */
    static String string(Random random, String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean must = c == '"'
                    || c == '\\'
                    || c < 0x20
                    || Character.isSurrogate(c)
                            && !(Character.isHighSurrogate(c)
                                    && i + 1 < s.length()
                                    && Character.isLowSurrogate(s.charAt(i + 1)))
                            && !(Character.isLowSurrogate(c) && i > 0 && Character.isHighSurrogate(s.charAt(i - 1)));
            // Jackson refuses half a pair escaped in a field name: a pair is escaped only when it must be.
            boolean pair = Character.isSurrogate(c) && !must;
            if (must || (!pair && random.nextInt(8) == 0)) {
                String shortEscape = switch (c) {
                    case '"' -> "\\\"";
                    case '\\' -> "\\\\";
                    case '\n' -> "\\n";
                    case '\t' -> "\\t";
                    case '\r' -> "\\r";
                    case '\b' -> "\\b";
                    case '\f' -> "\\f";
                    case '/' -> "\\/";
                    default -> null;
                };
                if (shortEscape != null && random.nextBoolean()) {
                    sb.append(shortEscape);
                } else {
                    sb.append(String.format(random.nextBoolean() ? "\\u%04x" : "\\u%04X", (int) c));
                }
            } else {
                sb.append(c);
            }
        }
        return sb.append('"').toString();
    }

    /** A JSON value (text) for a column of {@code type}, in one of the spellings the transcoder reads. */
    private static String value(Random random, ColumnType type) {
        ColumnType t = type.withoutLowCardinality();
        boolean quoted = random.nextInt(4) == 0;
        return switch (t.kind()) {
            case NULLABLE -> random.nextInt(4) == 0 ? "null" : value(random, t.inner());
            case INT8 -> integer(random, -128, 127, quoted);
            case INT16 -> integer(random, Short.MIN_VALUE, Short.MAX_VALUE, quoted);
            case INT32 -> integer(random, Integer.MIN_VALUE, Integer.MAX_VALUE, quoted);
            case INT64 -> integer(random, Long.MIN_VALUE, Long.MAX_VALUE, quoted);
            case UINT8 ->
                random.nextInt(8) == 0 ? (random.nextBoolean() ? "true" : "false") : integer(random, 0, 255, quoted);
            case UINT16 -> integer(random, 0, 65535, quoted);
            case UINT32 -> integer(random, 0, 0xFFFF_FFFFL, quoted);
            case UINT64 -> integer(random, 0, Long.MAX_VALUE, quoted);
            case INT128, UINT256 -> {
                BigInteger v = new BigInteger(t.kind() == ColumnType.Kind.INT128 ? 127 : 256, random);
                if (t.kind() == ColumnType.Kind.INT128 && random.nextBoolean()) {
                    v = v.negate();
                }
                yield quoted ? "\"" + v + "\"" : v.toString();
            }
            case FLOAT32, FLOAT64 -> floating(random, t.kind() == ColumnType.Kind.FLOAT32, quoted);
            case DECIMAL -> decimal(random, t.precision(), t.scale(), quoted);
            case BOOL -> random.nextBoolean() ? "true" : "false";
            case STRING -> random.nextInt(10) == 0 ? "-125" : string(random, text(random));
            case FIXED_STRING -> {
                StringBuilder sb = new StringBuilder();
                while (sb.toString().getBytes(StandardCharsets.UTF_8).length < t.length() - 2
                        && random.nextInt(4) > 0) {
                    sb.append(random.nextBoolean() ? 'é' : (char) ('a' + random.nextInt(26)));
                }
                yield string(random, sb.toString());
            }
            case DATE, DATE32 -> {
                int min = t.kind() == ColumnType.Kind.DATE ? 0 : -25_567;
                int max = t.kind() == ColumnType.Kind.DATE ? 65_535 : 120_529;
                int day = min + random.nextInt(max - min + 1);
                yield random.nextBoolean() ? Integer.toString(day) : "\"" + LocalDate.ofEpochDay(day) + "\"";
            }
            case DATE_TIME ->
                random.nextBoolean()
                        ? Long.toString(random.nextLong() & 0xFFFF_FFFFL)
                        : "\"" + iso(random, random.nextLong() & 0xFFFF_FFFFL, random.nextInt(1_000_000_000), 3) + "\"";
            case DATE_TIME64 ->
                random.nextBoolean()
                        ? Long.toString(random.nextLong() % 4_000_000_000_000L)
                        : "\"" + iso(random, random.nextLong() % 4_000_000_000L, random.nextInt(1_000_000_000), 9)
                                + "\"";
            case UUID -> {
                String u = new UUID(random.nextLong(), random.nextLong()).toString();
                yield "\"" + (random.nextBoolean() ? u.toUpperCase(java.util.Locale.ROOT) : u) + "\"";
            }
            case IPV4 ->
                "\"" + random.nextInt(256) + "." + random.nextInt(256) + "." + random.nextInt(256) + "."
                        + random.nextInt(256) + "\"";
            case ENUM8, ENUM16 -> {
                List<String> symbols = new ArrayList<>(t.enumValues().keySet());
                yield string(random, symbols.get(random.nextInt(symbols.size())));
            }
            case ARRAY -> {
                StringBuilder sb = new StringBuilder("[");
                int n = random.nextInt(4);
                for (int i = 0; i < n; i++) {
                    sb.append(i > 0 ? "," + space(random) : space(random)).append(value(random, t.inner()));
                }
                yield sb.append(space(random)).append(']').toString();
            }
            case MAP -> {
                StringBuilder sb = new StringBuilder("{");
                int n = random.nextInt(4);
                for (int i = 0; i < n; i++) {
                    sb.append(i > 0 ? "," : "")
                            .append(space(random))
                            .append(string(random, "k" + i + text(random).replaceAll("\\p{Cs}", "")))
                            .append(':')
                            .append(value(random, t.arguments().get(1)));
                }
                yield sb.append('}').toString();
            }
            default -> throw new IllegalArgumentException(t.name());
        };
    }

    private static String integer(Random random, long min, long max, boolean quoted) {
        long v = switch (random.nextInt(4)) {
            case 0 -> min;
            case 1 -> max;
            default -> min + (long) (random.nextDouble() * ((double) max - (double) min));
        };
        v = Math.max(min, Math.min(max, v));
        return quoted ? "\"" + v + "\"" : Long.toString(v);
    }

    private static String floating(Random random, boolean single, boolean quoted) {
        String text = switch (random.nextInt(6)) {
            case 0 ->
                single
                        ? Float.toString(Float.intBitsToFloat(random.nextInt()))
                        : Double.toString(Double.longBitsToDouble(random.nextLong()));
            case 1 -> Double.toString(random.nextGaussian() * 1000);
            case 2 -> Long.toString(random.nextInt(2_000_000) - 1_000_000);
            case 3 ->
                (random.nextBoolean() ? "-" : "") + (1 + random.nextInt(9)) + "." + random.nextInt(1_000_000) + "e"
                        + (random.nextInt(80) - 40);
            case 4 -> new BigDecimal(new BigInteger(80, random), random.nextInt(40)).toPlainString();
            default -> "0.1";
        };
        if (text.equals("NaN") || text.contains("Infinity")) {
            return "\"" + text + "\"";
        }
        if (text.equals("-0.0") || text.equals("0.0") || text.equals("-0")) {
            text = "1.0";
        }
        return quoted ? "\"" + text + "\"" : text;
    }

    private static String decimal(Random random, int precision, int scale, boolean quoted) {
        int digits = 1 + random.nextInt(precision);
        BigInteger unscaled = new BigInteger(digits * 3, random).mod(BigInteger.TEN.pow(digits));
        if (random.nextBoolean()) {
            unscaled = unscaled.negate();
        }
        BigDecimal v = new BigDecimal(unscaled, scale);
        String text = switch (random.nextInt(4)) {
            case 0 -> v.toPlainString();
            case 1 -> v.stripTrailingZeros().toPlainString();
            case 2 -> unscaled + "e-" + scale;
            default -> v.toPlainString() + (scale > 0 ? "000" : "");
        };
        if (text.startsWith("-0") && v.signum() == 0) {
            text = "0";
        }
        return quoted ? "\"" + text + "\"" : text;
    }

    private static String iso(Random random, long epochSecond, int nanos, int maxFraction) {
        int offsetMinutes = random.nextBoolean() ? 0 : (random.nextInt(28) - 14) * 60 + (random.nextBoolean() ? 30 : 0);
        LocalDateTime local =
                LocalDateTime.ofEpochSecond(epochSecond, 0, ZoneOffset.ofTotalSeconds(offsetMinutes * 60));
        String date = local.toLocalDate().toString();
        String time = String.format("%02d:%02d:%02d", local.getHour(), local.getMinute(), local.getSecond());
        int fractionDigits = random.nextInt(maxFraction + 1);
        String fraction =
                fractionDigits == 0 ? "" : "." + String.format("%09d", nanos).substring(0, fractionDigits);
        String zone = switch (random.nextInt(4)) {
            case 0 ->
                offsetMinutes == 0
                        ? "Z"
                        : ZoneOffset.ofTotalSeconds(offsetMinutes * 60).getId();
            case 1 ->
                offsetMinutes == 0
                        ? "+00:00"
                        : ZoneOffset.ofTotalSeconds(offsetMinutes * 60).getId();
            default -> null;
        };
        if (zone == null) {
            // No offset: UTC.
            LocalDateTime utc = LocalDateTime.ofEpochSecond(epochSecond, 0, ZoneOffset.UTC);
            date = utc.toLocalDate().toString();
            time = String.format("%02d:%02d:%02d", utc.getHour(), utc.getMinute(), utc.getSecond());
            zone = "";
        }
        if (date.length() != 10) {
            return Instant.ofEpochSecond(0).toString(); // a year beyond 0000-9999: not an ISO string we write
        }
        return date + (random.nextBoolean() ? "T" : " ") + time + fraction + zone;
    }
}
