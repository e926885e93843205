package dev.etl.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.sink.RowBuffer;
import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Every RowBinary encoding byte for byte. Expected bytes are computed by hand from the format
 * specification (little-endian integers, LEB128 lengths, UUID halves, IPv4 LE / IPv6 network order,
 * Decimal widths, Nullable prefix), not by running the encoder.
 */
class RowBinaryEncoderTest {

    /** A one-column row: the encoder is applied to {@code value}. */
    private static <V> String hex(Consumer<RowBinaryEncoder.Builder<V>> column, V value) {
        RowBinaryEncoder.Builder<V> b = RowBinaryEncoder.builder();
        column.accept(b);
        RowBuffer out = new RowBuffer(16);
        b.build().encode(value, null, out);
        return HexFormat.of().formatHex(out.toByteArray());
    }

    private static <V> String hex(ClickHouseType<V> type, V value) {
        RowBuffer out = new RowBuffer(16);
        type.write(value, out);
        return HexFormat.of().formatHex(out.toByteArray());
    }

    private static String rep(String hexByte, int n) {
        return hexByte.repeat(n);
    }

    @Test
    void unsignedIntegersAreLittleEndianOfTheirWidth() {
        assertThat(hex(b -> b.uint8("c", (Integer v) -> v), 200)).isEqualTo("c8");
        assertThat(hex(b -> b.uint16("c", (Integer v) -> v), 0x1234)).isEqualTo("3412");
        assertThat(hex(b -> b.uint32("c", (Long v) -> v), 4_294_967_295L)).isEqualTo("ffffffff");
        assertThat(hex(b -> b.uint64("c", (Long v) -> v), 0x0102030405060708L)).isEqualTo("0807060504030201");
        assertThat(hex(b -> b.uint64Bits("c", (Long v) -> v), -1L)).isEqualTo(rep("ff", 8));
        assertThat(hex(b -> b.uint128("c", (BigInteger v) -> v), BigInteger.ONE))
                .isEqualTo("01" + rep("00", 15));
        assertThat(hex(
                        b -> b.uint128("c", (BigInteger v) -> v),
                        BigInteger.TWO.pow(128).subtract(BigInteger.ONE)))
                .isEqualTo(rep("ff", 16));
        assertThat(hex(b -> b.uint256("c", (BigInteger v) -> v), BigInteger.TWO.pow(255)))
                .isEqualTo(rep("00", 31) + "80");
    }

    @Test
    void signedIntegersAreTwosComplementLittleEndian() {
        assertThat(hex(b -> b.int8("c", (Integer v) -> v), -1)).isEqualTo("ff");
        assertThat(hex(b -> b.int16("c", (Integer v) -> v), -2)).isEqualTo("feff");
        assertThat(hex(b -> b.int32("c", (Integer v) -> v), -2)).isEqualTo("feffffff");
        assertThat(hex(b -> b.int64("c", (Long v) -> v), 1L)).isEqualTo("0100000000000000");
        assertThat(hex(b -> b.int128("c", (BigInteger v) -> v), BigInteger.valueOf(-2)))
                .isEqualTo("fe" + rep("ff", 15));
        assertThat(hex(b -> b.int128("c", (BigInteger v) -> v), BigInteger.valueOf(0x0102)))
                .isEqualTo("0201" + rep("00", 14));
        assertThat(hex(b -> b.int256("c", (BigInteger v) -> v), BigInteger.valueOf(-1)))
                .isEqualTo(rep("ff", 32));
    }

