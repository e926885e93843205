package dev.etl.avro.clickhouse;

import static dev.etl.avro.clickhouse.AvroRowTranscoderTest.transcode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.avro.AvroWireFormat;
import dev.etl.clickhouse.ColumnEncodeException;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

/**
 * Map, Tuple, IPv4, IPv6, Variant and union-branch columns, byte for byte against the RowBinary layouts as
 * ClickHouse documents them: https://clickhouse.com/docs/en/interfaces/formats#rowbinary (Map: "LEB128 count,
 * then key, value pairs"; Tuple: "the elements one after another"; IPv4: "a UInt32, little-endian"; IPv6:
 * "16 bytes in network (big-endian) order"; Variant: "a UInt8 discriminator, then the value; 255 is NULL") and
 * the type pages https://clickhouse.com/docs/en/sql-reference/data-types/map, …/tuple, …/ipv4, …/ipv6 and
 * …/variant (the discriminator is the index of the type among the Variant's types sorted by name).
 */
class MoreColumnTypesTranscodedTest {

    private static String hex(AvroRowMapping mapping, Schema writer, GenericRecord r) {
        byte[] row = transcode(AvroRowTranscoder.raw(mapping, writer).build(), AvroWireFormat.raw(writer, r));
        return HexFormat.of().formatHex(row);
    }

    private static Schema parse(String json) {
        return new Schema.Parser().parse(json);
    }

    // ---- Map

    static final Schema MAPS = parse("""
            {"type": "record", "name": "M", "fields": [
              {"name": "counts", "type": {"type": "map", "values": ["null", "long"]}},
              {"name": "tags", "type": {"type": "map", "values": {"type": "array", "items": "int"}}},
              {"name": "nested", "type": {"type": "map", "values": {"type": "map", "values": "string"}}}
            ]}""");

    @Test
    void anAvroMapIsACountThenKeyValuePairs() {
        AvroRowMapping mapping = AvroRowMapping.builder(MAPS)
                .column("counts", "Map(String, Nullable(Int64))")
                .column("tags", "Map(LowCardinality(String), Array(Int32))")
                .column("nested", "Map(FixedString(2), Map(String, String))")
                .build();
        GenericData.Record r = new GenericData.Record(MAPS);
        Map<String, Object> counts = new LinkedHashMap<>();
        counts.put("a", 1L);
        counts.put("b", null);
        r.put("counts", counts);
        r.put("tags", Map.of("x", List.of(7, -1)));
        r.put("nested", Map.of("k", Map.of("p", "q")));
        assertThat(hex(mapping, MAPS, r))
                .isEqualTo(
                        "02" // 2 entries
                                + "0161" + "00" + "0100000000000000" // "a" → not null, 1
                                + "0162" + "01" // "b" → NULL
                                + "01" + "0178" + "02" + "07000000" + "ffffffff" // {"x": [7, -1]}
                                + "01" + "6b00" + "01" + "0170" + "0171"); // {"k\0": {"p": "q"}}
    }

    @Test
    void aMapInSeveralBlocksIsCountedFirst() {
        Schema schema = parse("""
                {"type": "record", "name": "R", "fields": [{"name": "m", "type": {"type": "map", "values": "int"}}]}""");
        AvroRowMapping mapping =
                AvroRowMapping.builder(schema).column("m", "Map(String, Int8)").build();
        // Avro: block of 1 ("a" → 1), block of -1 items stating 3 bytes ("b" → 2), end.
        byte[] body = HexFormat.of().parseHex("02" + "0261" + "02" + "01" + "06" + "0262" + "04" + "00");
        byte[] row = transcode(AvroRowTranscoder.raw(mapping, schema).build(), body);
        assertThat(HexFormat.of().formatHex(row)).isEqualTo("02" + "0161" + "01" + "0162" + "02");
    }

