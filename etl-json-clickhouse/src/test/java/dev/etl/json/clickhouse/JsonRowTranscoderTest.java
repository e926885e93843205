package dev.etl.json.clickhouse;

import static dev.etl.json.clickhouse.Rows.expected;
import static dev.etl.json.clickhouse.Rows.table;
import static dev.etl.json.clickhouse.Rows.transcode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.ClickHouseType;
import dev.etl.clickhouse.ClickHouseTypes;
import dev.etl.clickhouse.ColumnEncodeException;
import dev.etl.error.DeserializationException;
import dev.etl.error.FatalPipelineException;
import dev.etl.record.Payload;
import dev.etl.sink.RowBuffer;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class JsonRowTranscoderTest {

    /** The row of a one-column table {@code v type} for the message {@code {"v": json}}. */
    private static byte[] one(String type, String json) {
        return transcode(JsonRowTranscoder.builder(table("v", type)).build(), "{\"v\":" + json + "}");
    }

    private static <V> void writes(String type, String json, ClickHouseType<V> reference, V value) {
        assertThat(one(type, json)).as("%s from %s", type, json).isEqualTo(expected(reference, value));
    }

    private static void rejects(String type, String json, String problem) {
        assertThatThrownBy(() -> one(type, json))
                .as("%s from %s", type, json)
                .isInstanceOf(ColumnEncodeException.class)
                .hasMessageStartingWith("column 'v' (" + type + "): ")
                .hasMessageContaining(problem)
                .hasMessageContaining("(field 'v' at byte 5)");
    }

    @Test
    void integersFromNumbersAndStringsRangeChecked() {
        writes("Int8", "-128", ClickHouseTypes.int8(), -128);
        writes("Int16", "32767", ClickHouseTypes.int16(), 32767);
        writes("Int32", "-2147483648", ClickHouseTypes.int32(), Integer.MIN_VALUE);
        writes("Int64", "9223372036854775807", ClickHouseTypes.int64(), Long.MAX_VALUE);
        writes("Int64", "\"-9223372036854775808\"", ClickHouseTypes.int64(), Long.MIN_VALUE);
        writes("UInt8", "255", ClickHouseTypes.uint8(), 255);
        writes("UInt8", "true", ClickHouseTypes.uint8(), 1);
        writes("UInt16", "\"65535\"", ClickHouseTypes.uint16(), 65535);
        writes("UInt32", "4294967295", ClickHouseTypes.uint32(), 4294967295L);
        writes("UInt64", "9223372036854775807", ClickHouseTypes.uint64(), Long.MAX_VALUE);
        assertThat(one("UInt64", "18446744073709551615"))
                .containsOnly((byte) 0xFF)
                .hasSize(8);
        writes(
                "Int128",
                "-170141183460469231731687303715884105728",
                ClickHouseTypes.int128(),
                BigInteger.ONE.shiftLeft(127).negate());
        writes(
                "UInt256",
                "\"115792089237316195423570985008687907853269984665640564039457584007913129639935\"",
                ClickHouseTypes.uint256(),
                BigInteger.ONE.shiftLeft(256).subtract(BigInteger.ONE));
        rejects("Int8", "128", "value 128 out of range for Int8 [-128, 127]");
        rejects("UInt32", "-1", "out of range for UInt32");
        rejects("Int64", "9223372036854775808", "out of range for Int64");
        rejects("UInt64", "18446744073709551616", "out of range for UInt64");
        rejects("UInt64", "-5", "out of range for UInt64");
        rejects("Int32", "1.5", "'1.5' is not an integer");
        rejects("Int32", "1e3", "'1e3' is not an integer");
        rejects("Int32", "\"12a\"", "'12a' is not an integer");
        rejects("Int32", "true", "expected an integer for Int32, found a boolean");
        rejects("Int32", "null", "null for non-Nullable Int32");
        rejects("Int128", "1.0", "is not an integer");
        rejects("UInt128", "-1", "out of range for UInt128");
    }

    @Test
    void floatsCorrectlyRoundedToTheirWidth() {
        writes("Float64", "0.1", ClickHouseTypes.float64(), 0.1);
        writes("Float64", "-1.5e-300", ClickHouseTypes.float64(), -1.5e-300);
        writes("Float64", "12345678901234567890123", ClickHouseTypes.float64(), 12345678901234567890123.0);
        writes("Float64", "-0", ClickHouseTypes.float64(), -0.0);
        writes("Float64", "\"NaN\"", ClickHouseTypes.float64(), Double.NaN);
        writes("Float64", "\"-Infinity\"", ClickHouseTypes.float64(), Double.NEGATIVE_INFINITY);
        writes("Float64", "\"2.5\"", ClickHouseTypes.float64(), 2.5);
        writes("Float32", "0.1", ClickHouseTypes.float32(), 0.1f);
        writes("Float32", "3.4028235e38", ClickHouseTypes.float32(), Float.MAX_VALUE);
        // A value whose double rounds to a float differently from the text: read as a float, not through a double.
        writes(
                "Float32",
                "1.00000017881393432617187499",
                ClickHouseTypes.float32(),
                Float.parseFloat("1.00000017881393432617187499"));
        rejects("Float64", "\"abc\"", "'abc' is not a number");
        rejects("Float32", "[1]", "expected a number for Float32, found an array");
    }

    @Test
    void decimalsExactFromTheDigits() {
        writes("Decimal(9, 2)", "12.34", ClickHouseTypes.decimal(9, 2), new BigDecimal("12.34"));
        writes("Decimal(9, 2)", "-12.3", ClickHouseTypes.decimal(9, 2), new BigDecimal("-12.30"));
        writes("Decimal(18, 4)", "1.5e3", ClickHouseTypes.decimal(18, 4), new BigDecimal("1500.0000"));
        writes("Decimal(18, 4)", "12.340000", ClickHouseTypes.decimal(18, 4), new BigDecimal("12.3400"));
        writes("Decimal(18, 4)", "125e-4", ClickHouseTypes.decimal(18, 4), new BigDecimal("0.0125"));
        writes("Decimal64(3)", "\"-0.001\"", ClickHouseTypes.decimal(18, 3), new BigDecimal("-0.001"));
        writes(
                "Decimal(38, 10)",
                "-1234567.0123456789",
                ClickHouseTypes.decimal(38, 10),
                new BigDecimal("-1234567.0123456789"));
        writes(
                "Decimal(38, 2)",
                "123456789012345678901234567890.12",
                ClickHouseTypes.decimal(38, 2),
                new BigDecimal("123456789012345678901234567890.12"));
        writes("Decimal(76, 0)", "-5", ClickHouseTypes.decimal(76, 0), new BigDecimal("-5"));
        writes("Decimal(9, 2)", "0", ClickHouseTypes.decimal(9, 2), BigDecimal.ZERO);
        writes("Decimal(9, 2)", "0.000e99", ClickHouseTypes.decimal(9, 2), BigDecimal.ZERO);
        rejects("Decimal(9, 2)", "12.345", "more than 2 decimal places");
        rejects("Decimal(9, 2)", "10000000", "more than 9 significant digits");
        rejects("Decimal(9, 2)", "1e99", "more than 9 significant digits");
        rejects("Decimal(38, 2)", "1e40", "more than 38 significant digits");
        rejects("Decimal(9, 2)", "\"1,5\"", "'1,5' is not a number");
    }

    @Test
    void boolStringAndFixedString() {
        writes("Bool", "true", ClickHouseTypes.bool(), true);
        writes("Bool", "false", ClickHouseTypes.bool(), false);
        rejects("Bool", "1", "expected true or false for Bool, found a number");
        writes("String", "\"plain\"", ClickHouseTypes.string(), "plain");
        writes("String", "\"\"", ClickHouseTypes.string(), "");
        writes("String", "-12.5e3", ClickHouseTypes.string(), "-12.5e3");
        writes("String", "true", ClickHouseTypes.string(), "true");
        writes("LowCardinality(String)", "\"lc\"", ClickHouseTypes.string(), "lc");
        writes("FixedString(4)", "\"ab\"", ClickHouseTypes.fixedString(4), new byte[] {'a', 'b'});
        writes("FixedString(2)", "\"\\u00e9\"", ClickHouseTypes.fixedString(2), "é".getBytes(StandardCharsets.UTF_8));
        rejects("FixedString(2)", "\"abc\"", "3 bytes do not fit FixedString(2)");
        rejects("String", "{}", "expected a string for String, found an object");
    }

    @Test
    void stringEscapesDecodeToUtf8() {
        String json =
                "\"q\\\" b\\\\ s\\/ \\b\\f\\n\\r\\t \\u0041\\u00e9\\u20ac \\ud83d\\ude00 lone \\ud83d x \\ude00 raw é😀\"";
        String text = "q\" b\\ s/ \b\f\n\r\t Aé€ \uD83D\uDE00 lone \uD83D x \uDE00 raw é😀";
        // A lone surrogate becomes '?', as String.getBytes and RowBuffer.writeString (the reference) write it.
        writes("String", json, ClickHouseTypes.string(), text);
    }

    @Test
    void datesAndTimesFromIsoStringsAndEpochNumbers() {
        writes("Date", "\"2024-02-29\"", ClickHouseTypes.date(), LocalDate.of(2024, 2, 29));
        writes("Date", "19782", ClickHouseTypes.date(), LocalDate.ofEpochDay(19782));
        writes("Date32", "\"1900-01-01\"", ClickHouseTypes.date32(), LocalDate.of(1900, 1, 1));
        writes("Date32", "-1", ClickHouseTypes.date32(), LocalDate.of(1969, 12, 31));
        rejects("Date", "\"2023-02-29\"", "is not a date YYYY-MM-DD");
        rejects("Date", "\"1969-12-31\"", "day -1 out of range for Date");
        writes(
                "DateTime",
                "\"2024-05-01T12:30:15Z\"",
                ClickHouseTypes.dateTime(),
                Instant.parse("2024-05-01T12:30:15Z"));
        writes(
                "DateTime",
                "\"2024-05-01 12:30:15.999\"",
                ClickHouseTypes.dateTime(),
                Instant.parse("2024-05-01T12:30:15Z"));
        writes(
                "DateTime",
                "\"2024-05-01T14:30+02:00\"",
                ClickHouseTypes.dateTime(),
                Instant.parse("2024-05-01T12:30:00Z"));
        writes(
                "DateTime('Europe/Berlin')",
                "\"2024-05-01\"",
                ClickHouseTypes.dateTime(),
                Instant.parse("2024-05-01T00:00:00Z"));
        writes("DateTime", "1714566615", ClickHouseTypes.dateTime(), Instant.ofEpochSecond(1714566615));
        writes(
                "DateTime64(3)",
                "\"2024-05-01T12:30:15.123456789-0130\"",
                ClickHouseTypes.dateTime64(3),
                Instant.parse("2024-05-01T14:00:15.123Z"));
        writes(
                "DateTime64(9)",
                "\"1969-12-31T23:59:59.5Z\"",
                ClickHouseTypes.dateTime64(9),
                Instant.parse("1969-12-31T23:59:59.5Z"));
        writes(
                "DateTime64(6, 'UTC')",
                "\"2024-05-01T12:30:15,25\"",
                ClickHouseTypes.dateTime64(6),
                Instant.parse("2024-05-01T12:30:15.25Z"));
        writes("DateTime64(3)", "1714566615123", ClickHouseTypes.dateTime64(3), Instant.ofEpochMilli(1714566615123L));
        rejects("DateTime", "\"2024-05-01T25:00:00Z\"", "is not an ISO-8601 date-time");
        rejects("DateTime", "\"2024-05-01T12:00:00Zx\"", "is not an ISO-8601 date-time");
        rejects("DateTime", "\"1960-01-01T00:00:00Z\"", "out of range for DateTime");
        rejects("DateTime64(3)", "1.5", "'1.5' is not an integer");
    }

    /** An offset goes up to ±18:00, java.time's range (found by fuzzing, json-rows: +1830 was taken). */
    @Test
    void offsetsGoUpTo18Hours() {
        writes(
                "DateTime",
                "\"2024-05-01T18:00:00+18:00\"",
                ClickHouseTypes.dateTime(),
                Instant.parse("2024-05-01T00:00:00Z"));
        writes(
                "DateTime",
                "\"2024-05-01T00:00:00-1800\"",
                ClickHouseTypes.dateTime(),
                Instant.parse("2024-05-01T18:00:00Z"));
        writes(
                "DateTime",
                "\"2024-05-01T00:00:00-18\"",
                ClickHouseTypes.dateTime(),
                Instant.parse("2024-05-01T18:00:00Z"));
        rejects("DateTime", "\"2024-05-01T18:30:00+18:30\"", "is not an ISO-8601 date-time");
        rejects("DateTime", "\"2024-05-01T00:00:00-1801\"", "is not an ISO-8601 date-time");
        rejects("DateTime64(3)", "\"2072-07-04 15:00+1859\"", "is not an ISO-8601 date-time");
        rejects("DateTime", "\"2024-05-01T00:00:00+19\"", "is not an ISO-8601 date-time");
    }

    /**
     * DateTime64(9) takes every instant whose ticks are an Int64, the first one included: its seconds times
     * 10^9 are below Long.MIN_VALUE, the fraction brings it back (found by fuzzing, json-rows). The reference
     * is the Int64 of the ticks: ClickHouseTypes.dateTime64 multiplies the seconds first as well.
     */
    @Test
    void dateTime64TakesEveryInstantWhoseTicksAreAnInt64() {
        writes("DateTime64(9)", "\"1677-09-21T00:12:43.145224192Z\"", ClickHouseTypes.int64(), Long.MIN_VALUE);
        writes("DateTime64(9)", "\"1677-09-21T00:12:43.5Z\"", ClickHouseTypes.int64(), -9223372036500000000L);
        writes("DateTime64(9)", "\"2262-04-11T23:47:16.854775807Z\"", ClickHouseTypes.int64(), Long.MAX_VALUE);
        writes("DateTime64(3)", "\"1969-12-31T23:59:59.9995Z\"", ClickHouseTypes.int64(), -1L);
        rejects("DateTime64(9)", "\"1677-09-21T00:12:43.145224191Z\"", "overflows DateTime64(9)");
        rejects("DateTime64(9)", "\"1677-09-21T00:12:43Z\"", "overflows DateTime64(9)");
        rejects("DateTime64(9)", "\"2262-04-11T23:47:16.854775808Z\"", "overflows DateTime64(9)");
    }

    @Test
    void uuidIpv4AndEnums() {
        UUID id = UUID.fromString("123e4567-e89b-12d3-a456-426614174000");
        writes("UUID", "\"123e4567-E89B-12d3-a456-426614174000\"", ClickHouseTypes.uuid(), id);
        rejects("UUID", "\"123e4567-e89b-12d3-a456-42661417400\"", "is not a UUID");
        rejects("UUID", "\"123e4567-e89b-12d3-a456-42661417400g\"", "is not a UUID");
        writes("IPv4", "\"192.168.0.1\"", ClickHouseTypes.ipv4(), 0xC0A80001);
        rejects("IPv4", "\"192.168.0.256\"", "is not an IPv4 address");
        rejects("IPv4", "\"1.2.3\"", "is not an IPv4 address");
        Map<String, Integer> values = new LinkedHashMap<>();
        values.put("new", 1);
        values.put("paid", -2);
        values.put("é", 3);
        writes("Enum8('new' = 1, 'paid' = -2, 'é' = 3)", "\"paid\"", ClickHouseTypes.enum8(values), -2);
        writes("Enum8('new' = 1, 'paid' = -2, 'é' = 3)", "\"\\u00e9\"", ClickHouseTypes.enum8(values), 3);
        writes("Enum16('new' = 1, 'paid' = 1000)", "\"paid\"", ClickHouseTypes.enum16(Map.of("paid", 1000)), 1000);
        rejects("Enum8('new' = 1)", "\"old\"", "\"old\" is not a symbol of Enum8('new' = 1)");
    }

    @Test
    void nullableArraysAndMaps() {
        writes("Nullable(Int32)", "null", ClickHouseTypes.nullable(ClickHouseTypes.int32()), null);
        writes("Nullable(Int32)", "7", ClickHouseTypes.nullable(ClickHouseTypes.int32()), 7);
        writes("LowCardinality(Nullable(String))", "\"x\"", ClickHouseTypes.nullable(ClickHouseTypes.string()), "x");
        writes("Array(Int64)", "[]", ClickHouseTypes.array(ClickHouseTypes.int64()), List.of());
        writes("Array(Int64)", "[ 1 , -2,3 ]", ClickHouseTypes.array(ClickHouseTypes.int64()), List.of(1L, -2L, 3L));
        writes(
                "Array(Nullable(String))",
                "[\"a\", null, \"\\n\"]",
                ClickHouseTypes.array(ClickHouseTypes.nullable(ClickHouseTypes.string())),
                Arrays.asList("a", null, "\n"));
        writes(
                "Array(Array(UInt8))",
                "[[1,2],[],[3]]",
                ClickHouseTypes.array(ClickHouseTypes.array(ClickHouseTypes.uint8())),
                List.of(List.of(1, 2), List.of(), List.of(3)));
        Map<String, Long> map = new LinkedHashMap<>();
        map.put("b", 2L);
        map.put("a\"", 1L);
        writes(
                "Map(String, Int64)",
                "{\"b\": 2, \"a\\\"\": 1}",
                ClickHouseTypes.map(ClickHouseTypes.string(), ClickHouseTypes.int64()),
                map);
        writes(
                "Map(LowCardinality(String), Array(String))",
                "{}",
                ClickHouseTypes.map(ClickHouseTypes.string(), ClickHouseTypes.array(ClickHouseTypes.string())),
                Collections.emptyMap());
        rejects("Array(Int64)", "[1, \"x\"]", "'x' is not an integer");
        rejects("Array(Int64)", "null", "null for non-Nullable Array(Int64)");
        rejects("Map(String, Int64)", "[]", "expected an object for Map(String, Int64), found an array");
    }

    @Test
    void columnsTakeTheirFieldsInAnyOrderAndSkipUnknownOnes() {
        JsonRowTranscoder t = JsonRowTranscoder.builder(
                        table("id", "UInt64", "name", "String", "tags", "Array(String)"))
                .build();
        byte[] reference = expected(
                List.of(
                        ClickHouseTypes.uint64(),
                        ClickHouseTypes.string(),
                        ClickHouseTypes.array(ClickHouseTypes.string())),
                List.of(7L, "n", List.of("a")));
        List<String> fields = List.of("\"id\":7", "\"name\":\"n\"", "\"tags\":[\"a\"]", "\"x\":{\"id\":[1,{}]}");
        List<List<String>> orders = new ArrayList<>();
        permutations(new ArrayList<>(fields), 0, orders);
        assertThat(orders).hasSize(24);
        for (List<String> order : orders) {
            assertThat(transcode(t, "{" + String.join(",", order) + "}"))
                    .as("%s", order)
                    .isEqualTo(reference);
        }
        assertThat(t.unknownFields()).isEqualTo(24);
        assertThat(t.columns())
                .containsExactly(
                        new ClickHouseColumn("id", "UInt64"),
                        new ClickHouseColumn("name", "String"),
                        new ClickHouseColumn("tags", "Array(String)"));
    }

    private static void permutations(List<String> items, int k, List<List<String>> into) {
        if (k == items.size()) {
            into.add(List.copyOf(items));
            return;
        }
        for (int i = k; i < items.size(); i++) {
            Collections.swap(items, k, i);
            permutations(items, k + 1, into);
            Collections.swap(items, k, i);
        }
    }

    @Test
    void nestedObjectsByDottedPaths() {
        JsonRowTranscoder t = JsonRowTranscoder.builder(table(
                        "customer_name", "String", "city", "Nullable(String)", "customer", "String", "n", "Int32"))
                .field("customer_name", "customer.name")
                .field("city", "customer.address.city")
                .field("customer", "customer.name") // two columns, one field
                .field("n", "a\u00e9")
                .build();
        String json =
                "{\"customer\": {\"x\": [1], \"name\": \"Ann\", \"address\": {\"city\": \"Oslo\"}}, \"a\\u00e9\": 5}";
        List<ClickHouseType<?>> types = List.of(
                ClickHouseTypes.string(),
                ClickHouseTypes.nullable(ClickHouseTypes.string()),
                ClickHouseTypes.string(),
                ClickHouseTypes.int32());
        assertThat(transcode(t, json)).isEqualTo(expected(types, List.of("Ann", "Oslo", "Ann", 5)));
        // The object on the way is null, or not an object: the nested field is missing (NULL for a Nullable).
        assertThat(transcode(t, "{\"aé\": 5, \"customer\": {\"name\": \"B\", \"address\": null}}"))
                .isEqualTo(expected(types, Arrays.asList("B", null, "B", 5)));
        assertThat(transcode(t, "{\"aé\": 5, \"customer\": {\"name\": \"B\", \"address\": [1]}}"))
                .isEqualTo(expected(types, Arrays.asList("B", null, "B", 5)));
        assertThatThrownBy(() -> transcode(t, "{\"aé\": 5, \"customer\": \"B\"}"))
                .isInstanceOf(ColumnEncodeException.class)
                .hasMessage("column 'customer_name' (String): the message (27 bytes) has no field 'customer.name'");
    }

    /**
     * A repeated field takes its last value on a dotted path too: what an earlier object of the same name held
     * is not read through a later one (found by fuzzing, json-rows: {@code "m":{"v":-2115195643}, "m":{}}
     * wrote the first object's v).
     */
    @Test
    void aRepeatedObjectOnAPathTakesItsLastValue() {
        JsonRowTranscoder t = JsonRowTranscoder.builder(table("name", "String", "city", "Nullable(String)"))
                .field("name", "customer.name")
                .field("city", "customer.address.city")
                .build();
        List<ClickHouseType<?>> types =
                List.of(ClickHouseTypes.string(), ClickHouseTypes.nullable(ClickHouseTypes.string()));
        // The last customer has no address: city is missing, NULL; name is the last one's.
        assertThat(
                        transcode(
                                t,
                                "{\"customer\": {\"name\": \"A\", \"address\": {\"city\": \"Oslo\"}}, \"customer\": {\"name\": \"B\"}}"))
                .isEqualTo(expected(types, Arrays.asList("B", null)));
        // One level down: the last address is empty.
        assertThat(transcode(
                        t, "{\"customer\": {\"name\": \"A\", \"address\": {\"city\": \"Oslo\"}, \"address\": {}}}"))
                .isEqualTo(expected(types, Arrays.asList("A", null)));
        // The last customer is null: every field below it is missing.
        assertThatThrownBy(() -> transcode(t, "{\"customer\": {\"name\": \"A\"}, \"customer\": null}"))
                .isInstanceOf(ColumnEncodeException.class)
                .hasMessage("column 'name' (String): the message (45 bytes) has no field 'customer.name'");
    }

    @Test
    void aColumnNamedWithADotTakesTheFieldOfThatNameNotAPath() {
        JsonRowTranscoder t = JsonRowTranscoder.builder(table("a.b", "Int8", "nested", "Int8"))
                .field("nested", "a.b")
                .build();
        assertThat(transcode(t, "{\"a\": {\"b\": 2}, \"a.b\": 1}"))
                .isEqualTo(expected(List.of(ClickHouseTypes.int8(), ClickHouseTypes.int8()), List.of(1, 2)));
    }

    @Test
    void aMissingFieldIsNullForNullableElseTheRecordFails() {
        JsonRowTranscoder t = JsonRowTranscoder.builder(table("a", "Nullable(Int8)", "b", "Int8"))
                .build();
        assertThat(transcode(t, "{\"b\": 1}"))
                .isEqualTo(expected(
                        List.of(ClickHouseTypes.nullable(ClickHouseTypes.int8()), ClickHouseTypes.int8()),
                        Arrays.asList(null, 1)));
        assertThatThrownBy(() -> transcode(t, "{\"a\": 1}"))
                .isInstanceOf(ColumnEncodeException.class)
                .hasMessage("column 'b' (Int8): the message (8 bytes) has no field 'b'")
                .extracting((e) -> ((ColumnEncodeException) e).column())
                .isEqualTo("b");
    }

    @Test
    void columnsWithDefaultsAreMappedByNameOrLeftToTheServer() {
        var table = Rows.tableWithDefaults(Set.of("at", "src"), "id", "Int32", "at", "DateTime", "src", "String");
        JsonRowTranscoder mapped = JsonRowTranscoder.builder(table).build();
        assertThat(mapped.columns()).extracting(ClickHouseColumn::name).containsExactly("id", "at", "src");
        assertThat(transcode(mapped, "{\"id\": 1, \"at\": 0, \"src\": \"s\"}"))
                .isEqualTo(expected(
                        List.of(ClickHouseTypes.int32(), ClickHouseTypes.dateTime(), ClickHouseTypes.string()),
                        List.of(1, Instant.EPOCH, "s")));
        assertThatThrownBy(() -> transcode(mapped, "{\"id\": 1, \"src\": \"s\"}"))
                .isInstanceOf(ColumnEncodeException.class)
                .hasMessageContaining("has no field 'at'; the column has a DEFAULT")
                .hasMessageContaining("serverDefault(\"at\")");

        JsonRowTranscoder one =
                JsonRowTranscoder.builder(table).serverDefault("at").build();
        assertThat(one.columns()).extracting(ClickHouseColumn::name).containsExactly("id", "src");
        assertThat(transcode(one, "{\"id\": 1, \"at\": \"ignored\", \"src\": \"s\"}"))
                .isEqualTo(expected(List.of(ClickHouseTypes.int32(), ClickHouseTypes.string()), List.of(1, "s")));

        JsonRowTranscoder.Builder all =
                JsonRowTranscoder.builder(table).field("src", "source").serverDefaults();
        assertThat(all.columns()).extracting(ClickHouseColumn::name).containsExactly("id", "src");
        assertThat(transcode(all.build(), "{\"id\": 1, \"source\": \"s\"}"))
                .isEqualTo(expected(List.of(ClickHouseTypes.int32(), ClickHouseTypes.string()), List.of(1, "s")));
        assertThatThrownBy(() -> all.field("id", "x")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void mappingMistakesFailTheBuilderNamingTheColumnAndType() {
        var table = Rows.tableWithDefaults(
                Set.of(),
                "id",
                "Int32",
                "t",
                "Tuple(Int32, String)",
                "ip",
                "IPv6",
                "m",
                "Map(Int32, String)",
                "agg",
                "AggregateFunction(uniq, UInt64)");
        assertThatThrownBy(() -> JsonRowTranscoder.builder(table).field("idd", "x"))
                .isInstanceOf(JsonMappingException.class)
                .hasMessageStartingWith(
                        "column 'idd': the table has no insertable column of that name (did you mean 'id'?)");
        assertThatThrownBy(() -> JsonRowTranscoder.builder(table).field("id", "a..b"))
                .isInstanceOf(JsonMappingException.class)
                .hasMessageContaining("field path 'a..b' has an empty segment");
        assertThatThrownBy(() -> JsonRowTranscoder.builder(table).serverDefault("id"))
                .isInstanceOf(JsonMappingException.class)
                .hasMessage("column 'id' (Int32): has no DEFAULT expression, so the insert must carry it");
        for (String column : List.of("t", "ip", "m", "agg")) {
            var only = Rows.table(column, table.column(column).type());
            assertThatThrownBy(() -> JsonRowTranscoder.builder(only).build())
                    .isInstanceOf(JsonMappingException.class)
                    .hasMessageStartingWith("column '" + column + "' ("
                            + table.column(column).type() + "): the JSON transcoder does not write this type")
                    .satisfies((e) ->
                            assertThat(((JsonMappingException) e).column()).isEqualTo(column));
        }
    }

    @Test
    void malformedJsonIsADecodeErrorNamingThePosition() {
        JsonRowTranscoder t =
                JsonRowTranscoder.builder(table("a", "Nullable(String)")).build();
        Map<String, String> cases = new LinkedHashMap<>();
        cases.put("", "an empty message has no JSON object at byte 0");
        cases.put("  [1]", "expected a JSON object, found '[' at byte 2");
        cases.put("{\"a\": 1} x", "unexpected 'x' after the JSON object at byte 9");
        cases.put("{\"a\" 1}", "expected ':' after a field name, found '1' at byte 5");
        cases.put("{\"a\": 1,}", "expected a field name, found '}' at byte 8");
        cases.put("{\"a\": [1 2]}", "expected ',' or ']' in an array, found '2' at byte 9");
        cases.put("{\"a\": \"x}", "the string starting here is not closed at byte 6");
        cases.put("{\"a\": \"\\x\"}", "invalid escape '\\x' at byte 7");
        cases.put("{\"a\": \"\\u12g4\"}", "invalid \\u escape: 'g' is not a hex digit at byte 7");
        cases.put("{\"a\": \"tab\there\"}", "control character byte 0x09 in a string must be escaped at byte 10");
        cases.put("{\"a\": 01}", "a number cannot have a leading zero at byte 6");
        cases.put("{\"a\": -}", "a number needs a digit after '-' at byte 6");
        cases.put("{\"a\": 1.}", "a number needs a digit after '.' at byte 6");
        cases.put("{\"a\": tru}", "expected 'true' at byte 6");
        cases.put("{\"a\": nul", "expected 'null', the message ends first at byte 6");
        cases.put("{\"a\": {\"b\": 1", "the message ends where ',' or '}' was expected at byte 13");
        cases.put("{\"a\" : 'x'}", "a value cannot start with ''' at byte 7");
        for (Map.Entry<String, String> c : cases.entrySet()) {
            assertThatThrownBy(() -> transcode(t, c.getKey()))
                    .as(c.getKey())
                    .isInstanceOf(DeserializationException.class)
                    .extracting((e) -> ((DeserializationException) e).reason())
                    .isEqualTo("malformed JSON: " + c.getValue());
        }
        String deep = "{\"a\":" + "[".repeat(300) + "]".repeat(300) + "}";
        assertThatThrownBy(() -> transcode(t, deep))
                .isInstanceOf(DeserializationException.class)
                .hasMessageContaining("nested deeper than 256");
    }

    @Test
    void aTombstoneHasNoRow() {
        JsonRowTranscoder t = JsonRowTranscoder.builder(table("a", "Int8")).build();
        assertThatThrownBy(() -> t.encodeRows(new Payload(), null, new RowBuffer(16)))
                .isInstanceOf(DeserializationException.class)
                .hasMessageContaining("tombstone");
    }

    @Test
    void anInstanceServesOneThread() throws Exception {
        JsonRowTranscoder t = JsonRowTranscoder.builder(table("a", "Int8")).build();
        transcode(t, "{\"a\": 1}");
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread other = new Thread(() -> {
            try {
                transcode(t, "{\"a\": 1}");
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        other.start();
        other.join();
        assertThat(failure.get()).isInstanceOf(FatalPipelineException.class).hasMessageContaining("one lane");
    }
}
