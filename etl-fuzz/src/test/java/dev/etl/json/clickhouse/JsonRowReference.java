package dev.etl.json.clickhouse;

import dev.etl.clickhouse.ClickHouseType;
import dev.etl.clickhouse.ClickHouseTypes;
import dev.etl.clickhouse.ColumnType;
import dev.etl.sink.RowBuffer;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;

/**
 * The fuzz target's model of {@link JsonRowTranscoder}: what its documentation says it does with a message,
 * computed the plain way from Jackson's parse of the same bytes. The transcoder's own code is not consulted:
 * <ul>
 * <li><b>Malformed</b>: Jackson's streaming parser (RFC 8259 by default: no comments, NaN, leading zeros,
 *     trailing commas, single quotes, unescaped control characters) fails, the first token is not an
 *     object, anything follows it, or objects and arrays nest deeper than 256 (the transcoder's documented
 *     bound; Jackson's own limits are lifted).</li>
 * <li><b>Rejected</b>: the first column, in table order, whose field is missing (not {@code Nullable}), null
 *     (not {@code Nullable}) or holds a value the column's documented conversion refuses: a {@code
 *     ColumnEncodeException} naming that column.</li>
 * <li>else the <b>row</b>: each column's value as a Java object, written by {@link ClickHouseTypes} (the
 *     RowBinary of {@code RowBinaryEncoder}), as {@code JacksonReference} of the module's property harness
 *     does; and how many fields no column takes ({@code unknownFields()}).</li>
 * </ul>
 * The property harness's reference reads Jackson's tree, which keeps one field of a repeated name and no
 * number's spelling; this one builds its own tree from Jackson's tokens, so that a {@code Map} column gets
 * every field of its object in order, a {@code String} column a number as written, and the rules that
 * depend on how a string was written (a number or a date in a string must not be escaped) see it.
 *
 * <p><b>Bytes, not text.</b> The transcoder reads bytes and does not check that strings hold UTF-8 (documented:
 * ClickHouse's {@code String} holds bytes); Jackson's byte parser detects UTF-16 and UTF-32 and rejects
 * invalid UTF-8. So the bytes are decoded here (a well-formed UTF-8 sequence to its character, every other
 * byte to a private-use character of its own, U+10FF80 + (b − 0x80)) and Jackson parses the characters: the
 * grammar is ASCII, so outside strings every non-ASCII character fails as the byte does, and inside a string
 * each such character becomes its byte again. Only if the message also spells such a character itself
 * (raw or as {@code \uDBFF} escapes) can the two not be told apart: the row's bytes are then not compared.
 */
final class JsonRowReference {
    static final int MAX_DEPTH = 256;
    /** The private-use code point standing for the invalid byte b is MARK + b (b in 0x80..0xFF). */
    private static final int MARK = 0x10FF00;