    @Test
    void mapValuesArePromotedAsTheReaderSchemaSays() {
        Schema writer = parse("""
                {"type": "record", "name": "R", "fields": [{"name": "m", "type": {"type": "map", "values": "int"}}]}""");
        Schema reader = parse("""
                {"type": "record", "name": "R", "fields": [{"name": "m", "type": {"type": "map", "values": "double"}}]}""");
        AvroRowMapping mapping = AvroRowMapping.builder(reader)
                .column("m", "Map(String, Float64)")
                .build();
        GenericData.Record r = new GenericData.Record(writer);
        r.put("m", Map.of("a", 2));
        assertThat(hex(mapping, writer, r)).isEqualTo("01" + "0161" + "0000000000000040");
    }

    @Test
    void mapKeysAreStringsAndValueErrorsNameTheColumn() {
        assertThatThrownBy(() -> AvroRowMapping.builder(MAPS).column("counts", "Map(UInt8, Nullable(Int64))"))
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("column 'counts'")
                .hasMessageContaining("String, LowCardinality(String) or FixedString(n)");
        assertThatThrownBy(() -> AvroRowMapping.builder(MAPS)
                        .column("counts", "Map(String, Int64)")
                        .build())
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("declare the column Nullable(...)");
        AvroRowMapping mapping = AvroRowMapping.builder(MAPS)
                .column("counts", "Map(String, Nullable(UInt8))")
                .column("nested", "Map(FixedString(1), Map(String, String))")
                .build();
        GenericData.Record r = new GenericData.Record(MAPS);
        r.put("counts", Map.of("a", 300L));
        r.put("tags", Map.of());
        r.put("nested", Map.of());
        assertThatThrownBy(() -> hex(mapping, MAPS, r))
                .isInstanceOf(ColumnEncodeException.class)
                .hasMessageContaining("column 'counts'")
                .hasMessageContaining("300 out of range");
        r.put("counts", Map.of());
        r.put("nested", Map.of("kk", Map.of()));
        assertThatThrownBy(() -> hex(mapping, MAPS, r))
                .isInstanceOf(ColumnEncodeException.class)
                .hasMessageContaining("column 'nested'")
                .hasMessageContaining("2 bytes do not fit FixedString(1)");
    }

    // ---- Tuple

    static final Schema POINT_READER = parse("""
            {"type": "record", "name": "R", "fields": [
              {"name": "id", "type": "long"},
              {"name": "p", "type": {"type": "record", "name": "Point", "fields": [
                {"name": "x", "type": "long"},
                {"name": "label", "type": "string"},
                {"name": "z", "type": "int", "default": -1}
              ]}}
            ]}""");

    @Test
    void aRecordIsATupleByPositionOrByName() {
        AvroRowMapping mapping = AvroRowMapping.builder(POINT_READER)
                .column("p", "Tuple(Int64, String, Int16)")
                .column("named", "Tuple(z Int32, x UInt64)", "p")
                .column("id", "Int64")
                .build();
        GenericData.Record p = new GenericData.Record(POINT_READER.getField("p").schema());
        p.put("x", 5L);
        p.put("label", "ab");
        p.put("z", 3);
        GenericData.Record r = new GenericData.Record(POINT_READER);
        r.put("id", 9L);
        r.put("p", p);
        assertThat(hex(mapping, POINT_READER, r))
                .isEqualTo("0500000000000000" + "026162" + "0300" // Tuple(Int64, String, Int16)
                        + "03000000" + "0500000000000000" // Tuple(z Int32, x UInt64): out of writer order
                        + "0900000000000000");
    }