    @Test
    void valuesOutOfRangeNameTheColumn() {
        assertThatThrownBy(() -> hex(b -> b.uint8("qty", (Integer v) -> v), 300))
                .isInstanceOf(ColumnEncodeException.class)
                .hasMessageContaining("column 'qty' (UInt8)")
                .hasMessageContaining("300");
        assertThatThrownBy(() -> hex(b -> b.uint8("qty", (Integer v) -> v), -1)).hasMessageContaining("'qty'");
        assertThatThrownBy(() -> hex(b -> b.uint16("c", (Integer v) -> v), 65_536))
                .hasMessageContaining("UInt16");
        assertThatThrownBy(() -> hex(b -> b.uint32("c", (Long v) -> v), 4_294_967_296L))
                .hasMessageContaining("UInt32");
        assertThatThrownBy(() -> hex(b -> b.uint64("id", (Long v) -> v), -5L))
                .isInstanceOf(ColumnEncodeException.class)
                .hasMessageContaining("column 'id' (UInt64)");
        assertThatThrownBy(() -> hex(b -> b.uint128("c", (BigInteger v) -> v), BigInteger.TWO.pow(128)))
                .hasMessageContaining("UInt128");
        assertThatThrownBy(() -> hex(b -> b.uint128("c", (BigInteger v) -> v), BigInteger.valueOf(-1)))
                .hasMessageContaining("UInt128");
        assertThatThrownBy(() -> hex(b -> b.int8("c", (Integer v) -> v), 128)).hasMessageContaining("Int8");
        assertThatThrownBy(() -> hex(b -> b.int16("c", (Integer v) -> v), -32_769))
                .hasMessageContaining("Int16");
        assertThatThrownBy(() -> hex(b -> b.int128("c", (BigInteger v) -> v), BigInteger.TWO.pow(127)))
                .hasMessageContaining("Int128");
        assertThatThrownBy(() -> hex(b -> b.date("d", (Integer v) -> v), 65_536))
                .hasMessageContaining("'d' (Date)");
        assertThatThrownBy(() -> hex(b -> b.date32("d", (Integer v) -> v), -25_568))
                .hasMessageContaining("Date32");
        assertThatThrownBy(() -> hex(b -> b.dateTime("t", (Long v) -> v), -1L)).hasMessageContaining("DateTime");
        assertThatThrownBy(() -> hex(b -> b.string("name", (String v) -> v), (String) null))
                .isInstanceOf(ColumnEncodeException.class)
                .hasMessageContaining("column 'name' (String)")
                .hasMessageContaining("null");
    }

    @Test
    void floatsAndBool() {
        assertThat(hex(b -> b.float32("c", (Double v) -> v), 1.0)).isEqualTo("0000803f");
        assertThat(hex(b -> b.float64("c", (Double v) -> v), -2.5)).isEqualTo("00000000000004c0");
        assertThat(hex(b -> b.bool("c", (Boolean v) -> v), true)).isEqualTo("01");
        assertThat(hex(b -> b.bool("c", (Boolean v) -> v), false)).isEqualTo("00");
    }

    @Test
    void stringsAreLeb128LengthThenUtf8() {
        assertThat(hex(b -> b.string("c", (String v) -> v), "")).isEqualTo("00");
        assertThat(hex(b -> b.string("c", (String v) -> v), "héllo")).isEqualTo("0668c3a96c6c6f");
        // 200 bytes: LEB128 0xc8 0x01
        assertThat(hex(b -> b.string("c", (String v) -> v), "a".repeat(200))).isEqualTo("c801" + rep("61", 200));
        assertThat(hex(b -> b.stringBytes("c", (byte[] v) -> v), new byte[] {0, (byte) 0xff}))
                .isEqualTo("0200ff");
        assertThat(hex(b -> b.fixedString("c", 4, (byte[] v) -> v), new byte[] {'a', 'b'}))
                .isEqualTo("61620000");
        assertThatThrownBy(() -> hex(b -> b.fixedString("code", 4, (byte[] v) -> v), new byte[5]))
                .hasMessageContaining("column 'code' (FixedString(4))")
                .hasMessageContaining("5 bytes");
    }

