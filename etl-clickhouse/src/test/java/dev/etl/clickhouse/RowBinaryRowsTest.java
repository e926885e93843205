package dev.etl.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.sink.RowBuffer;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * {@link RowBinaryRows}: the start of every row of a batch, exactly where the encoder ended the row
 * before (the RowBuffer's length after each {@code encode}), for every type the encoders write.
 */
class RowBinaryRowsTest {

    /** One row of every type: the values vary per row (NULLs, empty and long values, multi-byte lengths). */
    record Row(int i) {
        String text() {
            return i % 3 == 0 ? "" : "x".repeat(i * 37); // up to several hundred bytes: 2-byte LEB128 lengths
        }

        boolean isNull() {
            return i % 2 == 0;
        }

        List<Integer> list() {
            List<Integer> out = new ArrayList<>();
            for (int k = 0; k < i % 4; k++) {
                out.add(k * i);
            }
            return out;
        }
    }

    private static final Map<String, Integer> ENUM = new LinkedHashMap<>(Map.of("a", 1, "b", 2));

    static final RowBinaryEncoder<Row> EVERY_TYPE = RowBinaryEncoder.<Row>builder()
            .uint8("u8", r -> r.i() & 0xFF)
            .uint16("u16", r -> r.i())
            .uint32("u32", r -> r.i())
            .uint64("u64", r -> r.i())
            .uint128("u128", r -> BigInteger.valueOf(r.i()))
            .uint256("u256", r -> BigInteger.valueOf(r.i()))
            .int8("i8", r -> r.i() % 100)
            .int16("i16", r -> -r.i())
            .int32("i32", r -> -r.i())
            .int64("i64", r -> -r.i())
            .int128("i128", r -> BigInteger.valueOf(-r.i()))
            .int256("i256", r -> BigInteger.valueOf(-r.i()))
            .float32("f32", r -> r.i() / 3.0)
            .float64("f64", r -> r.i() / 7.0)
            .bool("b", r -> r.isNull())
            .string("s", Row::text)
            .nullableString("ns", r -> r.isNull() ? null : r.text())
            .lowCardinalityString("lcs", r -> "k" + (r.i() % 3))
            .fixedString("fs", 3, r -> new byte[] {1, 2})
            .date("d", r -> 19_000 + r.i())
            .date32("d32", r -> -r.i())
            .dateTime("dt", r -> 1_700_000_000L + r.i())
            .dateTime64("dt64", 3, r -> 1_700_000_000_000L + r.i())
            .uuid("id", r -> new UUID(r.i(), -r.i()))
            .decimal32("dec32", 2, r -> r.i())
            .decimal64("dec64", 4, r -> r.i())
            .decimal128("dec128", 6, r -> r.i())
            .decimal256("dec256", 10, r -> r.i())
            .decimal("dec", 18, 2, r -> BigDecimal.valueOf(r.i(), 2))
            .enum8("e8", ENUM, r -> 1 + r.i() % 2)
            .enum16("e16", ENUM, r -> 1 + r.i() % 2)
            .ipv4("ip4", Row::i)
            .ipv6("ip6", r -> new byte[16])
            .nullable("nu32", ClickHouseTypes.uint32(), r -> r.isNull() ? null : (long) r.i())
            .column(
                    "lcn",
                    ClickHouseTypes.lowCardinality(ClickHouseTypes.nullable(ClickHouseTypes.string())),
                    r -> r.isNull() ? null : r.text())
            .column("lcfs", ClickHouseTypes.lowCardinality(ClickHouseTypes.fixedString(2)), r ->
                    new byte[] {(byte) r.i(), 0})
            .array(
                    "as",
                    ClickHouseTypes.string(),
                    r -> r.list().stream().map(k -> "v" + k).toList())
            .array("ani", ClickHouseTypes.nullable(ClickHouseTypes.int32()), r -> r.list())
            .array("aa", ClickHouseTypes.array(ClickHouseTypes.uint8()), r -> List.of(r.list(), List.of()))
            .array("alc", ClickHouseTypes.lowCardinality(ClickHouseTypes.string()), r -> List.of(r.text()))
            .column("ai64", ClickHouseTypes.int64Array(), r -> new long[r.i() % 5])
            .column("ai32", ClickHouseTypes.int32Array(), r -> new int[r.i() % 3])
            .column("af64", ClickHouseTypes.float64Array(), r -> new double[r.i() % 2])
            .map(
                    "m",
                    ClickHouseTypes.string(),
                    ClickHouseTypes.array(ClickHouseTypes.uint64()),
                    r -> r.isNull() ? Map.of() : Map.of(r.text(), List.of(1L, 2L)))
            .column(
                    "t",
                    ClickHouseTypes.<Row>tuple()
                            .element(ClickHouseTypes.string(), Row::text)
                            .element(ClickHouseTypes.nullable(ClickHouseTypes.ipv6()), r -> null)
                            .element(ClickHouseTypes.dateTime64(6), r -> Instant.ofEpochSecond(r.i()))
                            .element(ClickHouseTypes.date(), r -> LocalDate.ofEpochDay(r.i()))
                            .element(ClickHouseTypes.array(ClickHouseTypes.uuid()), r -> List.of(new UUID(1, 2)))
                            .build(),
                    r -> r)
            .build();

    @Test
    void everyTypeTheEncodersWriteIsDelimitedExactly() {
        RowBuffer out = new RowBuffer(64);
        int rows = 40;
        int[] expected = new int[rows + 1];
        for (int i = 0; i < rows; i++) {
            expected[i] = out.length();
            EVERY_TYPE.encode(new Row(i), out);
        }
        expected[rows] = out.length();
        int[] starts = RowBinaryRows.of(EVERY_TYPE.columns()).starts(out.array(), out.length(), rows);
        assertThat(starts).containsExactly(expected);
        assertThat(EVERY_TYPE.columns())
                .extracting(ClickHouseColumn::type)
                .contains(
                        "Nullable(String)",
                        "LowCardinality(Nullable(String))",
                        "FixedString(3)",
                        "DateTime64(3)",
                        "UUID",
                        "IPv4",
                        "IPv6",
                        "Decimal(18, 2)",
                        "Map(String, Array(UInt64))");
    }

    @Test
    void randomNestedSchemasAreDelimitedExactly() {
        for (long seed = 0x0B0_0DA7L; seed < 0x0B0_0DA7L + 300; seed++) {
            Random random = new Random(seed);
            int columnCount = 1 + random.nextInt(6);
            List<NativeTranspositionPropertyTest.Spec> specs = new ArrayList<>();
            RowBinaryEncoder.Builder<Object[]> builder = RowBinaryEncoder.builder();
            for (int c = 0; c < columnCount; c++) {
                NativeTranspositionPropertyTest.Spec spec = NativeTranspositionPropertyTest.randomSpec(random, 0);
                specs.add(spec);
                int index = c;
                builder.column("c" + c, spec.type(), row -> row[index]);
            }
            RowBinaryEncoder<Object[]> encoder = builder.build();
            int rows = random.nextInt(60);
            RowBuffer out = new RowBuffer(64);
            int[] expected = new int[rows + 1];
            for (int r = 0; r < rows; r++) {
                Object[] row = new Object[columnCount];
                for (int c = 0; c < columnCount; c++) {
                    row[c] = specs.get(c).random(random);
                }
                expected[r] = out.length();
                encoder.encode(row, out);
            }
            expected[rows] = out.length();
            int[] starts = RowBinaryRows.of(encoder.columns()).starts(out.array(), out.length(), rows);
            assertThat(starts)
                    .as("seed %d, columns %s", seed, encoder.columns())
                    .containsExactly(expected);
        }
    }

    @Test
    void bytesThatAreNotTheColumnsFailNamingRowAndColumn() {
        RowBuffer out = new RowBuffer(64);
        for (int i = 0; i < 5; i++) {
            EVERY_TYPE.encode(new Row(i), out);
        }
        RowBinaryRows rows = RowBinaryRows.of(EVERY_TYPE.columns());
        byte[] bytes = Arrays.copyOf(out.array(), out.length());
        assertThatThrownBy(() -> rows.starts(bytes, bytes.length - 1, 5))
                .isInstanceOf(RowBinaryMismatchException.class)
                .hasMessageStartingWith("row 4 of 5")
                .hasMessageContaining("column 't'");
        assertThatThrownBy(() -> rows.starts(bytes, bytes.length, 4))
                .isInstanceOf(RowBinaryMismatchException.class)
                .hasMessageContaining("bytes after its 4 rows");
        RowBinaryRows nullable = RowBinaryRows.of(List.of(new ClickHouseColumn("n", "Nullable(UInt8)")));
        assertThatThrownBy(() -> nullable.starts(new byte[] {0, 7, 2}, 3, 2))
                .isInstanceOf(RowBinaryMismatchException.class)
                .hasMessageContaining("row 1 of 2")
                .hasMessageContaining("Nullable flag must be 0 or 1, got 2");
    }

    @Test
    void withoutColumnsOrWithATypeItDoesNotKnowItRefusesToStart() {
        assertThatThrownBy(() -> RowBinaryRows.of(List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("without its columns");
        assertThatThrownBy(() -> RowBinaryRows.of(
                        List.of(new ClickHouseColumn("id", "UInt64"), new ClickHouseColumn("p", "Point"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("column 'p' (Point)");
    }
}