    @Test
    void aTupleFieldTheWriterLacksIsTheReaderDefaultAndExtraWriterFieldsAreSkipped() {
        Schema writer = parse("""
                {"type": "record", "name": "R", "fields": [
                  {"name": "id", "type": "int"},
                  {"name": "p", "type": {"type": "record", "name": "Point", "fields": [
                    {"name": "extra", "type": {"type": "array", "items": "string"}},
                    {"name": "label", "type": "string"},
                    {"name": "x", "type": "int"}
                  ]}}
                ]}""");
        AvroRowMapping mapping = AvroRowMapping.builder(POINT_READER)
                .column("id", "Int64")
                .column("p", "Tuple(Int64, String, Int32)")
                .build();
        GenericData.Record p = new GenericData.Record(writer.getField("p").schema());
        p.put("extra", List.of("zz", "y"));
        p.put("label", "L");
        p.put("x", 7); // int promoted to the reader's long
        GenericData.Record r = new GenericData.Record(writer);
        r.put("id", 1);
        r.put("p", p);
        assertThat(hex(mapping, writer, r)).isEqualTo("0100000000000000" + "0700000000000000" + "014c" + "ffffffff");

        Schema noDefault = parse("""
                {"type": "record", "name": "R", "fields": [
                  {"name": "p", "type": {"type": "record", "name": "Point", "fields": [
                    {"name": "x", "type": "long"}, {"name": "label", "type": "string"}]}}]}""");
        Schema lacksLabel = parse("""
                {"type": "record", "name": "R", "fields": [
                  {"name": "p", "type": {"type": "record", "name": "Point", "fields": [{"name": "x", "type": "long"}]}}]}""");
        AvroRowMapping strict = AvroRowMapping.builder(noDefault)
                .column("p", "Tuple(x Int64, label String)")
                .build();
        assertThatThrownBy(() -> strict.compile(lacksLabel))
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("column 'p'")
                .hasMessageContaining("no field 'label' and the reader field has no default");
    }

    @Test
    void tupleMistakesAreRefusedAtBuild() {
        assertThatThrownBy(() -> AvroRowMapping.builder(POINT_READER)
                        .column("p", "Tuple(Int64, String)")
                        .build())
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("2 elements for 3 reader fields");
        assertThatThrownBy(() -> AvroRowMapping.builder(POINT_READER)
                        .column("p", "Tuple(x Int64, y Int64)")
                        .build())
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("no field 'y'");
        assertThatThrownBy(() -> AvroRowMapping.builder(POINT_READER)
                        .column("p", "String")
                        .build())
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("a record is written to Tuple(...) columns only");
    }

    @Test
    void aRecordWrittenWholeIsNotAlsoMappedFieldByField() {
        assertThatThrownBy(() -> AvroRowMapping.builder(POINT_READER)
                        .column("p", "Tuple(Int64, String, Int32)")
                        .column("label", "String", "p.label")
                        .build())
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("column 'label'")
                .hasMessageContaining("column 'p' writes the record 'p' whole (a Tuple)");
        assertThatThrownBy(() -> AvroRowMapping.builder(POINT_READER)
                        .column("label", "String", "p.label")
                        .column("p", "Tuple(Int64, String, Int32)")
                        .shardKey("id")
                        .build())
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("whole (a Tuple)");
    }

    @Test
    void aTupleInAnArrayAndATupleInATuple() {
        Schema schema = parse("""
                {"type": "record", "name": "R", "fields": [
                  {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line", "fields": [
                    {"name": "sku", "type": "string"},
                    {"name": "at", "type": {"type": "record", "name": "At", "fields": [{"name": "n", "type": "int"}]}}
                  ]}}}
                ]}""");
        AvroRowMapping mapping = AvroRowMapping.builder(schema)
                .column("lines", "Array(Tuple(sku String, at Tuple(UInt8)))")
                .build();
        Schema line = schema.getField("lines").schema().getElementType();
        GenericData.Record at = new GenericData.Record(line.getField("at").schema());
        at.put("n", 4);
        GenericData.Record l = new GenericData.Record(line);
        l.put("sku", "s");
        l.put("at", at);
        GenericData.Record r = new GenericData.Record(schema);
        r.put("lines", List.of(l, l));
        assertThat(hex(mapping, schema, r)).isEqualTo("02" + "0173" + "04" + "0173" + "04");
    }

    // ---- IPv4 / IPv6