    @Test
    void datesAndTimes() {
        // 2022-01-08 is day 19000 = 0x4a38
        assertThat(hex(b -> b.date("c", (Integer v) -> v), 19_000)).isEqualTo("384a");
        assertThat(hex(ClickHouseTypes.date(), LocalDate.of(2022, 1, 8))).isEqualTo("384a");
        assertThat(hex(b -> b.date32("c", (Integer v) -> v), -1)).isEqualTo("ffffffff");
        assertThat(hex(ClickHouseTypes.date32(), LocalDate.of(1969, 12, 31))).isEqualTo("ffffffff");
        // 1700000000 = 0x6553f100
        assertThat(hex(b -> b.dateTime("c", (Long v) -> v), 1_700_000_000L)).isEqualTo("00f15365");
        assertThat(hex(ClickHouseTypes.dateTime(), Instant.ofEpochSecond(1_700_000_000L)))
                .isEqualTo("00f15365");
        // 1700000000123 ms = 0x18bcfe5687b
        assertThat(hex(b -> b.dateTime64("c", 3, (Long v) -> v), 1_700_000_000_123L))
                .isEqualTo("7b68e5cf8b010000");
        // 1.123456789 s at precision 6 = 1123456 ticks = 0x112480
        assertThat(hex(b -> b.dateTime64Instant("c", 6, (Instant v) -> v), Instant.ofEpochSecond(1, 123_456_789)))
                .isEqualTo("8024110000000000");
        assertThat(hex(ClickHouseTypes.dateTime64(0), Instant.ofEpochSecond(-1, 500_000_000)))
                .isEqualTo(rep("ff", 8));
        assertThatThrownBy(() -> ClickHouseTypes.dateTime64(10)).hasMessageContaining("precision");
    }

    @Test
    void dateTime64TakesEveryInstantWhoseTicksAreAnInt64() {
        // -1.75 s at precision 3 = -1750 ticks: a fraction before the epoch counts forward from its second
        assertThat(hex(ClickHouseTypes.dateTime64(3), Instant.ofEpochSecond(-2, 250_000_000)))
                .isEqualTo("2af9ffffffffffff");
        // DateTime64(9)'s first instant is Long.MIN_VALUE ns: its second times 10^9 alone is below Long.MIN_VALUE
        Instant first = Instant.ofEpochSecond(
                Math.floorDiv(Long.MIN_VALUE, 1_000_000_000L), Math.floorMod(Long.MIN_VALUE, 1_000_000_000L));
        assertThat(first).isEqualTo(Instant.parse("1677-09-21T00:12:43.145224192Z"));
        assertThat(hex(ClickHouseTypes.dateTime64(9), first)).isEqualTo("0000000000000080");
        assertThat(hex(ClickHouseTypes.dateTime64(9), Instant.parse("2262-04-11T23:47:16.854775807Z")))
                .isEqualTo("ffffffffffffff7f");
        assertThatThrownBy(() -> hex(ClickHouseTypes.dateTime64(9), first.minusNanos(1)))
                .hasMessageContaining("overflows DateTime64(9)");
        assertThatThrownBy(() -> hex(ClickHouseTypes.dateTime64(9), Instant.parse("2262-04-11T23:47:16.854775808Z")))
                .hasMessageContaining("overflows DateTime64(9)");
    }

    @Test
    void uuidIsTwoLittleEndianHalvesHighFirst() {
        UUID u = UUID.fromString("61f0c404-5cb3-11e7-907b-a6006ad3dba0");
        assertThat(hex(b -> b.uuid("c", (UUID v) -> v), u)).isEqualTo("e711b35c04c4f061" + "a0dbd36a00a67b90");
    }

