package dev.etl.json.clickhouse;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.ClickHouseTableSchema;
import dev.etl.clickhouse.ColumnEncodeException;
import dev.etl.clickhouse.ColumnType;
import dev.etl.error.DeserializationException;
import dev.etl.fuzz.Budget;
import dev.etl.fuzz.Budget.Outcome;
import dev.etl.fuzz.Corpus;
import dev.etl.json.clickhouse.JsonRowReference.Level;
import dev.etl.json.clickhouse.JsonRowReference.Malformed;
import dev.etl.json.clickhouse.JsonRowReference.Node;
import dev.etl.json.clickhouse.JsonRowReference.Rejected;
import dev.etl.json.clickhouse.JsonRowReference.Row;
import dev.etl.sink.RowBuffer;
import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link JsonRowTranscoder} (with {@code JsonScanner}, {@code JsonNumbers}, {@code EiselLemire},
 * {@code JsonTimes}, {@code ValueWriter}) on any bytes, against {@link JsonRowReference}: Jackson's parse of
 * the same bytes and the transcoder's documented rules, written by {@code ClickHouseTypes}.
 *
 * <p>Input: two bytes (little-endian) pick one of 65,536 tables (1 to 5 columns of integers of every width,
 * Float32/64, Decimal, Bool, String, FixedString, Date, Date32, DateTime, DateTime64, UUID, IPv4, Enum8/16,
 * in Nullable, Array and Map(String, …); some columns at dotted paths through nested objects, some sharing a
 * field, some named like a path's first step); a third byte picks how the rest becomes the message: as it is
 * (mode 0), or as the choices of a generator that writes a message for the table (mode 1: its fields in
 * any order, omitted or repeated, escaped names, unknown fields of every shape, whitespace, and values of
 * every kind: in range, at and past the edges, in strings, misspelled, of another kind, nested 256 deep and
 * more), which mode 2 then mutates a few bytes of (a deleted, inserted or replaced byte, a cut).
 *
 * <p>Per input, within {@link Budget}'s bounds: only {@link DeserializationException} (a malformed message)
 * and {@link ColumnEncodeException} (a value its column refuses, a missing field), each exactly when the
 * reference says so, the latter naming the reference's column (the first in table order); otherwise the row
 * the reference writes, byte for byte, appended after what the buffer held; and {@code unknownFields()}
 * grown by the fields no column takes whenever the message is well-formed.
 */
class JsonRowTranscoderFuzzTest {
    static final List<String> SCALARS = List.of(
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
            "Bool",
            "String",
            "LowCardinality(String)",
            "FixedString(4)",
            "Date",
            "Date32",
            "DateTime",
            "DateTime64(3)",
            "DateTime64(9)",
            "UUID",
            "IPv4",
            "Enum8('a' = 1, 'é' = -3, 'x y' = 7)",
            "Enum16('big' = 1000, 'neg' = -1000)");

    /** Column names: plain, non-ASCII, with a space, a quote, a backslash (escaped in JSON). */
    private static final String[] NAMES = {"a", "b", "id", "é", "x y", "n", "q\"", "s\\"};

    /** The first steps of dotted paths: "n" is also a column name. */
    private static final List<List<String>> PREFIXES = List.of(List.of("n"), List.of("n", "m"), List.of("o"));

    /** A table of the target: the transcoder for it and the reference. */
    static final class Table {
        final int seed;
        final List<ClickHouseColumn> columns = new ArrayList<>();
        final List<ColumnType> types = new ArrayList<>();
        final List<List<String>> paths = new ArrayList<>();
        final JsonRowReference reference;
        final JsonRowTranscoder transcoder;

        Table(int seed) {
            this.seed = seed;
            SplittableRandom r = new SplittableRandom(seed * 0x9E37_79B9_7F4A_7C15L + 0x5EED);
            List<String> names = new ArrayList<>(List.of(NAMES));
            int n = 1 + r.nextInt(5);
            Map<String, String> fields = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                String name = names.remove(r.nextInt(names.size()));
                String type = randomType(r, 0);
                List<String> path;
                int p = r.nextInt(8);
                if (p < 3) {
                    path = new ArrayList<>(PREFIXES.get(r.nextInt(PREFIXES.size())));
                    path.add(r.nextBoolean() ? name : "v");
                    fields.put(name, String.join(".", path));
                } else if (p == 3 && i > 0) {
                    path = paths.get(r.nextInt(i)); // the field of an earlier column
                    fields.put(name, String.join(".", path));
                } else {
                    path = List.of(name);
                }
                columns.add(new ClickHouseColumn(name, type));
                types.add(ColumnType.parse(type));
                paths.add(List.copyOf(path));
            }
            JsonRowTranscoder.Builder builder = JsonRowTranscoder.builder(ClickHouseTableSchema.of(columns, Set.of()));
            fields.forEach(builder::field);
            this.transcoder = builder.build();
            this.reference = new JsonRowReference(
                    columns.stream().map(ClickHouseColumn::name).toList(), types, paths);
        }

        private static String randomType(SplittableRandom r, int depth) {
            int k = r.nextInt(12);
            if (depth < 2 && k == 0) {
                return "Array(" + randomType(r, depth + 1) + ")";
            }
            if (depth < 2 && k == 1) {
                return "Map(String, " + randomType(r, depth + 1) + ")";
            }
            String scalar = SCALARS.get(r.nextInt(SCALARS.size()));
            if (k < 5 && !scalar.startsWith("LowCardinality")) {
                return "Nullable(" + scalar + ")";
            }
            return scalar;
        }

        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder("table seed " + seed + ":");
            for (int i = 0; i < columns.size(); i++) {
                sb.append(" '")
                        .append(columns.get(i).name())
                        .append("' ")
                        .append(columns.get(i).type())
                        .append(" <- ")
                        .append(String.join(".", paths.get(i)))
                        .append(';');
            }
            return sb.toString();
        }
    }

    /**
     * Compiled tables by seed (compiling is not what is fuzzed); bounded. Per thread: a transcoder serves one
     * thread (regression mode runs each input on a thread of its own, for the timeout).
     */
    private static final ThreadLocal<Map<Integer, Table>> TABLES =
            ThreadLocal.withInitial(() -> new LinkedHashMap<>(64, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<Integer, Table> eldest) {
                    return size() > 512;
                }
            });

    static final int RAW = 0;
    static final int BUILT = 1;
    static final int MUTATED = 2;

    @FuzzTest
    void rowsMatchTheJacksonReference(byte[] input) {
        if (input.length < 3) {
            return;
        }
        int seed = (input[0] & 0xFF) | (input[1] & 0xFF) << 8;
        Table table = TABLES.get().computeIfAbsent(seed, Table::new);
        int mode = (input[2] & 0xFF) % 3;
        byte[] message = mode == RAW
                ? Arrays.copyOfRange(input, 3, input.length)
                : new Messages(table, input, 3, input.length).message(mode == MUTATED);
        check(table, message);
    }

    /** Junk around the message, which a read past either end would take for more JSON. */
    private static final byte[] PAD = "1\"}],:{[".getBytes(StandardCharsets.US_ASCII);

    private static void check(Table table, byte[] message) {
        int length = message.length;
        byte[] framed = new byte[length + 2 * PAD.length];
        System.arraycopy(PAD, 0, framed, 0, PAD.length);
        System.arraycopy(message, 0, framed, PAD.length, length);
        System.arraycopy(PAD, 0, framed, PAD.length + length, PAD.length);
        JsonRowTranscoder transcoder = table.transcoder;
        String what = "the JSON transcoder of " + table;
        long[] unknown = new long[1];
        // Int128/256, and Decimal or Float32 values of many digits, allocate per value (documented).
        Outcome<byte[]> actual = Budget.run(what, length, 1 << 20, 256, () -> {
            RowBuffer out = new RowBuffer(16);
            out.writeByte(0x55); // the row is appended to what the buffer holds
            long before = transcoder.unknownFields();
            int rows;
            try {
                rows = transcoder.transcode(framed, PAD.length, length, out);
            } finally {
                unknown[0] = transcoder.unknownFields() - before;
            }
            if (rows != 1 || out.array()[0] != 0x55) {
                throw new AssertionError(what + " wrote " + rows + " rows, or over what the buffer held");
            }
            return Arrays.copyOfRange(out.array(), 1, out.length());
        });
        if (!actual.ok()) {
            Budget.expectDeclared(what, actual.failure(), DeserializationException.class, ColumnEncodeException.class);
        }
        JsonRowReference.Outcome expected = table.reference.expect(message);
        String context = "\nmessage " + printable(message) + "\nexpected " + describe(expected) + "\nactual   "
                + (actual.ok() ? "row " + HexFormat.of().formatHex(actual.value()) : actual.failure())
                + "\nunknown fields counted " + unknown[0];
        if (expected instanceof Malformed) {
            if (!(actual.failure() instanceof DeserializationException)) {
                throw new AssertionError(what + " did not reject a malformed message" + context, actual.failure());
            }
            return;
        }
        long expectedUnknown;
        if (expected instanceof Rejected r) {
            if (!(actual.failure() instanceof ColumnEncodeException e)
                    || !e.column().equals(r.column())) {
                throw new AssertionError(
                        what + " did not reject the value of column '" + r.column() + "'" + context, actual.failure());
            }
            expectedUnknown = r.unknownFields();
        } else {
            Row row = (Row) expected;
            if (!actual.ok()) {
                throw new AssertionError(what + " rejected a message the reference writes" + context, actual.failure());
            }
            if (row.comparable() && !Arrays.equals(actual.value(), row.bytes())) {
                throw new AssertionError(what + " wrote other bytes than the reference" + context);
            }
            expectedUnknown = row.unknownFields();
        }
        if (unknown[0] != expectedUnknown) {
            throw new AssertionError(
                    what + " counted " + unknown[0] + " unknown fields, not " + expectedUnknown + context);
        }
    }

    private static String describe(JsonRowReference.Outcome o) {
        if (o instanceof Row row) {
            return "row " + HexFormat.of().formatHex(row.bytes()) + (row.comparable() ? "" : " (bytes not compared)")
                    + ", " + row.unknownFields() + " unknown fields";
        }
        return o.toString();
    }

    static String printable(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (byte x : b) {
            int c = x & 0xFF;
            sb.append(c >= 0x20 && c < 0x7F ? String.valueOf((char) c) : String.format(Locale.ROOT, "\\x%02x", c));
        }
        return sb + " (" + b.length + " bytes)";
    }

    // ---- the message generator ------------------------------------------------------------------

    /**
     * Writes a message for a table from the fuzzer's bytes, one choice after the other (a byte each, two for
     * a position): choice 0, which is also what an exhausted input gives, is the plain well-formed one.
     */
    static final class Messages {
        private final Table table;
        private final byte[] in;
        private int at;
        private final int end;
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        Messages(Table table, byte[] in, int from, int to) {
            this.table = table;
            this.in = in;
            this.at = from;
            this.end = to;
        }

        /** One of {@code 0..n-1}. */
        int next(int n) {
            if (n <= 1 || at >= end) {
                return 0;
            }
            int v = in[at++] & 0xFF;
            if (n > 256 && at < end) {
                v |= (in[at++] & 0xFF) << 8;
            }
            return v % n;
        }

        long nextLong() {
            long v = 0;
            for (int k = 0; k < 8; k++) {
                v = v << 8 | (at < end ? in[at++] & 0xFF : 0);
            }
            return v;
        }

        private Messages s(String text) {
            out.writeBytes(text.getBytes(StandardCharsets.UTF_8));
            return this;
        }

        private <T> T pick(List<T> list) {
            return list.get(next(list.size()));
        }

        byte[] message(boolean mutate) {
            ws();
            object(table.reference.root, 1);
            ws();
            byte[] message = out.toByteArray();
            if (!mutate) {
                return message;
            }
            int mutations = 1 + next(3);
            for (int m = 0; m < mutations; m++) {
                int pos = next(message.length + 1);
                int op = next(5);
                ByteArrayOutputStream b = new ByteArrayOutputStream();
                b.write(message, 0, pos);
                switch (op) {
                    case 0 ->
                        b.write(
                                message,
                                Math.min(pos + 1, message.length),
                                message.length - Math.min(pos + 1, message.length));
                    case 1, 2 -> {
                        b.write(op == 1 ? STRUCTURAL.charAt(next(STRUCTURAL.length())) : next(256));
                        b.write(message, pos, message.length - pos);
                    }
                    case 3 -> {
                        b.write(next(256));
                        b.write(
                                message,
                                Math.min(pos + 1, message.length),
                                message.length - Math.min(pos + 1, message.length));
                    }
                    default -> {} // cut
                }
                message = b.toByteArray();
            }
            return message;
        }

        /** Bytes that change what JSON means. */
        private static final String STRUCTURAL = "{}[]\",:\\ 0-.eE\u0000";

        private void ws() {
            switch (next(16)) {
                case 12 -> s(" ");
                case 13 -> s("\n\t ");
                case 14 -> s("\r\n");
                case 15 -> s("  ");
                default -> {}
            }
        }

        private record Entry(String name, Node node) {}

        private void object(Level level, int depth) {
            List<Entry> entries = new ArrayList<>();
            for (Node node : level.names.values()) {
                switch (next(10)) {
                    case 7 -> {
                        entries.add(new Entry(node.name, node));
                        entries.add(new Entry(node.name, node));
                    }
                    case 8 -> {} // omitted
                    case 9 -> {
                        entries.add(new Entry(node.name, node));
                        entries.add(new Entry(pick(UNKNOWN), null));
                    }
                    default -> entries.add(new Entry(node.name, node));
                }
            }
            if (next(4) == 3) {
                entries.add(next(entries.size() + 1), new Entry(pick(UNKNOWN), null));
            }
            if (!entries.isEmpty()) {
                java.util.Collections.rotate(entries, next(entries.size()));
            }
            s("{");
            for (int i = 0; i < entries.size(); i++) {
                if (i > 0) {
                    s(",");
                }
                ws();
                string(entries.get(i).name);
                ws();
                s(":");
                ws();
                Node node = entries.get(i).node;
                if (node == null) {
                    junk(depth + 1);
                } else if (node.below != null) {
                    switch (next(12)) {
                        case 9 -> s("null");
                        case 10 -> junk(depth + 1);
                        case 11 -> {
                            if (node.type != null) {
                                value(node.type, depth + 1);
                            } else {
                                junk(depth + 1);
                            }
                        }
                        default -> object(node.below, depth + 1);
                    }
                } else {
                    value(node.type, depth + 1);
                }
                ws();
            }
            s("}");
        }

        /** Names no column takes, and near misses of those that do. */
        private static final List<String> UNKNOWN = List.of("zz", "A", "a ", "e\u0301", "", "nn", "N", "id\u0000", "x");

        /** A JSON string of {@code text}: escapes where needed and, now and then, where not. */
        private void string(String text) {
            s("\"");
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if (c == '"' || c == '\\' || c < 0x20 || next(8) == 7) {
                    String escape = switch (c) {
                        case '"' -> "\\\"";
                        case '\\' -> "\\\\";
                        case '\n' -> "\\n";
                        case '/' -> "\\/";
                        default -> null;
                    };
                    s(
                            escape != null && next(2) == 0
                                    ? escape
                                    : String.format(Locale.ROOT, next(2) == 0 ? "\\u%04x" : "\\u%04X", (int) c));
                } else {
                    s(String.valueOf(c));
                }
            }
            s("\"");
        }

        /** Any JSON value; now and then nested around the 256 levels the transcoder allows. */
        private void junk(int depth) {
            switch (next(depth < 4 ? 10 : 6)) {
                case 0 -> s("null");
                case 1 -> s(next(2) == 0 ? "true" : "false");
                case 2 -> s(numberText());
                case 3, 4 -> text(4);
                case 5 -> s(pick(MALFORMED));
                case 6, 7 -> {
                    s("{");
                    int n = next(3);
                    for (int i = 0; i < n; i++) {
                        s(i > 0 ? "," : "");
                        string(pick(UNKNOWN));
                        s(":");
                        junk(depth + 1);
                    }
                    s("}");
                }
                case 8 -> {
                    s("[");
                    int n = next(3);
                    for (int i = 0; i < n; i++) {
                        s(i > 0 ? ", " : "");
                        junk(depth + 1);
                    }
                    s("]");
                }
                default -> {
                    // nested to just below, at, or above 256 levels in all, the message's object counting one
                    int levels = JsonRowReference.MAX_DEPTH - depth - 1 + next(4);
                    boolean objects = next(2) == 1;
                    for (int i = 0; i < levels; i++) {
                        s(objects ? "{\"k\":" : "[");
                    }
                    s("0");
                    for (int i = 0; i < levels; i++) {
                        s(objects ? "}" : "]");
                    }
                }
            }
        }

        /** Spellings JSON does not have. */
        private static final List<String> MALFORMED = List.of(
                "01",
                "1.",
                ".5",
                "+1",
                "NaN",
                "-Infinity",
                "tru",
                "nul",
                "'x'",
                "[1,]",
                "{\"a\"}",
                "\"\\x\"",
                "\"\\u12\"",
                "0x10",
                "-",
                "1e",
                "[1 2]");

        /** A number of JSON's grammar: up to 25 integer and fraction digits, an exponent up to ±400 or huge. */
        private String numberText() {
            StringBuilder sb = new StringBuilder();
            if (next(3) == 1) {
                sb.append('-');
            }
            switch (next(4)) {
                case 0 -> sb.append('0');
                case 1 -> digits(sb.append((char) ('1' + next(9))), next(26));
                default -> digits(sb.append((char) ('1' + next(9))), next(3));
            }
            if (next(3) == 1) {
                digits(sb.append('.'), 1 + next(25));
            }
            switch (next(6)) {
                case 1 ->
                    sb.append(next(2) == 0 ? 'e' : 'E')
                            .append(pick(List.of("", "+", "-")))
                            .append(next(401));
                case 2 ->
                    sb.append("e")
                            .append(pick(List.of("-", "")))
                            .append(pick(List.of("99999999999", "0400", "308", "324", "46")));
                default -> {}
            }
            return sb.toString();
        }

        private void digits(StringBuilder sb, int n) {
            for (int i = 0; i < n; i++) {
                sb.append((char) ('0' + next(10)));
            }
        }

        /** A number, or now and then the same text in a string, or with one digit escaped. */
        private void number(String text) {
            switch (next(8)) {
                case 5, 6 -> s("\"" + text + "\"");
                case 7 -> {
                    int d = 0;
                    while (d < text.length() - 1 && (text.charAt(d) < '0' || text.charAt(d) > '9')) {
                        d++;
                    }
                    String escaped = String.format(Locale.ROOT, "\\u%04x", (int) text.charAt(d));
                    s("\"" + text.substring(0, d) + escaped + text.substring(d + 1) + "\"");
                }
                default -> s(text.equals("NaN") || text.contains("Infinity") ? "\"" + text + "\"" : text);
            }
        }

        /** A string value: text pieces, escapes of every kind, raw UTF-8, bytes that are not UTF-8. */
        private void text(int maxPieces) {
            s("\"");
            int n = next(maxPieces + 1);
            for (int i = 0; i < n; i++) {
                switch (next(20)) {
                    case 8 -> s("\\\"");
                    case 9 -> s("\\\\");
                    case 10 -> s(pick(List.of("\\/", "\\b", "\\f", "\\n", "\\r", "\\t")));
                    case 11 -> s(pick(List.of("\\u00e9", "\\u20AC", "\\u0000", "\\u001f", "\\u0041", "\\uFFFF")));
                    case 12 -> s("\\ud83d\\ude00");
                    case 13 -> s(pick(List.of("\\ud800", "\\uDFFF", "\\ude00\\ud83d", "\\ud83d\\ud83d\\ude00")));
                    case 14 -> s("\\ud83d😀");
                    case 15 -> {
                        byte[][] bad = {
                            {(byte) 0xFF},
                            {(byte) 0xC3},
                            {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
                            {(byte) 0xC0, (byte) 0x80},
                            {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80},
                            {(byte) 0x80},
                            {(byte) 0xE2, (byte) 0x82}
                        };
                        out.writeBytes(bad[next(bad.length)]);
                    }
                    case 16 ->
                        out.write(next(4) == 0 ? 0x01 : 0x7F); // a raw control character is malformed; DEL is not
                    case 17 -> s("x".repeat(next(80)));
                    default -> s(pick(List.of("a", "zürich", "x y", "東京", "🎉", "0", "-", "é")));
                }
            }
            s("\"");
        }

        /** A value for a column of {@code type}: mostly one it takes, often one at or past its edges or of another kind. */
        private void value(ColumnType type, int depth) {
            ColumnType t = type.withoutLowCardinality();
            switch (t.kind()) {
                case NULLABLE -> {
                    if (next(5) == 4) {
                        s("null");
                    } else {
                        value(t.inner(), depth);
                    }
                }
                case INT8 -> integer(-128, 127, depth);
                case INT16 -> integer(Short.MIN_VALUE, Short.MAX_VALUE, depth);
                case INT32 -> integer(Integer.MIN_VALUE, Integer.MAX_VALUE, depth);
                case INT64 -> integer(BigInteger.valueOf(Long.MIN_VALUE), BigInteger.valueOf(Long.MAX_VALUE), depth);
                case UINT8 -> {
                    if (next(8) == 7) {
                        s(next(2) == 0 ? "true" : "false");
                    } else {
                        integer(0, 255, depth);
                    }
                }
                case UINT16 -> integer(0, 65535, depth);
                case UINT32 -> integer(0, 0xFFFF_FFFFL, depth);
                case UINT64 ->
                    integer(BigInteger.ZERO, BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE), depth);
                case INT128 ->
                    integer(
                            BigInteger.ONE.shiftLeft(127).negate(),
                            BigInteger.ONE.shiftLeft(127).subtract(BigInteger.ONE),
                            depth);
                case UINT256 ->
                    integer(BigInteger.ZERO, BigInteger.ONE.shiftLeft(256).subtract(BigInteger.ONE), depth);
                case FLOAT32, FLOAT64 -> floating(depth);
                case DECIMAL -> decimal(t.precision(), t.scale(), depth);
                case BOOL -> {
                    switch (next(8)) {
                        case 6 -> s(pick(List.of("1", "0", "\"true\"", "True")));
                        case 7 -> junk(depth);
                        default -> s(next(2) == 0 ? "true" : "false");
                    }
                }
                case STRING -> {
                    switch (next(10)) {
                        case 7 -> s(numberText());
                        case 8 -> s(next(2) == 0 ? "true" : "false");
                        case 9 -> junk(depth);
                        default -> text(5);
                    }
                }
                case FIXED_STRING -> {
                    switch (next(10)) {
                        case 8 -> s(numberText());
                        case 9 -> junk(depth);
                        default -> text(3);
                    }
                }
                case DATE, DATE32 -> date(t.kind() == ColumnType.Kind.DATE, depth);
                case DATE_TIME, DATE_TIME64 ->
                    dateTime(t.kind() == ColumnType.Kind.DATE_TIME ? -1 : t.precision(), depth);
                case UUID -> uuid(depth);
                case IPV4 -> ipv4(depth);
                case ENUM8, ENUM16 -> {
                    switch (next(8)) {
                        case 5 -> string(pick(List.of("A", "", "x  y", "b", "e\u0301", "bigg")));
                        case 6 -> s(pick(List.of("1", "7", "1000", "-3")));
                        case 7 -> junk(depth);
                        default -> string(pick(new ArrayList<>(t.enumValues().keySet())));
                    }
                }
                case ARRAY -> {
                    if (next(10) == 9) {
                        junk(depth);
                        return;
                    }
                    s("[");
                    int n = next(5);
                    for (int i = 0; i < n; i++) {
                        s(i > 0 ? "," : "");
                        ws();
                        value(t.inner(), depth + 1);
                    }
                    ws();
                    s("]");
                }
                case MAP -> {
                    if (next(10) == 9) {
                        junk(depth);
                        return;
                    }
                    s("{");
                    int n = next(4);
                    for (int i = 0; i < n; i++) {
                        s(i > 0 ? "," : "");
                        ws();
                        string(pick(List.of("k", "é", "k", "", "\"q", "k2")));
                        s(":");
                        value(t.arguments().get(1), depth + 1);
                    }
                    s("}");
                }
                default -> throw new IllegalArgumentException(type.toString());
            }
        }

        private void integer(long min, long max, int depth) {
            integer(BigInteger.valueOf(min), BigInteger.valueOf(max), depth);
        }

        private void integer(BigInteger min, BigInteger max, int depth) {
            BigInteger range = max.subtract(min).add(BigInteger.ONE);
            String text = switch (next(12)) {
                case 4 -> min.toString();
                case 5 -> max.toString();
                case 6 -> min.subtract(BigInteger.ONE).toString();
                case 7 -> max.add(BigInteger.ONE).toString();
                case 8 -> pick(List.of("-0", "0", "1", "-1", "00", "007"));
                case 9 -> pick(List.of("1.0", "1e2", "1E+0", "-0.0", "0.5", "1.5e3"));
                case 10 -> numberText();
                case 11 -> null;
                default -> {
                    BigInteger v = new BigInteger(1, longBytes(range.bitLength() / 64 + 1)).mod(range);
                    yield min.add(v).toString();
                }
            };
            if (text == null) {
                junk(depth);
            } else if (text.startsWith("0") && text.length() > 1 || text.startsWith("-0") && text.length() > 2) {
                s("\"" + text + "\""); // leading zeros: only in a string
            } else {
                number(text);
            }
        }

        private byte[] longBytes(int longs) {
            byte[] b = new byte[longs * 8];
            for (int i = 0; i < longs; i++) {
                long v = nextLong();
                for (int k = 0; k < 8; k++) {
                    b[i * 8 + k] = (byte) (v >>> (8 * k));
                }
            }
            return b;
        }

        /** Edges of Float32 and Float64 rounding: subnormals, overflow, halfway cases, long significands. */
        private static final List<String> FLOAT_EDGES = List.of(
                "4.9e-324",
                "2.4703282292062327e-324",
                "2.4703282292062328e-324",
                "1.7976931348623157e308",
                "1.7976931348623158e308",
                "1.7976931348623159e308",
                "3.4028235e38",
                "3.4028235677973366e38",
                "3.4028236e38",
                "1.4e-45",
                "7.006492321624085e-46",
                "7.006492321624086e-46",
                "1.00000017881393432617187499",
                "1.000000178813934326171875",
                "9007199254740993",
                "9007199254740992.5",
                "0.1",
                "1e23",
                "8.41e21",
                "123456789012345678901234567890",
                "0.000000000000000000000000000001e30",
                "2.2250738585072011e-308",
                "2.2250738585072012e-308",
                "1e-400",
                "-0",
                "-0.0e5",
                "1e400",
                "16777217",
                "33554431e-1");

        private static final List<String> FLOAT_STRINGS = List.of(
                "\"NaN\"",
                "\"Infinity\"",
                "\"-Infinity\"",
                "\"+Infinity\"",
                "\"nan\"",
                "\"-NaN\"",
                "\"Inf\"",
                "\" 1\"",
                "\"1.5f\"",
                "\"0x1p3\"",
                "\"\"",
                "\"-\"",
                "\"01\"",
                "\"1.\"",
                "\"1e\"",
                "\"+1\"",
                "\".5\"",
                "\"1e5 \"",
                "\"\\u004eaN\"",
                "\"2.5\"");

        private void floating(int depth) {
            switch (next(10)) {
                case 0 -> number(Double.toString(Double.longBitsToDouble(nextLong())));
                case 1 -> number(Float.toString(Float.intBitsToFloat((int) nextLong())));
                case 4 -> number(pick(FLOAT_EDGES));
                case 5 -> s(pick(FLOAT_STRINGS));
                case 6 -> junk(depth);
                case 7 -> number(next(20001) - 10000 + "." + next(1000));
                default -> number(numberText());
            }
        }

        private void decimal(int precision, int scale, int depth) {
            String text = switch (next(10)) {
                case 4 ->
                    pick(List.of(
                            "0e99999999999",
                            "1e-99999999999",
                            "-0",
                            "0.000",
                            "-0.0e-5",
                            "1e" + (precision - scale - 1),
                            "1e" + (precision - scale),
                            "9".repeat(precision - scale) + "." + "9".repeat(scale),
                            "9".repeat(precision - scale) + "." + "9".repeat(scale) + "9",
                            "9".repeat(precision - scale + 1),
                            "0." + "0".repeat(scale) + "1",
                            "0." + "0".repeat(scale - 1) + "1",
                            "1" + "0".repeat(precision - scale),
                            "-" + "9".repeat(precision) + "e-" + scale,
                            "12.340000000000000000000000000000",
                            "125e-4",
                            "1.5e3"));
                case 5 -> numberText();
                case 6 -> null;
                default -> {
                    StringBuilder digits = new StringBuilder();
                    digits((next(2) == 0 ? digits : digits.append((char) ('1' + next(9)))), next(precision + 1));
                    String d = digits.length() == 0 ? "0" : digits.toString().replaceFirst("^0+(?=.)", "");
                    int places = next(scale + 2);
                    String sign = next(3) == 0 ? "-" : "";
                    yield switch (next(4)) {
                        case 1 -> sign + d + "e-" + places;
                        case 2 -> sign + d + (d.equals("0") ? "" : "e" + places);
                        default -> {
                            if (places == 0 || d.length() <= places) {
                                yield sign + d;
                            }
                            yield sign + d.substring(0, d.length() - places) + "." + d.substring(d.length() - places)
                                    + "0".repeat(next(3));
                        }
                    };
                }
            };
            if (text == null) {
                junk(depth);
            } else {
                number(text);
            }
        }

        private String dateText(int fromYear, int toYear) {
            int year = fromYear + next(toYear - fromYear + 1);
            int month = next(16) < 13 ? 1 + next(12) : next(14);
            int day = next(16) < 14 ? 1 + next(28) : next(33);
            return String.format(Locale.ROOT, "%04d-%02d-%02d", year, month, day);
        }

        private static final List<String> DATE_EDGES = List.of(
                "1970-01-01",
                "2149-06-06",
                "2149-06-07",
                "1969-12-31",
                "1900-01-01",
                "1899-12-31",
                "2299-12-31",
                "2300-01-01",
                "2024-02-29",
                "2023-02-29",
                "1900-02-29",
                "2000-02-29",
                "0000-01-01",
                "9999-12-31",
                "2024-04-31",
                "2024-5-01",
                "2024/05/01",
                "20240501",
                "+2024-05-01",
                "2024-05-01 ",
                "2024-05-01T00:00");

        private void date(boolean date16, int depth) {
            switch (next(10)) {
                case 0, 1 ->
                    number(Long.toString(pick(
                            date16
                                    ? List.of(0L, 65535L, 65536L, -1L, 19782L, (long) next(70000))
                                    : List.of(-25567L, -25568L, 120529L, 120530L, -1L, (long) next(150000) - 30000))));
                case 2 -> s("\"" + pick(DATE_EDGES) + "\"");
                case 3 -> number(pick(List.of("1.5", "1e3", "-0", "19782.0")));
                case 4 -> s("\"2024-05-\\u00301\"");
                case 9 -> junk(depth);
                default -> s("\"" + dateText(date16 ? 1965 : 1895, date16 ? 2155 : 2305) + "\"");
            }
        }

        private static final List<String> INSTANT_EDGES = List.of(
                "1677-09-21T00:12:43.145224192Z",
                "1677-09-21T00:12:43.145224191Z",
                "1677-09-21T00:12:43.145224193Z",
                "1677-09-21T00:12:44Z",
                "2262-04-11T23:47:16.854775807Z",
                "2262-04-11T23:47:16.854775808Z",
                "2106-02-07T06:28:15Z",
                "2106-02-07T06:28:16Z",
                "1970-01-01T00:00:00Z",
                "1969-12-31T23:59:59.999Z",
                "1970-01-01T01:00:00+01:00",
                "0000-01-01T00:00:00+18:00",
                "9999-12-31T23:59:59.999999999-18:00",
                "2024-05-01T12:30:15.1234567891Z",
                "2024-05-01T24:00:00Z",
                "2024-05-01T23:60Z",
                "2024-05-01T23:59:60Z",
                "2024-05-01T12Z",
                "2024-05-01T12:30.5Z",
                "2024-05-01Z",
                "2024-05-01T12:30:15+1",
                "2024-05-01T12:30:15+01:0",
                "2024-05-01T12:30:15+01:00:00",
                "2024-05-01T12:30:15Zx");

        private void dateTime(int precision, int depth) {
            switch (next(10)) {
                case 0 ->
                    number(
                            precision < 0
                                    ? pick(List.of(
                                            "0",
                                            "4294967295",
                                            "4294967296",
                                            "-1",
                                            "1714566615",
                                            Long.toString(nextLong() >>> 31)))
                                    : pick(List.of(
                                            Long.toString(Long.MIN_VALUE),
                                            Long.toString(Long.MAX_VALUE),
                                            "9223372036854775808",
                                            "-9223372036854775809",
                                            "1714566615123",
                                            Long.toString(nextLong()))));
                case 1 -> number(pick(List.of("1.5", "1e3", "-0", "0.0")));
                case 2 -> s("\"" + pick(INSTANT_EDGES) + "\"");
                case 3 -> junk(depth);
                case 4 -> s("\"2024-05-01T12:30:15\\u005a\"");
                default -> {
                    StringBuilder sb = new StringBuilder(dateText(1900, 2300));
                    if (next(6) > 0) {
                        sb.append(pick(List.of("T", "T", "t", " ")));
                        sb.append(String.format(
                                Locale.ROOT,
                                "%02d:%02d",
                                next(16) < 15 ? next(24) : next(26),
                                next(16) < 15 ? next(60) : next(62)));
                        if (next(4) > 0) {
                            sb.append(String.format(Locale.ROOT, ":%02d", next(16) < 15 ? next(60) : next(62)));
                            if (next(3) == 0) {
                                sb.append(next(4) == 0 ? ',' : '.');
                                for (int i = 1 + next(next(8) == 7 ? 11 : 9); i > 0; i--) {
                                    sb.append((char) ('0' + next(10)));
                                }
                            }
                        }
                        switch (next(8)) {
                            case 1 -> sb.append(next(4) == 0 ? 'z' : 'Z');
                            case 2, 3, 4 -> {
                                sb.append(next(2) == 0 ? '+' : '-');
                                int hours = next(8) == 7 ? 18 + next(2) : next(15);
                                int minutes = pick(List.of(0, 0, 30, 45, next(61)));
                                sb.append(
                                        switch (next(3)) {
                                            case 0 -> String.format(Locale.ROOT, "%02d:%02d", hours, minutes);
                                            case 1 -> String.format(Locale.ROOT, "%02d%02d", hours, minutes);
                                            default -> String.format(Locale.ROOT, "%02d", hours);
                                        });
                            }
                            default -> {}
                        }
                    }
                    s("\"" + sb + "\"");
                }
            }
        }

        private void uuid(int depth) {
            String hex = "0123456789abcdefABCDEF";
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < 36; i++) {
                sb.append(i == 8 || i == 13 || i == 18 || i == 23 ? '-' : hex.charAt(next(hex.length())));
            }
            switch (next(8)) {
                case 5 -> sb.setCharAt(next(36), pick(List.of('g', '-', 'G', ' ')));
                case 6 -> {
                    switch (next(4)) {
                        case 0 -> sb.deleteCharAt(next(36));
                        case 1 -> sb.append('0');
                        case 2 -> sb.insert(0, '{').append('}');
                        default -> sb.replace(0, sb.length(), sb.toString().replace("-", ""));
                    }
                }
                case 7 -> {
                    junk(depth);
                    return;
                }
                default -> {}
            }
            s("\"" + sb + "\"");
        }

        private void ipv4(int depth) {
            if (next(10) == 9) {
                junk(depth);
                return;
            }
            int parts = next(8) == 7 ? 3 + 2 * next(2) : 4;
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < parts; i++) {
                if (i > 0) {
                    sb.append('.');
                }
                int v = next(8) == 7 ? 256 + next(800) : next(256);
                String part = next(8) == 7 ? pick(List.of("", "00" + v, "0" + v, "1234", " 1")) : Integer.toString(v);
                sb.append(part);
            }
            if (next(16) == 15) {
                sb.append('.');
            }
            s("\"" + sb + "\"");
        }
    }

    // ---- seeds ----------------------------------------------------------------------------------

    private static final int[] SEED_TABLES = {0, 1, 2, 3, 7, 42, 99, 1001, 4096, 65535};

    /**
     * Per seed table: the message the generator writes from a fixed run of choice bytes, as raw bytes
     * (mode 0, readable), and the choices themselves (mode 1); and a few malformed messages for table 0.
     */
    static Map<String, byte[]> seeds() {
        Map<String, byte[]> seeds = new LinkedHashMap<>();
        for (int t : SEED_TABLES) {
            byte[] choices = new byte[160];
            new SplittableRandom(t).nextBytes(choices);
            for (int i = 0; i < choices.length; i += 3) {
                choices[i] = (byte) ((choices[i] & 0xFF) % 7); // mostly the plain, well-formed choices
            }
            Table table = new Table(t);
            byte[] message = new Messages(table, choices, 0, choices.length).message(false);
            seeds.put("raw-" + t, input(t, RAW, message));
            seeds.put("built-" + t, input(t, BUILT, choices));
        }
        seeds.put("malformed-0", input(0, RAW, "{\"a\": [1 2]}".getBytes(StandardCharsets.UTF_8)));
        seeds.put("malformed-1", input(0, RAW, "  [1]".getBytes(StandardCharsets.UTF_8)));
        return seeds;
    }

    private static byte[] input(int table, int mode, byte[] rest) {
        byte[] input = new byte[rest.length + 3];
        input[0] = (byte) table;
        input[1] = (byte) (table >>> 8);
        input[2] = (byte) mode;
        System.arraycopy(rest, 0, input, 3, rest.length);
        return input;
    }

    @Test
    void seedCorpusIsCurrent() {
        Corpus.check(JsonRowTranscoderFuzzTest.class, "rowsMatchTheJacksonReference", seeds());
    }
}