    static final Schema IPS = parse("""
            {"type": "record", "name": "R", "fields": [
              {"name": "s", "type": "string"},
              {"name": "i", "type": "int"},
              {"name": "l", "type": "long"},
              {"name": "f", "type": {"type": "fixed", "name": "V4", "size": 4}},
              {"name": "s6", "type": "string"},
              {"name": "f6", "type": {"type": "fixed", "name": "V6", "size": 16}},
              {"name": "b6", "type": "bytes"}
            ]}""");

    private static final AvroRowMapping IP_MAPPING = AvroRowMapping.builder(IPS)
            .column("s", "IPv4")
            .column("i", "IPv4")
            .column("l", "IPv4")
            .column("f", "IPv4")
            .column("s6", "IPv6")
            .column("f6", "IPv6")
            .column("b6", "IPv6")
            .build();

    private static GenericData.Record ips(String v4, String v6) {
        GenericData.Record r = new GenericData.Record(IPS);
        r.put("s", v4);
        r.put("i", 0x7F000001);
        r.put("l", 0xC0A8010AL);
        r.put("f", new GenericData.Fixed(IPS.getField("f").schema(), new byte[] {10, 0, 0, (byte) 254}));
        r.put("s6", v6);
        byte[] v6bytes = HexFormat.of().parseHex("20010db8000000000000000000000001");
        r.put("f6", new GenericData.Fixed(IPS.getField("f6").schema(), v6bytes));
        r.put("b6", ByteBuffer.wrap(v6bytes));
        return r;
    }

    @Test
    void ipv4IsALittleEndianUInt32AndIpv6SixteenBytesInNetworkOrder() {
        assertThat(hex(IP_MAPPING, IPS, ips("192.168.1.10", "2001:DB8::1")))
                .isEqualTo(
                        "0a01a8c0" // 192.168.1.10 = 0xC0A8010A, little-endian
                                + "0100007f" // 127.0.0.1 from the int 0x7F000001
                                + "0a01a8c0" // the long 0xC0A8010A
                                + "fe00000a" // fixed [10, 0, 0, 254] is 10.0.0.254
                                + "20010db8000000000000000000000001" // network order, as written
                                + "20010db8000000000000000000000001"
                                + "20010db8000000000000000000000001");
    }

    @Test
    void everyIpv6TextFormParses() {
        Map<String, String> forms = new LinkedHashMap<>();
        forms.put("::", "00000000000000000000000000000000");
        forms.put("::1", "00000000000000000000000000000001");
        forms.put("1::", "00010000000000000000000000000000");
        forms.put("fe80::1:2", "fe800000000000000000000000010002");
        forms.put("2001:0db8:0000:0000:0000:ff00:0042:8329", "20010db8000000000000ff0000428329");
        forms.put("2001:db8:0:0:1:0:0:1", "20010db8000000000001000000000001");
        forms.put("::ffff:1.2.3.4", "00000000000000000000ffff01020304");
        forms.put("64:ff9b::192.0.2.33", "0064ff9b0000000000000000c0000221");
        forms.put("1:2:3:4:5:6:7::", "00010002000300040005000600070000");
        forms.put("1:2:3:4:5:6:1.2.3.4", "00010002000300040005000601020304");
        for (Map.Entry<String, String> f : forms.entrySet()) {
            String row = hex(IP_MAPPING, IPS, ips("0.0.0.0", f.getKey()));
            assertThat(row.substring(32, 64)).as(f.getKey()).isEqualTo(f.getValue());
        }
    }