    @Test
    void decimalsAreScaledIntegersOfTheirWidth() {
        // 123.45 at scale 2 = 12345 = 0x3039
        assertThat(hex(b -> b.decimal32("c", 2, (Long v) -> v), 12_345L)).isEqualTo("39300000");
        assertThat(hex(b -> b.decimal64("c", 2, (Long v) -> v), -1L)).isEqualTo(rep("ff", 8));
        assertThat(hex(b -> b.decimal128("c", 4, (Long v) -> v), 1L)).isEqualTo("01" + rep("00", 15));
        assertThat(hex(b -> b.decimal128("c", 4, (Long v) -> v), -1L)).isEqualTo(rep("ff", 16));
        assertThat(hex(b -> b.decimal256("c", 0, (Long v) -> v), -2L)).isEqualTo("fe" + rep("ff", 31));
        assertThat(hex(b -> b.decimal("c", 10, 2, (BigDecimal v) -> v), new BigDecimal("123.45")))
                .isEqualTo("3930000000000000");
        assertThat(hex(b -> b.decimal("c", 9, 3, (BigDecimal v) -> v), new BigDecimal("1.5")))
                .isEqualTo("dc050000");
        // -1.00 at scale 2 = -100 = 0x9c, sign-extended to 32 bytes
        assertThat(hex(b -> b.decimal("c", 40, 2, (BigDecimal v) -> v), new BigDecimal("-1.00")))
                .isEqualTo("9c" + rep("ff", 31));
        assertThat(hex(b -> b.decimal("c", 20, 0, (BigDecimal v) -> v), new BigDecimal("1")))
                .isEqualTo("01" + rep("00", 15));

        RowBinaryEncoder<Long> enc =
                RowBinaryEncoder.<Long>builder().decimal64("amount", 2, v -> v).build();
        assertThat(enc.columns()).containsExactly(new ClickHouseColumn("amount", "Decimal(18, 2)"));
        assertThatThrownBy(() -> hex(b -> b.decimal32("amount", 2, (Long v) -> v), 1_000_000_000L))
                .hasMessageContaining("column 'amount' (Decimal(9, 2))")
                .hasMessageContaining("9 digits");
        assertThatThrownBy(() -> hex(b -> b.decimal("amount", 10, 2, (BigDecimal v) -> v), new BigDecimal("1.234")))
                .hasMessageContaining("more than 2 decimal places");
        assertThatThrownBy(() -> hex(b -> b.decimal("amount", 3, 1, (BigDecimal v) -> v), new BigDecimal("100.0")))
                .hasMessageContaining("3 significant digits");
        assertThatThrownBy(() -> RowBinaryEncoder.<Long>builder().decimal32("a", 10, v -> v))
                .hasMessageContaining("scale");
    }

    @Test
    void enumsAreSignedCodesAndUnknownCodesAreRejected() {
        Map<String, Integer> values = new LinkedHashMap<>();
        values.put("a", 1);
        values.put("b", -2);
        RowBinaryEncoder<Integer> e8 = RowBinaryEncoder.<Integer>builder()
                .enum8("status", values, v -> v)
                .build();
        assertThat(e8.columns().get(0).type()).isEqualTo("Enum8('a' = 1, 'b' = -2)");
        assertThat(hex(b -> b.enum8("status", values, (Integer v) -> v), -2)).isEqualTo("fe");
        assertThatThrownBy(() -> hex(b -> b.enum8("status", values, (Integer v) -> v), 3))
                .hasMessageContaining("column 'status'")
                .hasMessageContaining("code 3");
        assertThat(hex(b -> b.enum16("c", Map.of("x", 1000), (Integer v) -> v), 1000))
                .isEqualTo("e803");
        assertThat(hex(ClickHouseTypes.enum16(Map.of("x", -1)), -1)).isEqualTo("ffff");
        assertThatThrownBy(() -> ClickHouseTypes.enum8(Map.of("x", 200))).hasMessageContaining("out of");
    }

    @Test
    void ipv4IsLittleEndianUInt32AndIpv6IsNetworkOrder() {
        assertThat(hex(b -> b.ipv4("c", (Integer v) -> v), 0x7F000001)).isEqualTo("0100007f");
        assertThat(hex(b -> b.ipv4("c", (Integer v) -> v), 0xC0A80102)).isEqualTo("0201a8c0");
        byte[] v6 = new byte[16];
        v6[0] = 0x20;
        v6[1] = 0x01;
        v6[2] = 0x0d;
        v6[3] = (byte) 0xb8;
        v6[15] = 1;
        assertThat(hex(b -> b.ipv6("c", (byte[] v) -> v), v6)).isEqualTo("20010db8" + rep("00", 11) + "01");
        assertThatThrownBy(() -> hex(b -> b.ipv6("addr", (byte[] v) -> v), new byte[4]))
                .hasMessageContaining("column 'addr' (IPv6)")
                .hasMessageContaining("16 bytes");
    }