    private static final JsonFactory JACKSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(MAX_DEPTH + 8) // above ours: depth is judged below
                    .maxNumberLength(Integer.MAX_VALUE)
                    .maxStringLength(Integer.MAX_VALUE)
                    .maxNameLength(Integer.MAX_VALUE)
                    .build())
            .build();

    private static final Pattern INTEGER = Pattern.compile("-?[0-9]+");
    /** RFC 8259's number, with its parts. */
    private static final Pattern NUMBER = Pattern.compile("(-?)(0|[1-9][0-9]*)(?:\\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?");

    private static final Pattern DATE = Pattern.compile("([0-9]{4})-([0-9]{2})-([0-9]{2})");
    /**
     * JsonTimes' documented date-time: a date, then optionally T (or t, or a space) and HH:MM, HH:MM:SS or
     * HH:MM:SS with a fraction of 1 to 9 digits after '.' (or ',', ISO 8601's other decimal sign), then
     * optionally Z (z) or an offset ±HH, ±HH:MM, ±HHMM.
     */
    private static final Pattern DATE_TIME = Pattern.compile("([0-9]{4})-([0-9]{2})-([0-9]{2})"
            + "(?:[Tt ]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:[.,]([0-9]{1,9}))?)?"
            + "([Zz]|([+-])([0-9]{2})(?::?([0-9]{2}))?)?)?");

    private static final Pattern UUID_TEXT =
            Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
    private static final Pattern IPV4 = Pattern.compile("([0-9]{1,3})\\.([0-9]{1,3})\\.([0-9]{1,3})\\.([0-9]{1,3})");

    // ---- the outcome ----------------------------------------------------------------------------

    /** What the transcoder should do with a message. */
    sealed interface Outcome permits Malformed, Rejected, Row {}

    /** A {@code DeserializationException}: the message is not one JSON object. */
    record Malformed(String why) implements Outcome {}

    /** A {@code ColumnEncodeException} naming {@code column}. */
    record Rejected(String column, String why, long unknownFields) implements Outcome {}

    /** The row; {@code comparable} is false when its bytes cannot be predicted (see the class comment). */
    record Row(byte[] bytes, long unknownFields, boolean comparable) implements Outcome {}

    // ---- Jackson's parse, as a tree that keeps what the rules need -------------------------------

    sealed interface J permits JObject, JArray, JString, JNumber, JBool, JNull {}

    /** Every field, in message order, repeated names included. */
    record JObject(List<JField> fields) implements J {}

    record JField(byte[] name, J value) {}

    record JArray(List<J> items) implements J {}

    /** A string: its content as bytes (escapes decoded), whether it was written with an escape, and its text. */
    record JString(byte[] bytes, boolean escaped, String text) implements J {}

    /** A number as written (Jackson's token text). */
    record JNumber(String text) implements J {}

    record JBool(boolean value) implements J {}

    enum JNull implements J {
        NULL
    }

    private static final class NotJson extends Exception {
        private static final long serialVersionUID = 1L;

        NotJson(String why) {
            super(why, null, false, false);
        }
    }

    /** A value the column's conversion refuses. */
    private static final class Reject extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Reject(String why) {
            super(why, null, false, false);
        }
    }

    // ---- the table ------------------------------------------------------------------------------

    /** One level of the columns' field paths: names (as their UTF-8 bytes, latin-1 decoded) to what is below. */
    static final class Level {
        final Map<String, Node> names = new LinkedHashMap<>();
    }

    /** A name of a level: the type of the first column mapped to exactly this path, and the level below. */
    static final class Node {
        final String name;
        ColumnType type;
        Level below;

        Node(String name) {
            this.name = name;
        }
    }

    private final List<String> columns;
    private final List<ColumnType> types;
    private final List<List<String>> paths;
    private final List<ClickHouseType<Object>> writers = new ArrayList<>();
    final Level root = new Level();

    JsonRowReference(List<String> columns, List<ColumnType> types, List<List<String>> paths) {
        this.columns = List.copyOf(columns);
        this.types = List.copyOf(types);
        this.paths = List.copyOf(paths);
        for (int i = 0; i < columns.size(); i++) {
            writers.add(writer(types.get(i)));
            Level level = root;
            List<String> path = paths.get(i);
            for (int s = 0; s < path.size(); s++) {
                Node node = level.names.get(key(path.get(s)));
                if (node == null) {
                    node = new Node(path.get(s));
                    level.names.put(key(path.get(s)), node);
                }
                if (s == path.size() - 1) {
                    if (node.type == null) {
                        node.type = types.get(i);
                    }
                } else {
                    if (node.below == null) {
                        node.below = new Level();
                    }
                    level = node.below;
                }
            }
        }
    }

    private static String key(String name) {
        return latin1(name.getBytes(StandardCharsets.UTF_8));
    }

    private static String latin1(byte[] bytes) {
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }

    /** What the transcoder should do with {@code message}. */
    Outcome expect(byte[] message) {
        Decoded text = decode(message);
        JObject root;
        try {
            root = parse(text);
        } catch (NotJson e) {
            return new Malformed(e.getMessage());
        }
        long unknown = unknownFields(root, this.root);
        RowBuffer out = new RowBuffer(64);
        for (int i = 0; i < columns.size(); i++) {
            J node = resolve(root, paths.get(i));
            Object value;
            try {
                value = value(types.get(i), node, text.markers);
            } catch (Reject e) {
                return new Rejected(columns.get(i), e.getMessage(), unknown);
            }
            writers.get(i).write(value, out);
        }
        return new Row(out.toByteArray(), unknown, !text.ambiguous);
    }

    /** The value at {@code path}: a repeated name takes its last value; null when a step is missing or no object. */
    private static J resolve(JObject root, List<String> path) {
        J node = root;
        for (String segment : path) {
            if (!(node instanceof JObject o)) {
                return null;
            }
            byte[] name = segment.getBytes(StandardCharsets.UTF_8);
            J found = null;
            for (JField f : o.fields()) {
                if (java.util.Arrays.equals(f.name(), name)) {
                    found = f.value();
                }
            }
            if (found == null) {
                return null;
            }
            node = found;
        }
        return node;
    }

    /**
     * Fields no column takes, as the documentation counts them: in the message's object and in every object
     * a mapped path goes through (each occurrence of a repeated name), not inside values.
     */
    private static long unknownFields(JObject object, Level level) {
        long n = 0;
        for (JField f : object.fields()) {
            Node node = level.names.get(latin1(f.name()));
            if (node == null) {
                n++;
            } else if (node.below != null && f.value() instanceof JObject inner) {
                n += unknownFields(inner, node.below);
            }
        }
        return n;
    }

    // ---- the bytes as text --------------------------------------------------------------------------

    private record Decoded(String text, boolean markers, boolean ambiguous) {}

    /** UTF-8 decoded where well-formed (Unicode's table 3-7); every other byte as MARK + byte. */
    private static Decoded decode(byte[] b) {
        StringBuilder sb = new StringBuilder(b.length);
        boolean markers = false;
        boolean markerRange = false;
        int i = 0;
        while (i < b.length) {
            int b0 = b[i] & 0xFF;
            if (b0 < 0x80) {
                sb.append((char) b0);
                i++;
                continue;
            }
            int length;
            int low = 0x80;
            int high = 0xBF;
            if (b0 >= 0xC2 && b0 <= 0xDF) {
                length = 2;
            } else if (b0 >= 0xE0 && b0 <= 0xEF) {
                length = 3;
                low = b0 == 0xE0 ? 0xA0 : 0x80;
                high = b0 == 0xED ? 0x9F : 0xBF;
            } else if (b0 >= 0xF0 && b0 <= 0xF4) {
                length = 4;
                low = b0 == 0xF0 ? 0x90 : 0x80;
                high = b0 == 0xF4 ? 0x8F : 0xBF;
            } else {
                length = 0;
            }
            boolean ok = length > 0 && i + length <= b.length;
            for (int k = 1; ok && k < length; k++) {
                int c = b[i + k] & 0xFF;
                ok = k == 1 ? c >= low && c <= high : c >= 0x80 && c <= 0xBF;
            }
            if (!ok) {
                sb.appendCodePoint(MARK + b0);
                markers = true;
                i++;
                continue;
            }
            int cp = b0 & (0xFF >> (length + 1));
            for (int k = 1; k < length; k++) {
                cp = (cp << 6) | (b[i + k] & 0x3F);
            }
            markerRange |= cp >= MARK + 0x80 && cp <= MARK + 0xFF;
            sb.appendCodePoint(cp);
            i += length;
        }
        String text = sb.toString();
        boolean ambiguous =
                markers && (markerRange || text.toLowerCase(Locale.ROOT).contains("\\udbff"));
        return new Decoded(text, markers, ambiguous);
    }

    /**
     * A string's characters as the transcoder writes them: UTF-8, a surrogate pair as one character, a lone
     * surrogate as '?' (as {@code String.getBytes} writes it), a marker as its byte.
     */
    static byte[] bytes(String s, boolean markers) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(s.length());
        for (int i = 0; i < s.length(); ) {
            char c = s.charAt(i);
            int cp;
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                cp = Character.toCodePoint(c, s.charAt(i + 1));
                i += 2;
                if (markers && cp >= MARK + 0x80 && cp <= MARK + 0xFF) {
                    out.write(cp - MARK);
                    continue;
                }
            } else {
                cp = Character.isSurrogate(c) ? '?' : c;
                i++;
            }
            out.writeBytes(new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8));
        }
        return out.toByteArray();
    }

    // ---- Jackson ----------------------------------------------------------------------------------

    private static JObject parse(Decoded d) throws NotJson {
        String text = d.text;
        try (JsonParser p = JACKSON.createParser(ObjectReadContext.empty(), text)) {
            JsonToken first = p.nextToken();
            if (first != JsonToken.START_OBJECT) {
                throw new NotJson(first == null ? "no value" : "a " + first + ", not an object");
            }
            JObject root = object(p, 1, d);
            if (p.nextToken() != null) {
                throw new NotJson("a value after the object");
            }
            return root;
        } catch (JacksonException e) {
            throw new NotJson("Jackson: " + e.getOriginalMessage());
        }
    }

    /** The object whose START_OBJECT is the current token, at nesting depth {@code depth} (the message's is 1). */
    private static JObject object(JsonParser p, int depth, Decoded d) throws NotJson {
        if (depth > MAX_DEPTH) {
            throw new NotJson("nested deeper than " + MAX_DEPTH);
        }
        List<JField> fields = new ArrayList<>();
        for (JsonToken t = p.nextToken(); t != JsonToken.END_OBJECT; t = p.nextToken()) {
            if (t != JsonToken.PROPERTY_NAME) {
                throw new IllegalStateException("Jackson gave " + t + " for a name");
            }
            byte[] name = bytes(p.currentName(), d.markers);
            fields.add(new JField(name, value(p, p.nextToken(), depth, d)));
        }
        return new JObject(fields);
    }

    private static J value(JsonParser p, JsonToken t, int depth, Decoded d) throws NotJson {
        switch (t) {
            case START_OBJECT:
                return object(p, depth + 1, d);
            case START_ARRAY: {
                if (depth + 1 > MAX_DEPTH) {
                    throw new NotJson("nested deeper than " + MAX_DEPTH);
                }
                List<J> items = new ArrayList<>();
                for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken()) {
                    items.add(value(p, e, depth + 1, d));
                }
                return new JArray(items);
            }
            case VALUE_STRING: {
                long start = p.currentTokenLocation().getCharOffset();
                String s = p.getString();
                long end = p.currentLocation().getCharOffset();
                String raw = d.text.substring((int) start, (int) end);
                if (raw.length() < 2 || raw.charAt(0) != '"' || raw.charAt(raw.length() - 1) != '"') {
                    throw new IllegalStateException("Jackson's string token is at " + start + ".." + end + ": " + raw);
                }
                return new JString(bytes(s, d.markers), raw.indexOf('\\') >= 0, s);
            }
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT:
                return new JNumber(p.getText());
            case VALUE_TRUE:
                return new JBool(true);
            case VALUE_FALSE:
                return new JBool(false);
            case VALUE_NULL:
                return JNull.NULL;
            default:
                throw new IllegalStateException("Jackson gave " + t + " for a value");
        }
    }

    // ---- the documented conversions ------------------------------------------------------------------

    /** How the value of {@code type} is written: {@link ClickHouseTypes}, as the property harness's reference. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static ClickHouseType<Object> writer(ColumnType type) {
        ColumnType t = type.withoutLowCardinality();
        ClickHouseType<?> w = switch (t.kind()) {
            case INT8 -> ClickHouseTypes.int8();
            case INT16 -> ClickHouseTypes.int16();
            case INT32 -> ClickHouseTypes.int32();
            case INT64 -> ClickHouseTypes.int64();
            case UINT8 -> ClickHouseTypes.uint8();
            case UINT16 -> ClickHouseTypes.uint16();
            case UINT32 -> ClickHouseTypes.uint32();
            case UINT64 -> ClickHouseTypes.int64(); // the unsigned value's 64 bits (uint64() takes up to 2^63 - 1)
            case INT128 -> ClickHouseTypes.int128();
            case INT256 -> ClickHouseTypes.int256();
            case UINT128 -> ClickHouseTypes.uint128();
            case UINT256 -> ClickHouseTypes.uint256();
            case FLOAT32 -> ClickHouseTypes.float32();
            case FLOAT64 -> ClickHouseTypes.float64();
            case DECIMAL -> ClickHouseTypes.decimal(t.precision(), t.scale());
            case BOOL -> ClickHouseTypes.bool();
            case STRING -> ClickHouseTypes.stringBytes();
            case FIXED_STRING -> ClickHouseTypes.fixedString(t.length());
            case DATE -> ClickHouseTypes.date();
            case DATE32 -> ClickHouseTypes.date32();
            case DATE_TIME -> ClickHouseTypes.dateTime();
            // Int64 ticks: dateTime64() from an Instant fails on the few instants of DateTime64(9) whose seconds
            // times 10^9 are below Long.MIN_VALUE though their ticks are not.
            case DATE_TIME64 -> ClickHouseTypes.int64();
            case UUID -> ClickHouseTypes.uuid();
            case IPV4 -> ClickHouseTypes.ipv4();
            case ENUM8 -> ClickHouseTypes.enum8(t.enumValues());
            case ENUM16 -> ClickHouseTypes.enum16(t.enumValues());
            case NULLABLE -> ClickHouseTypes.nullable(writer(t.inner()));
            case ARRAY -> ClickHouseTypes.array(writer(t.inner()));
            case MAP -> entries(writer(t.arguments().get(1)));
            default -> throw new IllegalArgumentException("not in the fuzz target's types: " + type);
        };
        return (ClickHouseType) w;
    }

    /** A Map's fields, in message order (a repeated key repeated): what RowBinary's Map is, count then pairs. */
    private static ClickHouseType<List<Map.Entry<byte[], Object>>> entries(ClickHouseType<Object> value) {
        return new ClickHouseType<>() {
            @Override
            public String name() {
                return "Map(String, " + value.name() + ")";
            }

            @Override
            public void write(List<Map.Entry<byte[], Object>> v, RowBuffer out) {
                out.writeVarUInt(v.size());
                for (Map.Entry<byte[], Object> e : v) {
                    out.writeStringBytes(e.getKey(), 0, e.getKey().length);
                    value.write(e.getValue(), out);
                }
            }
        };
    }

    /** The Java value of {@code node} (null: the field is missing) for a column of {@code type}, or a Reject. */
    private static Object value(ColumnType type, J node, boolean markers) {
        ColumnType t = type.withoutLowCardinality();
        if (t.kind() == ColumnType.Kind.NULLABLE) {
            return node == null || node == JNull.NULL ? null : value(t.inner(), node, markers);
        }
        if (node == null) {
            throw new Reject("missing");
        }
        if (node == JNull.NULL) {
            throw new Reject("null for a type not Nullable");
        }
        return switch (t.kind()) {
            case INT8 -> integer(node, -128, 127, false).intValueExact();
            case INT16 -> integer(node, Short.MIN_VALUE, Short.MAX_VALUE, false).intValueExact();
            case INT32 ->
                integer(node, Integer.MIN_VALUE, Integer.MAX_VALUE, false).intValueExact();
            case INT64 -> integer(node, Long.MIN_VALUE, Long.MAX_VALUE, false).longValueExact();
            // "UInt8 also from true/false"
            case UINT8 -> integer(node, 0, 255, true).intValueExact();
            case UINT16 -> integer(node, 0, 65535, false).intValueExact();
            case UINT32 -> integer(node, 0, 0xFFFF_FFFFL, false).longValueExact();
            case UINT64 ->
                integer(node, BigInteger.ZERO, BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE))
                        .longValue();
            case INT128 ->
                integer(
                        node,
                        BigInteger.ONE.shiftLeft(127).negate(),
                        BigInteger.ONE.shiftLeft(127).subtract(BigInteger.ONE));
            case INT256 ->
                integer(
                        node,
                        BigInteger.ONE.shiftLeft(255).negate(),
                        BigInteger.ONE.shiftLeft(255).subtract(BigInteger.ONE));
            case UINT128 ->
                integer(node, BigInteger.ZERO, BigInteger.ONE.shiftLeft(128).subtract(BigInteger.ONE));
            case UINT256 ->
                integer(node, BigInteger.ZERO, BigInteger.ONE.shiftLeft(256).subtract(BigInteger.ONE));
            case FLOAT32 -> {
                Object v = floating(node);
                yield v instanceof Double special ? (Object) special.floatValue() : Float.parseFloat((String) v);
            }
            case FLOAT64 -> {
                Object v = floating(node);
                yield v instanceof Double special ? special : (Object) Double.parseDouble((String) v);
            }
            case DECIMAL -> decimal(node, t.precision(), t.scale());
            case BOOL -> {
                if (!(node instanceof JBool b)) {
                    throw new Reject("Bool takes true or false");
                }
                yield b.value();
            }
            // "String from a string (escapes decoded to UTF-8 ...) or a number, true or false as written"
            case STRING -> {
                if (node instanceof JString s) {
                    yield s.bytes();
                } else if (node instanceof JNumber n) {
                    yield n.text().getBytes(StandardCharsets.US_ASCII);
                } else if (node instanceof JBool b) {
                    yield (b.value() ? "true" : "false").getBytes(StandardCharsets.US_ASCII);
                }
                throw new Reject("String takes a string, a number, true or false");
            }
            case FIXED_STRING -> {
                if (!(node instanceof JString s) || s.bytes().length > t.length()) {
                    throw new Reject("FixedString(N) takes a string of at most N UTF-8 bytes");
                }
                yield s.bytes();
            }
            case DATE -> LocalDate.ofEpochDay(day(node, 0, 0xFFFF));
            case DATE32 -> LocalDate.ofEpochDay(day(node, -25_567, 120_529));
            case DATE_TIME -> {
                BigInteger seconds = node instanceof JNumber ? integer(node) : ticks(node, 0);
                yield Instant.ofEpochSecond(
                        inRange(seconds, 0, 0xFFFF_FFFFL, "DateTime").longValueExact());
            }
            case DATE_TIME64 -> {
                BigInteger ticks = node instanceof JNumber ? integer(node) : ticks(node, t.precision());
                yield inRange(ticks, Long.MIN_VALUE, Long.MAX_VALUE, "DateTime64")
                        .longValueExact();
            }
            case UUID -> UUID.fromString(matching(node, UUID_TEXT, "UUID").group());
            case IPV4 -> {
                Matcher m = matching(node, IPV4, "IPv4");
                int address = 0;
                for (int g = 1; g <= 4; g++) {
                    int part = Integer.parseInt(m.group(g));
                    if (part > 255) {
                        throw new Reject("IPv4 part over 255");
                    }
                    address = (address << 8) | part;
                }
                yield address;
            }
            // "Enum8/16 from the symbol" (its UTF-8 bytes, escapes decoded)
            case ENUM8, ENUM16 -> {
                if (!(node instanceof JString s)) {
                    throw new Reject("an enum takes a symbol string");
                }
                Integer code = null;
                for (Map.Entry<String, Integer> e : t.enumValues().entrySet()) {
                    if (java.util.Arrays.equals(e.getKey().getBytes(StandardCharsets.UTF_8), s.bytes())) {
                        code = e.getValue();
                    }
                }
                if (code == null) {
                    throw new Reject("not a symbol");
                }
                yield code;
            }
            case ARRAY -> {
                if (!(node instanceof JArray a)) {
                    throw new Reject("Array takes an array");
                }
                List<Object> list = new ArrayList<>();
                for (J item : a.items()) {
                    list.add(value(t.inner(), item, markers));
                }
                yield list;
            }
            case MAP -> {
                if (!(node instanceof JObject o)) {
                    throw new Reject("Map takes an object");
                }
                List<Map.Entry<byte[], Object>> list = new ArrayList<>();
                for (JField f : o.fields()) {
                    list.add(new java.util.AbstractMap.SimpleImmutableEntry<>(
                            f.name(), value(t.arguments().get(1), f.value(), markers)));
                }
                yield list;
            }
            default -> throw new IllegalArgumentException("not in the fuzz target's types: " + type);
        };
    }

    /**
     * The text of a number, or of a string holding one written without escapes (a string's rules: the
     * transcoder reads the bytes between the quotes); else a Reject.
     */
    private static String numberText(J node, String type) {
        if (node instanceof JNumber n) {
            return n.text();
        }
        if (node instanceof JString s && !s.escaped()) {
            return s.text();
        }
        throw new Reject(type + " takes a number, or a string holding one written without escapes");
    }

    /** An integer: "from a JSON integer or a string holding one" (digits, an optional '-'); a fraction or an exponent fails. */
    private static BigInteger integer(J node) {
        String text = numberText(node, "an integer column");
        if (!INTEGER.matcher(text).matches()) {
            throw new Reject("'" + text + "' is not an integer");
        }
        return new BigInteger(text);
    }

    private static BigInteger integer(J node, long min, long max, boolean fromBoolean) {
        if (fromBoolean && node instanceof JBool b) {
            return b.value() ? BigInteger.ONE : BigInteger.ZERO;
        }
        return inRange(integer(node), min, max, "integer");
    }

    private static BigInteger integer(J node, BigInteger min, BigInteger max) {
        return within(integer(node), min, max, "integer");
    }

    private static BigInteger inRange(BigInteger v, long min, long max, String what) {
        return within(v, BigInteger.valueOf(min), BigInteger.valueOf(max), what);
    }

    private static BigInteger within(BigInteger v, BigInteger min, BigInteger max, String what) {
        if (v.compareTo(min) < 0 || v.compareTo(max) > 0) {
            throw new Reject(v + " out of range for " + what);
        }
        return v;
    }

    /**
     * Float32/64: a number, or a string holding one (written as JSON writes it: RFC 8259's grammar, whole) or
     * NaN, Infinity, -Infinity (the transcoder also takes +Infinity). Returns the special value as a Double,
     * else the number's text (parsed by the JDK, correctly rounded to the column's type).
     */
    private static Object floating(J node) {
        if (node instanceof JNumber n) {
            return n.text();
        }
        if (!(node instanceof JString s) || s.escaped()) {
            throw new Reject("a float column takes a number, or a string holding one written without escapes");
        }
        switch (s.text()) {
            case "NaN":
                return Double.NaN;
            case "Infinity", "+Infinity":
                return Double.POSITIVE_INFINITY;
            case "-Infinity":
                return Double.NEGATIVE_INFINITY;
            default:
                if (!NUMBER.matcher(s.text()).matches()) {
                    throw new Reject("'" + s.text() + "' is not a number");
                }
                return s.text();
        }
    }

    /**
     * Decimal(P, S): exactly the number's value (a number, or a string holding one); more than S decimal
     * places other than zeros, or more than P digits at scale S, fail; nothing is rounded.
     */
    private static BigDecimal decimal(J node, int precision, int scale) {
        String text = numberText(node, "Decimal");
        Matcher m = NUMBER.matcher(text);
        if (!m.matches()) {
            throw new Reject("'" + text + "' is not a number");
        }
        String fraction = m.group(3) == null ? "" : m.group(3);
        String digits = (m.group(2) + fraction).replaceFirst("^0+", "");
        // value = digits × 10^exponent
        BigInteger exponent = (m.group(4) == null ? BigInteger.ZERO : new BigInteger(m.group(4)))
                .subtract(BigInteger.valueOf(fraction.length()));
        int trailing = digits.length() - digits.replaceFirst("0+$", "").length();
        digits = digits.substring(0, digits.length() - trailing);
        if (digits.isEmpty()) {
            return BigDecimal.ZERO.setScale(scale);
        }
        exponent = exponent.add(BigInteger.valueOf(trailing));
        BigInteger shift = exponent.add(BigInteger.valueOf(scale)); // unscaled = digits × 10^shift
        if (shift.signum() < 0) {
            throw new Reject("more than " + scale + " decimal places");
        }
        if (shift.add(BigInteger.valueOf(digits.length())).compareTo(BigInteger.valueOf(precision)) > 0) {
            throw new Reject("more than " + precision + " digits");
        }
        BigInteger unscaled = new BigInteger(digits).multiply(BigInteger.TEN.pow(shift.intValueExact()));
        return new BigDecimal(m.group(1).isEmpty() ? unscaled : unscaled.negate(), scale);
    }

    /** Date, Date32: "YYYY-MM-DD" or a number of days since 1970-01-01, within the type's range. */
    private static long day(J node, long min, long max) {
        BigInteger day;
        if (node instanceof JNumber) {
            day = integer(node);
        } else {
            Matcher m = matching(node, DATE, "a date");
            day = BigInteger.valueOf(date(m).toEpochDay());
        }
        return inRange(day, min, max, "a date").longValueExact();
    }

    private static LocalDate date(Matcher m) {
        try {
            return LocalDate.of(
                    Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)));
        } catch (DateTimeException e) {
            throw new Reject("not a date: " + e.getMessage());
        }
    }

    /**
     * Ticks of 10^-precision s since the epoch of an ISO-8601 string (UTC without an offset; a fraction finer
     * than a tick truncated toward the past); an offset beyond java.time's ±18:00 fails, as in the property
     * harness's reference ({@code OffsetDateTime.parse}).
     */
    private static BigInteger ticks(J node, int precision) {
        Matcher m = matching(node, DATE_TIME, "a date-time");
        long epochSecond = date(m).toEpochDay() * 86_400L;
        long nanos = 0;
        if (m.group(4) != null) {
            int hour = Integer.parseInt(m.group(4));
            int minute = Integer.parseInt(m.group(5));
            int second = m.group(6) == null ? 0 : Integer.parseInt(m.group(6));
            try {
                epochSecond += LocalTime.of(hour, minute, second).toSecondOfDay();
            } catch (DateTimeException e) {
                throw new Reject("not a time: " + e.getMessage());
            }
            if (m.group(7) != null) {
                nanos = Long.parseLong((m.group(7) + "00000000").substring(0, 9));
            }
            if (m.group(9) != null) {
                int sign = m.group(9).equals("-") ? -1 : 1;
                int hours = Integer.parseInt(m.group(10));
                int minutes = m.group(11) == null ? 0 : Integer.parseInt(m.group(11));
                try {
                    epochSecond -= ZoneOffset.ofHoursMinutes(sign * hours, sign * minutes)
                            .getTotalSeconds();
                } catch (DateTimeException e) {
                    throw new Reject("not an offset: " + e.getMessage());
                }
            }
        }
        BigInteger unit = BigInteger.TEN.pow(precision);
        return BigInteger.valueOf(epochSecond)
                .multiply(unit)
                .add(BigInteger.valueOf(nanos).multiply(unit).divide(BigInteger.TEN.pow(9)));
    }

    /** The whole content of a string written without escapes, matched by {@code pattern}; else a Reject. */
    private static Matcher matching(J node, Pattern pattern, String what) {
        if (!(node instanceof JString s) || s.escaped()) {
            throw new Reject(what + " is a string written without escapes");
        }
        Matcher m = pattern.matcher(s.text());
        if (!m.matches()) {
            throw new Reject("'" + s.text() + "' is not " + what);
        }
        return m;
    }
}