    @Test
    void malformedAddressesAreRejectedNamingTheColumn() {
        for (String bad :
                List.of("1.2.3", "1.2.3.4.5", "256.1.1.1", "1..2.3", "1.2.3.4 ", "", "a.b.c.d", "1234.1.1.1")) {
            assertThatThrownBy(() -> hex(IP_MAPPING, IPS, ips(bad, "::")))
                    .as(bad)
                    .isInstanceOf(ColumnEncodeException.class)
                    .hasMessageContaining("column 's' (IPv4)")
                    .hasMessageContaining("malformed IPv4 address");
        }
        for (String bad : List.of(
                ":",
                "1:::2",
                "1::2::3",
                "12345::",
                "1:2:3:4:5:6:7:8:9",
                "1:2:3:4:5:6:7",
                "1:",
                ":1",
                "::g",
                "1:2:3:4:5:6:7:8::",
                "::1.2.3",
                "1.2.3.4",
                "1:2:3:4:5:6:7:1.2.3.4")) {
            assertThatThrownBy(() -> hex(IP_MAPPING, IPS, ips("1.1.1.1", bad)))
                    .as(bad)
                    .isInstanceOf(ColumnEncodeException.class)
                    .hasMessageContaining("column 's6' (IPv6)")
                    .hasMessageContaining("malformed IPv6 address");
        }
        GenericData.Record r = ips("1.1.1.1", "::");
        r.put("l", 0x1_0000_0000L);
        assertThatThrownBy(() -> hex(IP_MAPPING, IPS, r))
                .isInstanceOf(ColumnEncodeException.class)
                .hasMessageContaining("column 'l' (IPv4)")
                .hasMessageContaining("out of range");
        GenericData.Record shortBytes = ips("1.1.1.1", "::");
        shortBytes.put("b6", ByteBuffer.wrap(new byte[15]));
        assertThatThrownBy(() -> hex(IP_MAPPING, IPS, shortBytes))
                .isInstanceOf(ColumnEncodeException.class)
                .hasMessageContaining("column 'b6' (IPv6)")
                .hasMessageContaining("15 bytes");
        assertThatThrownBy(() -> AvroRowMapping.builder(IPS).column("i", "IPv6").build())
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("column 'i' (IPv6)");
    }

    // ---- Unions of several types: Variant, and one column per branch

    static final Schema AMOUNTS = parse("""
            {"type": "record", "name": "R", "namespace": "com.acme", "fields": [
              {"name": "amount", "type": ["null", "long", "string",
                 {"type": "enum", "name": "Code", "symbols": ["FREE", "VOID"]}]}
            ]}""");

    private static GenericData.Record amount(Object value) {
        GenericData.Record r = new GenericData.Record(AMOUNTS);
        r.put("amount", value);
        return r;
    }

    @Test
    void aUnionIntoAVariantWritesTheSortedIndexOfTheBranchType() {
        // Sorted by name: Enum8('FREE' = 1, 'VOID' = 2) (0), Int64 (1), String (2); declared in another order.
        AvroRowMapping mapping = AvroRowMapping.builder(AMOUNTS)
                .column("amount", "Variant(String, Int64, Enum8('FREE' = 1, 'VOID' = 2))")
                .build();
        Schema code = AMOUNTS.getField("amount").schema().getTypes().get(3);
        assertThat(hex(mapping, AMOUNTS, amount(5L))).isEqualTo("01" + "0500000000000000");
        assertThat(hex(mapping, AMOUNTS, amount("x"))).isEqualTo("02" + "0178");
        assertThat(hex(mapping, AMOUNTS, amount(new GenericData.EnumSymbol(code, "VOID"))))
                .isEqualTo("00" + "02");
        assertThat(hex(mapping, AMOUNTS, amount(null))).isEqualTo("ff");
        assertThatThrownBy(() -> AvroRowMapping.builder(AMOUNTS)
                        .column("amount", "Variant(String, Int64)")
                        .column("x", "Variant(Int64, Nullable(String))", "amount"))
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("a Variant holds no Nullable type");
    }

    @Test
    void variantTypesSortAsClickHousePrintsTheirNames() {
        assertThat(VariantTypes.serverName("Decimal(18,2)")).isEqualTo("Decimal(18, 2)");
        assertThat(VariantTypes.serverName("Enum8('a'=1,'b c' = 2)")).isEqualTo("Enum8('a' = 1, 'b c' = 2)");
        assertThat(VariantTypes.serverName("Tuple( a  String ,b UInt8 )")).isEqualTo("Tuple(a String, b UInt8)");
        assertThat(VariantTypes.discriminators(
                        dev.etl.clickhouse.ColumnType.parse("Variant(UInt64, Array(UInt64), String, Date)")))
                .containsExactly(3, 0, 2, 1);
    }