    @Test
    void nullableIsAFlagBytePrefix() {
        assertThat(hex(b -> b.nullableString("c", (String v) -> v), (String) null))
                .isEqualTo("01");
        assertThat(hex(b -> b.nullableString("c", (String v) -> v), "a")).isEqualTo("000161");
        assertThat(hex(b -> b.nullable("c", ClickHouseTypes.uint32(), (Long v) -> v), (Long) null))
                .isEqualTo("01");
        assertThat(hex(b -> b.nullable("c", ClickHouseTypes.uint32(), (Long v) -> v), 5L))
                .isEqualTo("0005000000");
        assertThat(ClickHouseTypes.nullable(ClickHouseTypes.uint32()).name()).isEqualTo("Nullable(UInt32)");
    }

    @Test
    void arraysAreLeb128CountThenElements() {
        assertThat(hex(b -> b.array("c", ClickHouseTypes.string(), (List<String> v) -> v), List.of("a", "bc")))
                .isEqualTo("02016102" + "6263");
        assertThat(hex(b -> b.array("c", ClickHouseTypes.string(), (List<String> v) -> v), List.<String>of()))
                .isEqualTo("00");
        assertThat(hex(ClickHouseTypes.int64Array(), new long[] {1, -1}))
                .isEqualTo("02" + "0100000000000000" + rep("ff", 8));
        assertThat(hex(ClickHouseTypes.int32Array(), new int[] {2})).isEqualTo("0102000000");
        assertThat(hex(ClickHouseTypes.float64Array(), new double[] {1.0})).isEqualTo("01000000000000f03f");
        // Array(Nullable(Int32)) [NULL, 1]
        assertThat(hex(
                        ClickHouseTypes.array(ClickHouseTypes.nullable(ClickHouseTypes.int32())),
                        Arrays.asList(null, 1)))
                .isEqualTo("02" + "01" + "00" + "01000000");
        assertThat(ClickHouseTypes.array(ClickHouseTypes.nullable(ClickHouseTypes.int32()))
                        .name())
                .isEqualTo("Array(Nullable(Int32))");
        // 130 elements: LEB128 0x82 0x01
        assertThat(hex(ClickHouseTypes.array(ClickHouseTypes.uint8()), java.util.Collections.nCopies(130, 7)))
                .isEqualTo("8201" + rep("07", 130));
        assertThatThrownBy(() ->
                        hex(b -> b.array("tags", ClickHouseTypes.uint8(), (List<Integer> v) -> v), List.of(1, 256)))
                .hasMessageContaining("column 'tags' (Array(UInt8))")
                .hasMessageContaining("256");
    }

    @Test
    void mapsAreCountThenKeyValuePairs() {
        Map<String, Integer> m = new LinkedHashMap<>();
        m.put("a", 1);
        m.put("b", 2);
        ClickHouseType<Map<? extends CharSequence, ? extends Integer>> type =
                ClickHouseTypes.map(ClickHouseTypes.string(), ClickHouseTypes.uint8());
        assertThat(type.name()).isEqualTo("Map(String, UInt8)");
        assertThat(hex(
                        b -> b.map(
                                "c", ClickHouseTypes.string(), ClickHouseTypes.uint8(), (Map<String, Integer> v) -> v),
                        m))
                .isEqualTo("02" + "016101" + "016202");
        assertThat(hex(type, Map.of())).isEqualTo("00");
    }

    record Point(int x, String label) {}

