package dev.etl.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.sink.RowBuffer;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The Native transposition byte for byte. Expected column data is written by hand from the Native
 * layout (ClickHouse's bulk serialization: fixed-width values back to back, Strings as LEB128 length
 * and bytes, a Nullable's null map before its values with a default in each NULL's place, an Array's
 * cumulative UInt64 offsets before its elements, a Tuple's elements one column after the other, a
 * Map as Array(Tuple(K, V)), LowCardinality as prefix version 1, flags, keys, indexes); the tests
 * marked "server" compare with bytes ClickHouse 18.16.1 itself answered to {@code SELECT … FORMAT
 * Native} for the same values (captured with {@code curl … | xxd -p}).
 */
class NativeBlockEncoderTest {

    private static String rep(String hexByte, int n) {
        return hexByte.repeat(n);
    }

    private static String u64(long v) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            sb.append(String.format("%02x", (v >>> (8 * i)) & 0xFF));
        }
        return sb.toString();
    }

    /** A name or type as it heads a column: LEB128 length, UTF-8 bytes. */
    private static String str(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return String.format("%02x", b.length) + HexFormat.of().formatHex(b);
    }

    private static <T> byte[] rowBinary(RowBinaryEncoder<T> encoder, List<T> rows) {
        RowBuffer out = new RowBuffer(64);
        for (T row : rows) {
            encoder.encode(row, out);
        }
        return out.toByteArray();
    }

    private static <T> String nativeHex(RowBinaryEncoder<T> encoder, List<T> rows) {
        byte[] rb = rowBinary(encoder, rows);
        NativeBlockEncoder nat = NativeBlockEncoder.of(encoder.columns());
        int n = nat.encode(rb, rb.length, rows.size());
        return HexFormat.of().formatHex(Arrays.copyOf(nat.block(), n));
    }

    /** A one-column block: count 1, the rows, the column's name "c" and type, then {@code data}. */
    private static <V> String column(ClickHouseType<V> type, List<V> values) {
        RowBinaryEncoder<V> encoder =
                RowBinaryEncoder.<V>builder().column("c", type, v -> v).build();
        return nativeHex(encoder, values);
    }

    private static String block(int rows, String type, String data) {
        return "01" + String.format("%02x", rows) + str("c") + str(type) + data;
    }

    private static <V> void assertColumn(ClickHouseType<V> type, List<V> values, String data) {
        assertThat(column(type, values)).isEqualTo(block(values.size(), type.name(), data.replace(" ", "")));
    }

    private static <V> void assertTyped(
            Function<RowBinaryEncoder.Builder<V>, RowBinaryEncoder.Builder<V>> declare,
            List<V> values,
            String type,
            String data) {
        RowBinaryEncoder<V> encoder = declare.apply(RowBinaryEncoder.builder()).build();
        assertThat(encoder.columns().get(0).type()).isEqualTo(type);
        assertThat(nativeHex(encoder, values)).isEqualTo(block(values.size(), type, data.replace(" ", "")));
    }

    @Test
    void fixedWidthIntegersAreTheirValuesBackToBack() {
        assertTyped(b -> b.uint8("c", (Integer v) -> v), List.of(1, 255), "UInt8", "01 ff");
        assertTyped(b -> b.uint16("c", (Integer v) -> v), List.of(1, 0xABCD), "UInt16", "0100 cdab");
        assertTyped(b -> b.uint32("c", (Long v) -> v), List.of(1L, 0xDEADBEEFL), "UInt32", "01000000 efbeadde");
        assertTyped(
                b -> b.uint64("c", (Long v) -> v),
                List.of(1L, 0x0102030405060708L),
                "UInt64",
                "0100000000000000 0807060504030201");
        assertTyped(b -> b.uint64Bits("c", (Long v) -> v), List.of(-1L), "UInt64", rep("ff", 8));
        assertTyped(b -> b.int8("c", (Integer v) -> v), List.of(-1, 2), "Int8", "ff 02");
        assertTyped(b -> b.int16("c", (Integer v) -> v), List.of(-2), "Int16", "feff");
        assertTyped(b -> b.int32("c", (Integer v) -> v), List.of(-3, 7), "Int32", "fdffffff 07000000");
        assertTyped(b -> b.int64("c", (Long v) -> v), List.of(-4L), "Int64", "fc" + rep("ff", 7));
        assertTyped(
                b -> b.int128("c", (BigInteger v) -> v),
                List.of(BigInteger.valueOf(-2)),
                "Int128",
                "fe" + rep("ff", 15));
        assertTyped(
                b -> b.uint256("c", (BigInteger v) -> v),
                List.of(BigInteger.TWO.pow(255)),
                "UInt256",
                rep("00", 31) + "80");
    }

    @Test
    void floatsBoolsDatesAndTimesAreTheirValuesBackToBack() {
        assertTyped(b -> b.float32("c", (Double v) -> v), List.of(1.0), "Float32", "0000803f");
        assertTyped(
                b -> b.float64("c", (Double v) -> v),
                List.of(1.0, -2.0),
                "Float64",
                "000000000000f03f 00000000000000c0");
        assertTyped(b -> b.bool("c", (Boolean v) -> v), List.of(true, false), "Bool", "01 00");
        assertTyped(b -> b.date("c", (Integer v) -> v), List.of(1, 0x1234), "Date", "0100 3412");
        assertTyped(b -> b.date32("c", (Integer v) -> v), List.of(-1), "Date32", "ffffffff");
        assertTyped(b -> b.dateTime("c", (Long v) -> v), List.of(1L), "DateTime", "01000000");
        assertTyped(b -> b.dateTime64("c", 3, (Long v) -> v), List.of(1000L), "DateTime64(3)", "e803000000000000");
    }

    @Test
    void decimalsEnumsAddressesUuidsAndFixedStringsAreTheirValuesBackToBack() {
        assertTyped(b -> b.decimal32("c", 2, (Long v) -> v), List.of(150L), "Decimal(9, 2)", "96000000");
        assertTyped(b -> b.decimal64("c", 2, (Long v) -> v), List.of(150L), "Decimal(18, 2)", "9600000000000000");
        assertTyped(b -> b.decimal128("c", 2, (Long v) -> v), List.of(-1L), "Decimal(38, 2)", rep("ff", 16));
        assertTyped(b -> b.decimal256("c", 0, (Long v) -> v), List.of(1L), "Decimal(76, 0)", "01" + rep("00", 31));
        Map<String, Integer> ab = new LinkedHashMap<>();
        ab.put("a", 1);
        ab.put("b", 2);
        assertTyped(b -> b.enum8("c", ab, (Integer v) -> v), List.of(2, 1), "Enum8('a' = 1, 'b' = 2)", "02 01");
        assertTyped(
                b -> b.enum16("c", Map.of("x", 1000), (Integer v) -> v), List.of(1000), "Enum16('x' = 1000)", "e803");
        assertTyped(b -> b.ipv4("c", (Integer v) -> v), List.of(0x7F000001), "IPv4", "0100007f");
        byte[] loopback = new byte[16];
        loopback[15] = 1;
        assertTyped(b -> b.ipv6("c", (byte[] v) -> v), List.of(loopback), "IPv6", rep("00", 15) + "01");
        // server: toUUID('00112233-4455-6677-8899-aabbccddeeff') FORMAT Native ends 77665544332211 00ffeeddccbbaa9988
        assertTyped(
                b -> b.uuid("c", (UUID v) -> v),
                List.of(UUID.fromString("00112233-4455-6677-8899-aabbccddeeff")),
                "UUID",
                "7766554433221100 ffeeddccbbaa9988");
        assertTyped(
                b -> b.fixedString("c", 3, (byte[] v) -> v),
                List.of("ab".getBytes(StandardCharsets.UTF_8)),
                "FixedString(3)",
                "616200");
    }

    @Test
    void stringsAreLengthAndBytesPerValue() {
        assertTyped(b -> b.string("c", (String v) -> v), List.of("a", "", "ßb"), "String", "0161 00 03c39f62");
        assertTyped(b -> b.stringBytes("c", (byte[] v) -> v), List.of(new byte[] {(byte) 0xFF}), "String", "01ff");
    }

    @Test
    void nullableIsTheNullMapThenTheValuesWithDefaultsForNulls() {
        // server: SELECT arrayJoin([NULL, 'a', NULL, 'bb']) AS s FORMAT Native
        assertThat(nativeHex(
                        RowBinaryEncoder.<String>builder()
                                .nullableString("s", v -> v)
                                .build(),
                        Arrays.asList(null, "a", null, "bb")))
                .isEqualTo("01040173104e756c6c61626c6528537472696e67290100010000016100026262");
        assertColumn(
                ClickHouseTypes.nullable(ClickHouseTypes.int32()),
                Arrays.asList(5, null, -7),
                "00 01 00  05000000 00000000 f9ffffff");
        assertColumn(
                ClickHouseTypes.nullable(ClickHouseTypes.uuid()), Arrays.asList((UUID) null), "01 " + rep("00", 16));
        assertColumn(
                ClickHouseTypes.nullable(ClickHouseTypes.fixedString(2)),
                Arrays.asList(null, new byte[] {7}),
                "01 00  0000 0700");
    }

    @Test
    void arrayIsCumulativeOffsetsThenAllElements() {
        assertColumn(
                ClickHouseTypes.array(ClickHouseTypes.uint32()),
                List.of(List.of(1L, 2L), List.of(), List.of(3L)),
                u64(2) + u64(2) + u64(3) + "01000000 02000000 03000000");
        // server: SELECT arrayJoin([[toNullable('p'), NULL], [], ['q']]) AS a FORMAT Native
        assertThat(column(
                        ClickHouseTypes.array(ClickHouseTypes.nullable(ClickHouseTypes.string())),
                        List.of(Arrays.asList("p", null), List.of(), List.of("q"))))
                .isEqualTo("0103" + str("c") + "174172726179284e756c6c61626c6528537472696e672929"
                        + "0200000000000000020000000000000003000000000000000001000170000171");
        List<Collection<? extends Collection<? extends Integer>>> nested =
                List.of(List.of(List.of(1), List.of(2, 3)), List.of(List.of()), List.of());
        assertColumn(
                ClickHouseTypes.array(ClickHouseTypes.array(ClickHouseTypes.uint8())),
                nested,
                u64(2) + u64(3) + u64(3) // outer offsets over the 3 rows
                        + u64(1) + u64(3) + u64(3) // inner offsets over the 3 inner arrays
                        + "01 02 03");
        assertColumn(
                ClickHouseTypes.int64Array(),
                List.of(new long[] {1, -1}),
                u64(2) + "0100000000000000 ffffffffffffffff");
    }

    @Test
    void mapIsOffsetsThenAllKeysThenAllValues() {
        Map<String, Long> ab = new LinkedHashMap<>();
        ab.put("a", 1L);
        ab.put("b", 2L);
        assertColumn(
                ClickHouseTypes.map(ClickHouseTypes.string(), ClickHouseTypes.uint64()),
                List.of(ab, Map.of()),
                u64(2) + u64(2) + "0161 0162" + u64(1) + u64(2));
    }

    @Test
    void tupleIsEachElementAsAWholeColumn() {
        ClickHouseType<Object[]> t = ClickHouseTypes.<Object[]>tuple()
                .element(ClickHouseTypes.uint8(), v -> (Integer) v[0])
                .element(ClickHouseTypes.string(), v -> (String) v[1])
                .build();
        assertColumn(t, List.of(new Object[] {1, "x"}, new Object[] {2, "yz"}), "01 02  0178 02797a");
    }

    @Test
    void lowCardinalityIsPrefixThenDictionaryWithTheDefaultFirstThenIndexes() {
        assertTyped(
                b -> b.lowCardinalityString("c", (String v) -> v),
                List.of("x", "y", "x", ""),
                "LowCardinality(String)",
                u64(1) // prefix: keys serialization version
                        + u64(0x600) // UInt8 indexes | HasAdditionalKeys | NeedUpdateDictionary
                        + u64(3) + "00 0178 0179" // keys: the default "", then x, y
                        + u64(4) + "01 02 01 00");
        assertColumn(
                ClickHouseTypes.lowCardinality(ClickHouseTypes.uint32()),
                List.of(7L, 0L, 7L, 9L),
                u64(1) + u64(0x600) + u64(3) + "00000000 07000000 09000000" + u64(4) + "01 00 01 02");
    }

    @Test
    void lowCardinalityOfNullableReservesIndexZeroForNullAsTheServerDoes() {
        // server: SELECT toLowCardinality(arrayJoin([NULL, 'a', NULL, 'bb', 'a'])) AS s FORMAT Native
        RowBinaryEncoder<String> encoder = RowBinaryEncoder.<String>builder()
                .column("s", ClickHouseTypes.lowCardinality(ClickHouseTypes.nullable(ClickHouseTypes.string())), v -> v)
                .build();
        assertThat(nativeHex(encoder, Arrays.asList(null, "a", null, "bb", "a")))
                .isEqualTo(
                        "01050173204c6f7743617264696e616c697479284e756c6c61626c6528537472696e672929010000000000000000"
                                + "0600000000000004000000000000000000016102626205000000000000000002000302");
    }

    @Test
    void lowCardinalityIndexesWidenPast255KeysAsTheServerDoes() {
        RowBinaryEncoder<String> encoder = RowBinaryEncoder.<String>builder()
                .lowCardinalityString("s", v -> v)
                .build();
        // server: 254 distinct values (255 keys with the default) -> flags 0x600 (UInt8); 255 values -> 0x601 (UInt16)
        List<String> values = new ArrayList<>();
        for (int i = 0; i < 255; i++) {
            values.add(Integer.toString(i));
        }
        String headAndPrefix = "01" + "ff01" + str("s") + str("LowCardinality(String)") + u64(1);
        assertThat(nativeHex(encoder, values.subList(0, 254)))
                .startsWith("01" + "fe01" + str("s") + str("LowCardinality(String)") + u64(1) + u64(0x600) + u64(255));
        String wide = nativeHex(encoder, values);
        assertThat(wide).startsWith(headAndPrefix + u64(0x601) + u64(256));
        assertThat(wide).contains(u64(255) + "0100" + "0200" + "0300").endsWith("fe00ff00");
    }

    @Test
    void lowCardinalityInsideArraysHasItsPrefixBeforeTheOffsetsAndNoDataWhenEveryArrayIsEmpty() {
        ClickHouseType<Collection<? extends CharSequence>> type =
                ClickHouseTypes.array(ClickHouseTypes.lowCardinality(ClickHouseTypes.string()));
        assertColumn(
                type,
                List.of(List.of("a", "b"), List.of("a")),
                u64(1) + u64(2) + u64(3) + u64(0x600) + u64(3) + "00 0161 0162" + u64(3) + "01 02 01");
        assertColumn(type, List.of(List.of(), List.of()), u64(1) + u64(0) + u64(0));
    }

    @Test
    void tupleOfLowCardinalitiesHasEveryPrefixBeforeAnyData() {
        ClickHouseType<String[]> t = ClickHouseTypes.<String[]>tuple()
                .element(ClickHouseTypes.lowCardinality(ClickHouseTypes.string()), v -> v[0])
                .element(ClickHouseTypes.lowCardinality(ClickHouseTypes.string()), v -> v[1])
                .build();
        assertColumn(
                t,
                List.<String[]>of(new String[] {"x", "y"}),
                u64(1) + u64(1) // both prefixes
                        + u64(0x600) + u64(2) + "00 0178" + u64(1) + "01" // first element
                        + u64(0x600) + u64(2) + "00 0179" + u64(1) + "01"); // second element
    }

    record Mixed(int a, String s, Integer n, List<Integer> arr, long cents, String lc) {}

    @Test
    void severalColumnsMatchTheServersOwnBlock() {
        // server: SELECT toUInt8(1) AS a, 'ab' AS s, toNullable(toInt32(5)) AS n, [1,2,3] AS arr,
        //         toDecimal64(1.5, 2) AS d, toLowCardinality('x') AS lc FORMAT Native
        RowBinaryEncoder<Mixed> encoder = RowBinaryEncoder.<Mixed>builder()
                .uint8("a", Mixed::a)
                .string("s", Mixed::s)
                .nullable("n", ClickHouseTypes.int32(), Mixed::n)
                .array("arr", ClickHouseTypes.uint8(), Mixed::arr)
                .decimal64("d", 2, Mixed::cents)
                .lowCardinalityString("lc", Mixed::lc)
                .build();
        assertThat(nativeHex(encoder, List.of(new Mixed(1, "ab", 5, List.of(1, 2, 3), 150, "x"))))
                .isEqualTo(
                        "060101610555496e743801017306537472696e67026162016e0f4e756c6c61626c6528496e743332290005000000"
                                + "036172720c41727261792855496e743829030000000000000001020301640e446563696d616c2831382c2032"
                                + "299600000000000000026c63164c6f7743617264696e616c69747928537472696e672901000000000000000006"
                                + "0000000000000200000000000000000178010000000000000001");
    }

    record Scalars(Object[] tuple, UUID u, byte[] f, int e, int d, long dt) {}

    @Test
    void tupleUuidFixedStringEnumDateAndDateTimeMatchTheServersOwnBlock() {
        // server: SELECT tuple(1, 'x') AS t, toUUID('01234567-89ab-cdef-0123-456789abcdef') AS u,
        //         toFixedString('ab', 3) AS f, CAST(1 AS Enum8('a' = 1)) AS e, toDate('1970-01-02') AS d,
        //         toDateTime(1) AS dt FORMAT Native
        RowBinaryEncoder<Scalars> encoder = RowBinaryEncoder.<Scalars>builder()
                .column(
                        "t",
                        ClickHouseTypes.<Object[]>tuple()
                                .element(ClickHouseTypes.uint8(), v -> (Integer) v[0])
                                .element(ClickHouseTypes.string(), v -> (String) v[1])
                                .build(),
                        Scalars::tuple)
                .uuid("u", Scalars::u)
                .fixedString("f", 3, Scalars::f)
                .enum8("e", Map.of("a", 1), Scalars::e)
                .date("d", Scalars::d)
                .dateTime("dt", Scalars::dt)
                .build();
        Scalars row = new Scalars(
                new Object[] {1, "x"},
                UUID.fromString("01234567-89ab-cdef-0123-456789abcdef"),
                "ab".getBytes(StandardCharsets.UTF_8),
                1,
                1,
                1);
        assertThat(nativeHex(encoder, List.of(row)))
                .isEqualTo(
                        "06010174145475706c652855496e74382c20537472696e672901017801750455554944efcdab8967452301efcdab89"
                                + "6745230101660e4669786564537472696e6728332961620001650e456e756d3828276127203d203129010164"
                                + "04446174650100026474084461746554696d6501000000");
    }

    @Test
    void zeroRowsAreTheHeaderWithoutColumnData() {
        RowBinaryEncoder<String> encoder = RowBinaryEncoder.<String>builder()
                .lowCardinalityString("s", v -> v)
                .build();
        assertThat(nativeHex(encoder, List.of())).isEqualTo("0100" + str("s") + str("LowCardinality(String)"));
    }

    @Test
    void theSameRowsGiveTheSameBlockWhateverCameBefore() {
        record R(String lc, List<String> tags, String n) {}
        RowBinaryEncoder<R> encoder = RowBinaryEncoder.<R>builder()
                .lowCardinalityString("lc", R::lc)
                .array("tags", ClickHouseTypes.lowCardinality(ClickHouseTypes.string()), R::tags)
                .nullableString("n", R::n)
                .build();
        List<R> a = List.of(new R("x", List.of("p"), null), new R("y", List.of(), "z"));
        List<R> b = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            b.add(new R("v" + (i % 300), List.of("t" + i, "u"), i % 2 == 0 ? null : "n" + i));
        }
        NativeBlockEncoder nat = NativeBlockEncoder.of(encoder.columns());
        byte[] ra = rowBinary(encoder, a);
        byte[] rb = rowBinary(encoder, b);
        int n = nat.encode(ra, ra.length, a.size());
        byte[] first = Arrays.copyOf(nat.block(), n);
        nat.encode(rb, rb.length, b.size());
        n = nat.encode(ra, ra.length, a.size());
        byte[] again = Arrays.copyOf(nat.block(), n);
        assertThat(again).isEqualTo(first);
        assertThat(HexFormat.of().formatHex(first)).isEqualTo(nativeHex(encoder, a));
    }

    @Test
    void bytesThatAreNotRowsOfTheColumnsNameTheRowAndColumn() {
        RowBinaryEncoder<String> encoder = RowBinaryEncoder.<String>builder()
                .uint32("id", s -> 1)
                .nullableString("name", s -> s)
                .build();
        byte[] rows = rowBinary(encoder, List.of("a", "b"));
        NativeBlockEncoder nat = NativeBlockEncoder.of(encoder.columns());
        assertThatThrownBy(() -> nat.encode(rows, rows.length - 1, 2))
                .isInstanceOf(RowBinaryMismatchException.class)
                .hasMessageContaining("row 1 of 2 (at byte 7 of 13), column 'name' (Nullable(String))")
                .hasMessageContaining("length 1 exceeds the 0 bytes left in the batch")
                .satisfies(e ->
                        assertThat(((RowBinaryMismatchException) e).column()).isEqualTo("name"));
        assertThatThrownBy(() -> nat.encode(rows, rows.length, 1))
                .isInstanceOf(RowBinaryMismatchException.class)
                .hasMessageContaining("7 bytes after its 1 rows");
        byte[] badFlag = rows.clone();
        badFlag[4] = 7;
        assertThatThrownBy(() -> nat.encode(badFlag, badFlag.length, 2))
                .isInstanceOf(RowBinaryMismatchException.class)
                .hasMessageContaining("row 0 of 2 (at byte 0 of 14), column 'name' (Nullable(String)): Nullable flag "
                        + "must be 0 or 1, got 7");
        byte[] longString = rows.clone();
        longString[5] = 100;
        assertThatThrownBy(() -> nat.encode(longString, longString.length, 2))
                .isInstanceOf(RowBinaryMismatchException.class)
                .hasMessageContaining("column 'name'")
                .hasMessageContaining("length 100 exceeds");
    }

    @Test
    void aLengthOfTwoToTheSixtyThirdOrMoreIsAMismatchNotAnEmptyValue() {
        // A length no batch holds whose top bit is set: read as a signed long it is negative, and was
        // taken for 0 (the Native block then said the array was empty). ClickHouse reads 9 bytes at
        // most, so the 10-byte LEB128 would not even parse there.
        for (String type : List.of("Array(Int32)", "String")) {
            NativeBlockEncoder nat = NativeBlockEncoder.of(List.of(new ClickHouseColumn("xs", type)));
            for (long length : new long[] {Long.MIN_VALUE, -1L}) {
                byte[] rows = new RowBuffer(16).writeVarUInt(length).toByteArray();
                assertThatThrownBy(() -> nat.encode(rows, rows.length, 1))
                        .as("%s of length %s", type, Long.toUnsignedString(length))
                        .isInstanceOf(RowBinaryMismatchException.class)
                        .hasMessageContaining("column 'xs' (" + type + ")")
                        .hasMessageContaining("length " + Long.toUnsignedString(length) + " exceeds the 0 bytes left");
            }
            // Bits past the 64th were dropped: this one read as 0.
            byte[] overflow = {-128, -128, -128, -128, -128, -128, -128, -128, -128, 2};
            assertThatThrownBy(() -> nat.encode(overflow, overflow.length, 1))
                    .isInstanceOf(RowBinaryMismatchException.class)
                    .hasMessageContaining("VarUInt overflows 64 bits");
        }
    }

    @Test
    void aRowCutShortInsideARunOfFixedWidthColumnsNamesTheColumnItEndsIn() {
        RowBinaryEncoder<String> encoder = RowBinaryEncoder.<String>builder()
                .string("name", s -> s)
                .uint32("id", s -> 7)
                .uint64("total", s -> 9)
                .build();
        byte[] rows = rowBinary(encoder, List.of("ab", "c")); // 3 + 12 bytes, then 2 + 12 bytes
        NativeBlockEncoder nat = NativeBlockEncoder.of(encoder.columns());
        assertThatThrownBy(() -> nat.encode(rows, rows.length - 3, 2))
                .isInstanceOf(RowBinaryMismatchException.class)
                .hasMessageContaining("row 1 of 2 (at byte 15 of 26), column 'total' (UInt64): needs 8 more bytes but "
                        + "the batch ends");
        assertThatThrownBy(() -> nat.encode(rows, 17, 2))
                .isInstanceOf(RowBinaryMismatchException.class)
                .hasMessageContaining("row 1 of 2 (at byte 15 of 17), column 'id' (UInt32)");
    }

    @Test
    void typesWithoutANativeLayoutAreRefusedNamingTheColumn() {
        ClickHouseType<Long> aggregate = new ClickHouseType<>() {
            @Override
            public String name() {
                return "AggregateFunction(sum, UInt64)";
            }

            @Override
            public void write(Long value, RowBuffer out) {
                out.writeLongLE(value);
            }
        };
        RowBinaryEncoder<Long> encoder = RowBinaryEncoder.<Long>builder()
                .uint64("id", v -> v)
                .column("total", aggregate, v -> v)
                .build();
        assertThatThrownBy(() -> NativeBlockEncoder.of(encoder.columns()))
                .isInstanceOf(UnsupportedNativeTypeException.class)
                .hasMessageContaining("column 'total' (AggregateFunction(sum, UInt64)) cannot be sent in the Native "
                        + "insert format")
                .hasMessageContaining("RowBinary")
                .satisfies(e -> {
                    assertThat(((UnsupportedNativeTypeException) e).column()).isEqualTo("total");
                    assertThat(((UnsupportedNativeTypeException) e).type()).isEqualTo("AggregateFunction(sum, UInt64)");
                });
        assertThatThrownBy(() -> NativeBlockEncoder.of(List.of(new ClickHouseColumn("x", "Nullable(Array(UInt8))"))))
                .isInstanceOf(UnsupportedNativeTypeException.class)
                .hasMessageContaining("column 'x'")
                .hasMessageContaining("Nullable of a composite type");
        assertThatThrownBy(() ->
                        NativeBlockEncoder.of(List.of(new ClickHouseColumn("y", "LowCardinality(Array(String))"))))
                .isInstanceOf(UnsupportedNativeTypeException.class)
                .hasMessageContaining("column 'y'");
        assertThatThrownBy(() -> NativeBlockEncoder.of(List.of()))
                .isInstanceOf(UnsupportedNativeTypeException.class)
                .hasMessageContaining("needs the sink's columns");
    }

    @Test
    void typeNamesAsServersSpellThemAreUnderstood() {
        List<ClickHouseColumn> columns = List.of(
                new ClickHouseColumn("a", "DateTime('Europe/Berlin')"),
                new ClickHouseColumn("b", "DateTime64(6, 'UTC')"),
                new ClickHouseColumn("c", "Decimal64(4)"),
                new ClickHouseColumn("d", "Enum8('a,b' = 1, 'c\\'(' = 2)"),
                new ClickHouseColumn("e", "Tuple(id UInt64, name LowCardinality(Nullable(String)))"),
                new ClickHouseColumn("f", "Map(String, Array(Nullable(Decimal(38, 10))))"));
        NativeBlockEncoder nat = NativeBlockEncoder.of(columns);
        RowBuffer row = new RowBuffer(64);
        row.writeIntLE(1).writeLongLE(2).writeLongLE(3).writeByte(1); // a, b, c, d
        row.writeLongLE(4).writeByte(0).writeString("n"); // e
        row.writeVarUInt(1).writeString("k").writeVarUInt(1).writeByte(1); // f: {k: [NULL]}
        int n = nat.encode(row.array(), row.length(), 1);
        String hex = HexFormat.of().formatHex(Arrays.copyOf(nat.block(), n));
        // f: the map's offsets, its key "k", the array's offsets, the null map, a zero Decimal128 for the NULL
        assertThat(hex)
                .endsWith(str("f") + str("Map(String, Array(Nullable(Decimal(38, 10))))") + u64(1) + "016b" + u64(1)
                        + "01" + rep("00", 16));
        assertThat(hex)
                .contains(str("e") + str("Tuple(id UInt64, name LowCardinality(Nullable(String)))") + u64(1) + u64(4)
                        + u64(0x600) + u64(3) + "00 00 016e".replace(" ", "") + u64(1) + "02");
    }
}