    /**
     * ClickHouse prints an enum's items sorted by value and a {@code DecimalN(S)} as {@code Decimal(P, S)}, and sorts a
     * Variant's types by those names: the discriminators follow them, not the declared spelling (found by
     * TranscoderPropertyTest: two Enum8 types of a Variant in the order of their declared first items).
     */
    @Test
    void variantDiscriminatorsSortTheNamesTheServerPrints() {
        assertThat(VariantTypes.serverName("Enum8('b' = 2,'a'=1)")).isEqualTo("Enum8('a' = 1, 'b' = 2)");
        assertThat(VariantTypes.serverName("Decimal32(2)")).isEqualTo("Decimal(9, 2)");
        assertThat(VariantTypes.serverName("Decimal(5)")).isEqualTo("Decimal(5, 0)");
        assertThat(VariantTypes.serverName("Array(LowCardinality(String))")).isEqualTo("Array(LowCardinality(String))");
        assertThat(VariantTypes.serverName("DateTime64(3,'UTC')")).isEqualTo("DateTime64(3, 'UTC')");
        // Enum8('VOID' = 1, 'FREE' = 2) sorts after Enum8('FREE' = 3, 'VOID' = 4): the first is 1.
        AvroRowMapping enums = AvroRowMapping.builder(AMOUNTS)
                .column(
                        "amount",
                        "Variant(Enum8('FREE' = 2, 'VOID' = 1), Enum8('FREE' = 3, 'VOID' = 4), Int64, String)")
                .build();
        Schema code = AMOUNTS.getField("amount").schema().getTypes().get(3);
        assertThat(hex(enums, AMOUNTS, amount(new GenericData.EnumSymbol(code, "VOID"))))
                .isEqualTo("01" + "01");
        // Decimal(18, 2) (Decimal64) sorts before Decimal(9, 2) (Decimal32): a long into Decimal32(2) is 1.
        AvroRowMapping decimals = AvroRowMapping.builder(AMOUNTS)
                .column("amount", "Variant(Decimal32(2), Decimal64(2), String)")
                .build();
        assertThat(hex(decimals, AMOUNTS, amount(5L))).isEqualTo("01" + "05000000");
    }

    /**
     * Which of a Variant's types a branch goes to is decided by the reader's branch, as when the mapping was built:
     * an enum into the first Enum that holds every reader symbol, whatever symbols a writer's enum has (found by
     * TranscoderPropertyTest: a writer enum of fewer symbols sent its values to an Enum8 lacking a reader symbol).
     */
    @Test
    void aVariantTakesAnEnumByItsReaderSymbolsWhateverTheWriterHas() {
        Schema reader = parse("""
                {"type": "record", "name": "V", "fields": [
                  {"name": "v", "type": ["long", {"type": "enum", "name": "Code", "symbols": ["FREE", "VOID"]}]}
                ]}""");
        Schema writer = parse("""
                {"type": "record", "name": "V", "fields": [
                  {"name": "v", "type": ["long", {"type": "enum", "name": "Code", "symbols": ["FREE"]}]}
                ]}""");
        AvroRowMapping mapping = AvroRowMapping.builder(reader)
                .column("v", "Variant(Enum8('FREE' = 1), Int64, String)")
                .build();
        GenericData.Record r = new GenericData.Record(writer);
        r.put(
                "v",
                new GenericData.EnumSymbol(
                        writer.getField("v").schema().getTypes().get(1), "FREE"));
        // Enum8('FREE' = 1) lacks VOID: the enum is written as a String, discriminator 2, from either writer.
        assertThat(hex(mapping, writer, r)).isEqualTo("02" + "04" + "46524545");
        GenericData.Record same = new GenericData.Record(reader);
        same.put(
                "v",
                new GenericData.EnumSymbol(
                        reader.getField("v").schema().getTypes().get(1), "FREE"));
        assertThat(hex(mapping, reader, same)).isEqualTo("02" + "04" + "46524545");
    }