    @Test
    void tuplesAreElementsBackToBack() {
        ClickHouseType<Point> tuple = ClickHouseTypes.<Point>tuple()
                .element(ClickHouseTypes.uint8(), Point::x)
                .element(ClickHouseTypes.string(), Point::label)
                .build();
        assertThat(tuple.name()).isEqualTo("Tuple(UInt8, String)");
        assertThat(hex(tuple, new Point(7, "hi"))).isEqualTo("07" + "026869");
        assertThat(hex(ClickHouseTypes.array(tuple), List.of(new Point(1, ""), new Point(2, "a"))))
                .isEqualTo("02" + "0100" + "020161");
    }

    @Test
    void lowCardinalityIsTheInnerEncoding() {
        assertThat(hex(b -> b.lowCardinalityString("c", (String v) -> v), "ab")).isEqualTo("026162");
        ClickHouseType<CharSequence> lcNullable =
                ClickHouseTypes.lowCardinality(ClickHouseTypes.nullable(ClickHouseTypes.string()));
        assertThat(lcNullable.name()).isEqualTo("LowCardinality(Nullable(String))");
        assertThat(hex(lcNullable, null)).isEqualTo("01");
        assertThat(hex(lcNullable, "x")).isEqualTo("000178");
    }

    record Order(long id, String customer, long amountCents, long tsMillis, String coupon, List<String> tags) {}

    @Test
    void builderListsColumnsInWireOrderAndWritesRowsBackToBack() {
        RowBinaryEncoder<Order> enc = RowBinaryEncoder.<Order>builder()
                .uint64("id", Order::id)
                .string("customer", Order::customer)
                .decimal64("amount", 2, Order::amountCents)
                .dateTime64("ts", 3, Order::tsMillis)
                .nullableString("coupon", Order::coupon)
                .array("tags", ClickHouseTypes.string(), Order::tags)
                .build();
        assertThat(enc.columns())
                .extracting(ClickHouseColumn::toString)
                .containsExactly(
                        "id UInt64",
                        "customer String",
                        "amount Decimal(18, 2)",
                        "ts DateTime64(3)",
                        "coupon Nullable(String)",
                        "tags Array(String)");
        RowBuffer out = new RowBuffer(8);
        enc.encode(new Order(1, "x", 250, 1000, null, List.of("t")), null, out);
        assertThat(HexFormat.of().formatHex(out.toByteArray()))
                .isEqualTo(
                        "0100000000000000" + "0178" + "fa00000000000000" + "e803000000000000" + "01" + "01" + "0174");
        assertThatThrownBy(() -> RowBinaryEncoder.<Order>builder()
                        .uint64("id", Order::id)
                        .int64("id", Order::id))
                .hasMessageContaining("declared twice");
        assertThatThrownBy(() -> RowBinaryEncoder.<Order>builder().build()).hasMessageContaining("at least one column");
    }

    @Test
    void primitiveAndStringColumnsAllocateNothingPerRow() {
        RowBinaryEncoder<Order> enc = RowBinaryEncoder.<Order>builder()
                .uint64("id", Order::id)
                .string("customer", Order::customer)
                .decimal64("amount", 2, Order::amountCents)
                .dateTime64("ts", 3, Order::tsMillis)
                .nullableString("coupon", Order::coupon)
                .build();
        Order order = new Order(42, "customer-é", 1999, 1_700_000_000_000L, "SPRING", List.of());
        RowBuffer out = new RowBuffer(1 << 20);
        for (int i = 0; i < 200_000; i++) { // warm up and let the JIT settle
            if (out.length() > (1 << 19)) {
                out.reset();
            }
            enc.encode(order, null, out);
        }
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        out.reset();
        long before = threads.getThreadAllocatedBytes(tid);
        for (int i = 0; i < 10_000; i++) {
            enc.encode(order, null, out);
        }
        long allocated = threads.getThreadAllocatedBytes(tid) - before;
        assertThat(allocated).as("bytes allocated for 10k rows").isLessThan(10_000);
    }
}