    /**
     * A UUID column takes a {@code fixed(16)} with logicalType uuid only (the documented rule, and the mapping error's
     * own words): a plain {@code fixed(16)} (an IPv6 address, a hash) into {@code Variant(UUID, IPv6)} is an IPv6,
     * and into a UUID column a mapping error (found by TranscoderPropertyTest: it went to the UUID, its halves
     * byte-swapped).
     */
    @Test
    void aPlainFixed16IsNoUuid() {
        Schema schema = parse("""
                {"type": "record", "name": "F", "fields": [
                  {"name": "a", "type": {"type": "fixed", "name": "Sixteen", "size": 16}},
                  {"name": "u", "type": ["string", "Sixteen"]}
                ]}""");
        assertThatThrownBy(
                        () -> AvroRowMapping.builder(schema).column("a", "UUID").build())
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("logicalType uuid");
        AvroRowMapping mapping = AvroRowMapping.builder(schema)
                .column("u", "Variant(UUID, IPv6)", "u")
                .build();
        byte[] address = new byte[16];
        for (int i = 0; i < 16; i++) {
            address[i] = (byte) i;
        }
        GenericData.Record r = new GenericData.Record(schema);
        r.put("a", new GenericData.Fixed(schema.getField("a").schema(), address));
        r.put("u", new GenericData.Fixed(schema.getField("a").schema(), address));
        // IPv6 sorts before UUID: discriminator 0, the 16 bytes in network order.
        assertThat(hex(mapping, schema, r)).isEqualTo("00" + HexFormat.of().formatHex(address));
    }

    @Test
    void eachBranchOfAUnionIntoItsOwnNullableColumn() {
        AvroRowMapping mapping = AvroRowMapping.builder(AMOUNTS)
                .column("amount_long", "Nullable(Int64)", "amount[long]")
                .column("amount_text", "Nullable(String)", "amount[string]")
                .column("amount_code", "Nullable(String)", "amount[com.acme.Code]")
                .column("amount_code2", "Nullable(Enum8('FREE' = 1, 'VOID' = 2))", "amount[Code]")
                .build();
        Schema code = AMOUNTS.getField("amount").schema().getTypes().get(3);
        assertThat(hex(mapping, AMOUNTS, amount(5L))).isEqualTo("00" + "0500000000000000" + "01" + "01" + "01");
        assertThat(hex(mapping, AMOUNTS, amount("x"))).isEqualTo("01" + "00" + "0178" + "01" + "01");
        assertThat(hex(mapping, AMOUNTS, amount(new GenericData.EnumSymbol(code, "FREE"))))
                .isEqualTo("01" + "01" + "00" + "0446524545" + "00" + "01");
        assertThat(hex(mapping, AMOUNTS, amount(null))).isEqualTo("01" + "01" + "01" + "01");
        assertThatThrownBy(() -> AvroRowMapping.builder(AMOUNTS)
                        .column("a", "Nullable(Int64)", "amount[int]")
                        .build())
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("no branch 'int'");
        assertThatThrownBy(() -> AvroRowMapping.builder(AMOUNTS)
                        .column("a", "Int64", "amount[long]")
                        .build())
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("the other branches write NULL");
    }

    // tag::branches[]
    /** A union of several types ({@code amount: ["null", "long", "string"]}): a column per branch, or a Variant. */
    static AvroRowMapping paymentMapping(Schema readerSchema) {
        return AvroRowMapping.builder(readerSchema)
                .column("amount_cents", "Nullable(Int64)", "amount[long]") // a string amount writes NULL here
                .column("amount_text", "Nullable(String)", "amount[string]") // a long amount writes NULL here
                .column("amount", "Variant(Int64, String)") // on servers that have Variant
                .build();
    }
    // end::branches[]

    @Test
    void theGuidesBranchMappingWritesEachBranchIntoItsColumn() {
        Schema payment = parse("""
                {"type": "record", "name": "Payment", "fields": [
                  {"name": "amount", "type": ["null", "long", "string"]}]}""");
        AvroRowMapping mapping = paymentMapping(payment);
        GenericData.Record r = new GenericData.Record(payment);
        r.put("amount", 5L);
        assertThat(hex(mapping, payment, r)).isEqualTo("00" + "0500000000000000" + "01" + "00" + "0500000000000000");
        r.put("amount", "x");
        assertThat(hex(mapping, payment, r)).isEqualTo("01" + "00" + "0178" + "01" + "0178");
        r.put("amount", null);
        assertThat(hex(mapping, payment, r)).isEqualTo("01" + "01" + "ff");
    }

    @Test
    void aBranchColumnFollowsTheWriterSchema() {
        // The writer has only long (a union member of the reader) and lacks the field in the second case.
        Schema longOnly = parse("""
                {"type": "record", "name": "R", "namespace": "com.acme", "fields": [{"name": "amount", "type": "long"}]}""");
        Schema reader = parse("""
                {"type": "record", "name": "R", "namespace": "com.acme", "fields": [
                  {"name": "id", "type": "int", "default": 0},
                  {"name": "amount", "type": ["null", "long", "string"], "default": null}]}""");
        AvroRowMapping mapping = AvroRowMapping.builder(reader)
                .column("amount_long", "Nullable(Int64)", "amount[long]")
                .column("amount_text", "Nullable(String)", "amount[string]")
                .build();
        GenericData.Record r = new GenericData.Record(longOnly);
        r.put("amount", 3L);
        assertThat(hex(mapping, longOnly, r)).isEqualTo("00" + "0300000000000000" + "01");
        Schema noAmount = parse("""
                {"type": "record", "name": "R", "namespace": "com.acme", "fields": [{"name": "id", "type": "int"}]}""");
        GenericData.Record n = new GenericData.Record(noAmount);
        n.put("id", 1);
        assertThat(hex(mapping, noAmount, n)).isEqualTo("01" + "01");
    }

    @Test
    void theNewTypesAllocateNothingPerRecord() {
        Schema schema = parse("""
                {"type": "record", "name": "R", "namespace": "com.acme", "fields": [
                  {"name": "m", "type": {"type": "map", "values": "long"}},
                  {"name": "p", "type": {"type": "record", "name": "P", "fields": [
                    {"name": "a", "type": "int"}, {"name": "b", "type": "string"}]}},
                  {"name": "ip", "type": "string"},
                  {"name": "ip6", "type": "string"},
                  {"name": "u", "type": ["null", "long", "string"]}
                ]}""");
        AvroRowMapping mapping = AvroRowMapping.builder(schema)
                .column("m", "Map(String, Int64)")
                .column("p", "Tuple(b String, a Int32)")
                .column("ip", "IPv4")
                .column("ip6", "IPv6")
                .column("u", "Variant(Int64, String)")
                .column("u_long", "Nullable(Int64)", "u[long]")
                .build();
        byte[][] bodies = new byte[8][];
        for (int i = 0; i < bodies.length; i++) {
            GenericData.Record p = new GenericData.Record(schema.getField("p").schema());
            p.put("a", i);
            p.put("b", "b" + i);
            GenericData.Record r = new GenericData.Record(schema);
            r.put("m", Map.of("k" + i, (long) i));
            r.put("p", p);
            r.put("ip", "10.0.0." + i);
            r.put("ip6", "fe80::" + i + ":ffff:1.2.3." + i);
            r.put("u", i % 3 == 0 ? null : i % 3 == 1 ? (Object) (long) i : "s" + i);
            bodies[i] = AvroWireFormat.raw(schema, r);
        }
        AvroRowTranscoderTest.assertAllocatesNothingPerRecord(
                AvroRowTranscoder.raw(mapping, schema).build(), bodies);
    }
}
