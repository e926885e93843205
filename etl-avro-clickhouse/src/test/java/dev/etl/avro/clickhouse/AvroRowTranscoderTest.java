package dev.etl.avro.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.avro.AvroWireFormat;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.clickhouse.ColumnEncodeException;
import dev.etl.error.DeserializationException;
import dev.etl.record.Payload;
import dev.etl.sink.RowBuffer;
import dev.etl.test.avro.StubSchemaRegistry;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

/**
 * Every supported conversion, byte for byte against the object path ({@code GenericDatumReader} and
 * the project's {@code RowBinaryEncoder}), plus hand-checked bytes, compile-time mapping errors,
 * per-value errors, malformed bodies, the per-id plan cache and the absence of allocation.
 */
class AvroRowTranscoderTest {
    static final Schema ORDER = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "namespace": "dev.etl.avro.clickhouse.test", "fields": [
              {"name": "id", "type": "long"},
              {"name": "qty", "type": "int"},
              {"name": "small", "type": "int"},
              {"name": "ratio", "type": "float"},
              {"name": "score", "type": "double"},
              {"name": "paid", "type": "boolean"},
              {"name": "name", "type": "string"},
              {"name": "blob", "type": "bytes"},
              {"name": "hash", "type": {"type": "fixed", "name": "Hash", "size": 4}},
              {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["NEW", "PAID", "SHIPPED"]}},
              {"name": "day", "type": {"type": "int", "logicalType": "date"}},
              {"name": "ts_ms", "type": {"type": "long", "logicalType": "timestamp-millis"}},
              {"name": "ts_us", "type": {"type": "long", "logicalType": "timestamp-micros"}},
              {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 18, "scale": 2}},
              {"name": "big", "type": {"type": "fixed", "name": "Big", "size": 16, "logicalType": "decimal",
                 "precision": 38, "scale": 4}},
              {"name": "uid", "type": {"type": "string", "logicalType": "uuid"}},
              {"name": "uid_fixed", "type": {"type": "fixed", "name": "Uid", "size": 16, "logicalType": "uuid"}},
              {"name": "coupon", "type": ["null", "string"], "default": null},
              {"name": "discount", "type": ["null", "int"]},
              {"name": "tags", "type": {"type": "array", "items": "string"}},
              {"name": "lines", "type": {"type": "array", "items": ["null", "long"]}},
              {"name": "customer", "type": {"type": "record", "name": "Customer", "fields": [
                 {"name": "name", "type": "string"}, {"name": "tier", "type": "int"}]}},
              {"name": "unmapped", "type": {"type": "map", "values": "string"}}
            ]}""");

    /** Every conversion the transcoder has; nested and repeated fields out of writer order. */
    static AvroRowMapping everyType() {
        return AvroRowMapping.builder(ORDER)
                .column("customer_name", "String", "customer.name")
                .column("id", "UInt64")
                .column("qty", "Int32")
                .column("qty_nullable", "Nullable(Int32)", "qty")
                .column("qty_float", "Float32", "qty")
                .column("small", "Int8")
                .column("small_u16", "UInt16", "small")
                .column("small_i64", "Int64", "small")
                .column("ratio", "Float32")
                .column("ratio_d", "Float64", "ratio")
                .column("score", "Float64")
                .column("paid", "Bool")
                .column("paid_u8", "UInt8", "paid")
                .column("name", "String")
                .column("name_lc", "LowCardinality(String)", "name")
                .column("name_fixed", "FixedString(40)", "name")
                .column("blob", "String")
                .column("blob_fixed", "FixedString(20)", "blob")
                .column("hash", "FixedString(4)")
                .column("hash_wide", "FixedString(6)", "hash")
                .column("hash_s", "String", "hash")
                .column("status", "Enum8('NEW' = 1, 'PAID' = 2, 'SHIPPED' = -3)")
                .column("status16", "Enum16('SHIPPED' = 300, 'NEW' = 1, 'PAID' = 2)", "status")
                .column("status_s", "String", "status")
                .column("day", "Date")
                .column("day32", "Date32", "day")
                .column("ts_ms", "DateTime64(3)")
                .column("ts_ms_s", "DateTime('UTC')", "ts_ms")
                .column("ts_ms_9", "DateTime64(9, 'Europe/Oslo')", "ts_ms")
                .column("ts_us", "DateTime64(6)")
                .column("ts_us_3", "DateTime64(3)", "ts_us")
                .column("amount", "Decimal(18, 2)")
                .column("amount_wide", "Decimal128(2)", "amount")
                .column("big", "Decimal(38, 4)")
                .column("uid", "UUID")
                .column("uid_fixed", "UUID")
                .column("uid_s", "String", "uid")
                .column("coupon", "Nullable(String)")
                .column("discount", "Nullable(Int64)")
                .column("tags", "Array(String)")
                .column("tags_lc", "Array(LowCardinality(String))", "tags")
                .column("lines", "Array(Nullable(Int64))")
                .column("tier", "UInt8", "customer.tier")
                .build();
    }

    static GenericRecord order(Random random) {
        GenericData.Record r = new GenericData.Record(ORDER);
        r.put("id", Math.abs(random.nextLong() >> random.nextInt(64)));
        r.put("qty", random.nextInt(1000) - 500);
        r.put("small", random.nextInt(128));
        r.put("ratio", random.nextInt(10) == 0 ? Float.NaN : random.nextFloat() * 100);
        r.put("score", random.nextGaussian() * 1e6);
        r.put("paid", random.nextBoolean());
        r.put("name", random.nextInt(5) == 0 ? "Åse Ødegård €" : "customer-" + random.nextInt(1000));
        byte[] blob = new byte[random.nextInt(21)];
        random.nextBytes(blob);
        r.put("blob", ByteBuffer.wrap(blob));
        byte[] hash = new byte[4];
        random.nextBytes(hash);
        r.put("hash", new GenericData.Fixed(ORDER.getField("hash").schema(), hash));
        r.put(
                "status",
                new GenericData.EnumSymbol(
                        ORDER.getField("status").schema(),
                        List.of("NEW", "PAID", "SHIPPED").get(random.nextInt(3))));
        r.put("day", random.nextInt(40_000));
        r.put("ts_ms", 1_700_000_000_000L + random.nextInt(1_000_000_000));
        r.put("ts_us", 1_700_000_000_000_000L + random.nextLong() % 1_000_000_000_000L);
        r.put(
                "amount",
                ByteBuffer.wrap(java.math.BigInteger.valueOf(random.nextLong() % 1_000_000_000_000_000L)
                        .toByteArray()));
        r.put(
                "big",
                new GenericData.Fixed(
                        ORDER.getField("big").schema(),
                        fixed16(new java.math.BigInteger(120, random)
                                .subtract(java.math.BigInteger.ONE.shiftLeft(119)))));
        UUID uid = new UUID(random.nextLong(), random.nextLong());
        r.put("uid", random.nextBoolean() ? uid.toString() : uid.toString().toUpperCase());
        ByteBuffer u =
                ByteBuffer.allocate(16).putLong(uid.getMostSignificantBits()).putLong(uid.getLeastSignificantBits());
        r.put("uid_fixed", new GenericData.Fixed(ORDER.getField("uid_fixed").schema(), u.array()));
        r.put("coupon", random.nextBoolean() ? null : "SPRING" + random.nextInt(10));
        r.put("discount", random.nextBoolean() ? null : random.nextInt());
        List<String> tags = new ArrayList<>();
        for (int i = random.nextInt(4); i > 0; i--) {
            tags.add("t" + random.nextInt(100));
        }
        r.put("tags", tags);
        List<Long> lines = new ArrayList<>();
        for (int i = random.nextInt(4); i > 0; i--) {
            lines.add(random.nextInt(3) == 0 ? null : random.nextLong());
        }
        r.put("lines", lines);
        GenericData.Record customer =
                new GenericData.Record(ORDER.getField("customer").schema());
        customer.put("name", "c" + random.nextInt(100));
        customer.put("tier", random.nextInt(4));
        r.put("customer", customer);
        r.put("unmapped", java.util.Map.of("k", "v" + random.nextInt(9)));
        return r;
    }

    /** Sign-extended to 16 bytes, as a fixed decimal is written. */
    static byte[] fixed16(java.math.BigInteger value) {
        byte[] be = value.toByteArray();
        byte[] out = new byte[16];
        Arrays.fill(out, value.signum() < 0 ? (byte) -1 : 0);
        System.arraycopy(be, 0, out, 16 - be.length, be.length);
        return out;
    }

    static byte[] transcode(AvroRowTranscoder transcoder, byte[] body) {
        RowBuffer out = new RowBuffer(64);
        transcoder.transcode(body, 0, body.length, out);
        return out.toByteArray();
    }

    @Test
    void everySupportedTypeMatchesTheObjectPathByteForByte() throws Exception {
        AvroRowMapping mapping = everyType();
        AvroRowTranscoder transcoder = AvroRowTranscoder.raw(mapping, ORDER).build();
        ObjectPath reference = new ObjectPath(mapping, ORDER);
        Random random = new Random(42);
        for (int i = 0; i < 2_000; i++) {
            byte[] body = AvroWireFormat.raw(ORDER, order(random));
            assertThat(transcode(transcoder, body)).as("record %d", i).isEqualTo(reference.row(body));
        }
    }

    @Test
    void bytesAreTheRowBinaryEncodingOfEachValue() {
        Schema schema = new Schema.Parser().parse("""
                {"type": "record", "name": "R", "fields": [
                  {"name": "a", "type": "int"},
                  {"name": "s", "type": "string"},
                  {"name": "n", "type": ["null", "long"]},
                  {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-millis"}},
                  {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["X", "Y"]}},
                  {"name": "arr", "type": {"type": "array", "items": "int"}}
                ]}""");
        AvroRowMapping mapping = AvroRowMapping.builder(schema)
                .column("e", "Enum8('X' = -1, 'Y' = 5)")
                .column("a", "UInt16")
                .column("s", "String")
                .column("n", "Nullable(Int64)")
                .column("ts", "DateTime64(6)")
                .column("arr", "Array(Int16)")
                .build();
        GenericData.Record r = new GenericData.Record(schema);
        r.put("a", 513);
        r.put("s", "hé");
        r.put("n", null);
        r.put("ts", 1_000L);
        r.put("e", new GenericData.EnumSymbol(schema.getField("e").schema(), "Y"));
        r.put("arr", List.of(1, -2));
        byte[] row = transcode(AvroRowTranscoder.raw(mapping, schema).build(), AvroWireFormat.raw(schema, r));
        assertThat(HexFormat.of().formatHex(row))
                .isEqualTo(
                        "05" // Enum8 code 5
                                + "0102" // UInt16 513 little-endian
                                + "03" + "68c3a9" // String: length 3, UTF-8 of hé
                                + "01" // NULL
                                + "40420f0000000000" // 1000 ms = 1,000,000 µs
                                + "02" + "0100" + "feff"); // Array(Int16): count 2, 1, -2
    }

    @Test
    void columnsOutOfWriterOrderAreWrittenFromMarks() {
        Schema schema = new Schema.Parser().parse("""
                {"type": "record", "name": "R", "fields": [
                  {"name": "a", "type": "int"}, {"name": "skipped", "type": "string"}, {"name": "b", "type": "long"}
                ]}""");
        AvroRowMapping mapping = AvroRowMapping.builder(schema)
                .column("b", "Int64")
                .column("a", "Int32")
                .column("a_again", "Int64", "a")
                .build();
        assertThat(mapping.compile(schema))
                .hasToString("[MARK 0, SKIP, SKIP, CONVERT b, CONVERT_AT 0 a, " + "CONVERT_AT 0 a_again]");
        GenericData.Record r = new GenericData.Record(schema);
        r.put("a", 7);
        r.put("skipped", "zzz");
        r.put("b", 9L);
        byte[] row = transcode(AvroRowTranscoder.raw(mapping, schema).build(), AvroWireFormat.raw(schema, r));
        assertThat(HexFormat.of().formatHex(row)).isEqualTo("0900000000000000" + "07000000" + "0700000000000000");
    }

    @Test
    void columnsInWriterOrderAreOneConvertEach() {
        AvroRowMapping mapping = AvroRowMapping.builder(ORDER)
                .column("id", "Int64")
                .column("qty", "Int32")
                .column("name", "String")
                .build();
        assertThat(mapping.compile(ORDER).toString())
                .startsWith("[CONVERT id, CONVERT qty, SKIP, SKIP, SKIP, SKIP, " + "CONVERT name, SKIP");
    }

    @Test
    void aMissingFieldFailsTheBuildNamingFieldAndColumn() {
        assertThatThrownBy(() -> AvroRowMapping.builder(ORDER)
                        .column("x", "String", "customer.nick")
                        .build())
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("'customer.nick'")
                .hasMessageContaining("column 'x'")
                .hasMessageContaining("String")
                .hasMessageContaining("has no field");
    }

    @Test
    void anIncompatibleTypeFailsTheBuildNamingBothTypes() {
        assertThatThrownBy(() ->
                        AvroRowMapping.builder(ORDER).column("score", "Int64").build())
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("field 'score' (Avro double)")
                .hasMessageContaining("column 'score' (Int64)")
                .satisfies(e -> {
                    AvroMappingException m = (AvroMappingException) e;
                    assertThat(m.field()).isEqualTo("score");
                    assertThat(m.column()).isEqualTo("score");
                    assertThat(m.avroType()).isEqualTo("double");
                    assertThat(m.columnType()).isEqualTo("Int64");
                });
        assertThatThrownBy(() ->
                        AvroRowMapping.builder(ORDER).column("coupon", "String").build())
                .hasMessageContaining("may be null")
                .hasMessageContaining("Nullable");
        assertThatThrownBy(() -> AvroRowMapping.builder(ORDER)
                        .column("status", "Enum8('NEW' = 1, 'PAID' = 2)")
                        .build())
                .hasMessageContaining("symbol SHIPPED has no value");
        assertThatThrownBy(() -> AvroRowMapping.builder(ORDER)
                        .column("amount", "Decimal(18, 3)")
                        .build())
                .hasMessageContaining("scale 2 differs");
        assertThatThrownBy(() -> AvroRowMapping.builder(ORDER)
                        .column("unmapped", "Map(String, Int64)")
                        .build())
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("column 'unmapped'")
                .hasMessageContaining("a string is written to String");
        assertThatThrownBy(() -> AvroRowMapping.builder(ORDER)
                        .column("customer", "String")
                        .build())
                .hasMessageContaining("a record is written to Tuple(...) columns only");
        assertThatThrownBy(() ->
                        AvroRowMapping.builder(ORDER).column("qty", "Date").build())
                .hasMessageContaining("logicalType date");
        assertThatThrownBy(() -> AvroRowMapping.builder(ORDER)
                        .column("hash", "FixedString(3)")
                        .build())
                .hasMessageContaining("does not fit");
    }

    @Test
    void aValueOutOfRangeFailsItsColumnLikeTheObjectPath() throws Exception {
        AvroRowMapping mapping = AvroRowMapping.builder(ORDER)
                .column("id", "UInt64")
                .column("qty", "UInt8")
                .build();
        GenericRecord r = order(new Random(1));
        r.put("qty", 300);
        byte[] body = AvroWireFormat.raw(ORDER, r);
        AvroRowTranscoder transcoder = AvroRowTranscoder.raw(mapping, ORDER).build();
        assertThatThrownBy(() -> transcode(transcoder, body))
                .isInstanceOf(ColumnEncodeException.class)
                .hasMessageContaining("column 'qty' (UInt8)")
                .hasMessageContaining("300");
        assertThatThrownBy(() -> new ObjectPath(mapping, ORDER).row(body))
                .isInstanceOf(ColumnEncodeException.class)
                .hasMessageContaining("column 'qty' (UInt8)");
    }

    @Test
    void everyTruncationAndATrailingByteIsADeserializationError() {
        AvroRowMapping mapping = everyType();
        AvroRowTranscoder transcoder = AvroRowTranscoder.raw(mapping, ORDER).build();
        byte[] body = AvroWireFormat.raw(ORDER, order(new Random(3)));
        for (int length = 0; length < body.length; length++) {
            int cut = length;
            assertThatThrownBy(() -> transcoder.transcode(body, 0, cut, new RowBuffer(64)))
                    .as("prefix of %d/%d bytes", cut, body.length)
                    .isInstanceOf(DeserializationException.class)
                    .hasMessageContaining("does not match writer schema");
        }
        byte[] longer = Arrays.copyOf(body, body.length + 1);
        assertThatThrownBy(() -> transcoder.transcode(longer, 0, longer.length, new RowBuffer(64)))
                .isInstanceOf(DeserializationException.class)
                .hasMessageContaining("trailing");
    }

    @Test
    void anArrayInSeveralBlocksIsCountedFirst() {
        Schema schema = new Schema.Parser().parse("""
                {"type": "record", "name": "R", "fields": [{"name": "xs", "type": {"type": "array", "items": "int"}},
                  {"name": "tail", "type": "int"}]}""");
        AvroRowMapping mapping = AvroRowMapping.builder(schema)
                .column("xs", "Array(Int32)")
                .column("tail", "Int8")
                .build();
        // Blocks of 2 and 1 items (the second with a negative count and its byte size), then the end.
        byte[] body = {4, 2, 4, 1, 2, 6, 0, 10};
        byte[] row = transcode(AvroRowTranscoder.raw(mapping, schema).build(), body);
        assertThat(HexFormat.of().formatHex(row)).isEqualTo("03" + "01000000" + "02000000" + "03000000" + "05");
    }

    @Test
    void aWriterSchemaIdCompilesOncePerProcess() {
        Schema v2 = new Schema.Parser()
                .parse(ORDER.toString()
                        .replace(
                                "{\"name\":\"id\",\"type\":\"long\"}",
                                "{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"extra\",\"type\":\"int\"}"));
        assertThat(v2.getField("extra")).isNotNull();
        try (StubSchemaRegistry stub = StubSchemaRegistry.start()) {
            stub.put(1, ORDER);
            stub.put(2, v2);
            SchemaRegistryClient registry =
                    SchemaRegistryClient.builder(stub.url()).build();
            AvroRowMapping mapping = everyType();
            AvroRowTranscoder.Builder shared = AvroRowTranscoder.confluent(mapping, registry);
            java.util.concurrent.atomic.AtomicInteger told = new java.util.concurrent.atomic.AtomicInteger();
            shared.onUnreadWriterFields(told::incrementAndGet);
            AvroRowTranscoder lane1 = shared.build();
            AvroRowTranscoder lane2 = shared.build();
            ObjectPath reference = new ObjectPath(mapping, ORDER);
            Random random = new Random(5);
            for (int i = 0; i < 200; i++) {
                GenericRecord r = order(random);
                boolean second = i % 3 == 0;
                byte[] payload;
                if (second) {
                    GenericData.Record evolved = new GenericData.Record(v2);
                    for (Schema.Field f : ORDER.getFields()) {
                        evolved.put(f.name(), r.get(f.name()));
                    }
                    evolved.put("extra", i);
                    payload = AvroWireFormat.confluent(2, v2, evolved);
                } else {
                    payload = AvroWireFormat.confluent(1, ORDER, r);
                }
                RowBuffer out = new RowBuffer(64);
                (i % 2 == 0 ? lane1 : lane2).encode(new Payload().wrap(payload), null, out);
                assertThat(out.toByteArray())
                        .isEqualTo(ObjectPath.unchecked(reference).apply(AvroWireFormat.raw(ORDER, r)));
            }
            assertThat(shared.compilations()).isEqualTo(2);
            assertThat(stub.requests()).isEqualTo(2);
            assertThat(shared.unreadWriterFields())
                    .as("v2's field the reader lacks: dropped by resolution, so named")
                    .containsExactly("extra");
            assertThat(told)
                    .as("the listener hears of v2 once (compiled once for both lanes), of v1 never")
                    .hasValue(1);
        }
    }

    @Test
    void writerFieldsTheReaderLacksAreNamedWithTheirPath() {
        Schema newer = new Schema.Parser()
                .parse(ORDER.toString()
                        .replace(
                                "{\"name\":\"tier\",\"type\":\"int\"}",
                                "{\"name\":\"tier\",\"type\":\"int\"},{\"name\":\"segment\",\"type\":\"string\"}")
                        .replace(
                                "{\"name\":\"id\",\"type\":\"long\"}",
                                "{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"channel\",\"type\":\"string\"}"));
        assertThat(newer.getField("customer").schema().getField("segment")).isNotNull();

        assertThat(AvroRowTranscoder.raw(everyType(), newer).unreadWriterFields())
                .containsExactlyInAnyOrder("channel", "customer.segment");
        assertThat(AvroRowTranscoder.raw(everyType(), ORDER).unreadWriterFields())
                .as("the reader's own schema drops nothing")
                .isEmpty();
    }

    @Test
    void oneTranscoderUsedByTwoThreadsFailsThePipeline() throws Exception {
        AvroRowTranscoder shared = AvroRowTranscoder.raw(everyType(), ORDER).build();
        byte[] body = AvroWireFormat.raw(ORDER, order(new Random(2)));
        transcode(shared, body);
        java.util.concurrent.atomic.AtomicReference<Throwable> failure =
                new java.util.concurrent.atomic.AtomicReference<>();
        Thread other = new Thread(
                () -> {
                    try {
                        transcode(shared, body);
                    } catch (Throwable e) {
                        failure.set(e);
                    }
                },
                "etl-lane-p-1");
        other.start();
        other.join();
        assertThat(failure.get())
                .isInstanceOf(dev.etl.error.FatalPipelineException.class)
                .hasMessageContaining("one instance must serve one lane")
                .hasMessageContaining("etl-lane-p-1")
                .hasMessageContaining("build() inside the ChainFactory");
        assertThat(transcode(shared, body)).as("the owner keeps working").isNotEmpty();
    }

    @Test
    void lanesRacingOnANewSchemaIdCompileItOnce() throws Exception {
        try (StubSchemaRegistry stub = StubSchemaRegistry.start()) {
            stub.put(3, ORDER);
            SchemaRegistryClient registry =
                    SchemaRegistryClient.builder(stub.url()).build();
            registry.schemaById(3); // fetched before the race, so the lanes race on compiling only
            AvroRowMapping mapping = everyType();
            byte[] payload = AvroWireFormat.confluent(3, ORDER, order(new Random(9)));
            for (int round = 0; round < 200; round++) {
                AvroMappingRace race = new AvroMappingRace(AvroRowTranscoder.confluent(mapping, registry));
                race.run(4, payload);
                assertThat(race.builder.compilations()).as("round %d", round).isEqualTo(1);
            }
        }
    }

    /** Lanes (threads with a transcoder each, from one builder) released at once on the same payload. */
    private static final class AvroMappingRace {
        final AvroRowTranscoder.Builder builder;

        AvroMappingRace(AvroRowTranscoder.Builder builder) {
            this.builder = builder;
        }

        void run(int lanes, byte[] payload) throws Exception {
            java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(lanes);
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(lanes);
            try {
                List<java.util.concurrent.Future<byte[]>> rows = new ArrayList<>();
                for (int i = 0; i < lanes; i++) {
                    AvroRowTranscoder lane = builder.build();
                    rows.add(pool.submit(() -> {
                        start.await();
                        return transcode(lane, payload);
                    }));
                }
                byte[] first = rows.get(0).get();
                for (java.util.concurrent.Future<byte[]> row : rows) {
                    assertThat(row.get()).isEqualTo(first);
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Test
    void aWriterSchemaTheMappingCannotReadFailsEveryPayloadOfItsId() {
        Schema incompatible = new Schema.Parser()
                .parse(ORDER.toString()
                        .replace("{\"name\":\"qty\",\"type\":\"int\"}", "{\"name\":\"qty\",\"type\":\"string\"}"));
        try (StubSchemaRegistry stub = StubSchemaRegistry.start()) {
            stub.put(7, incompatible);
            SchemaRegistryClient registry =
                    SchemaRegistryClient.builder(stub.url()).build();
            AvroRowTranscoder.Builder shared = AvroRowTranscoder.confluent(
                    AvroRowMapping.builder(ORDER).column("qty", "Int32").build(), registry);
            AvroRowTranscoder transcoder = shared.build();
            GenericRecord r = order(new Random(1));
            GenericData.Record bad = new GenericData.Record(incompatible);
            for (Schema.Field f : incompatible.getFields()) {
                bad.put(f.name(), f.name().equals("qty") ? "three" : r.get(f.name()));
            }
            byte[] payload = AvroWireFormat.confluent(7, incompatible, bad);
            for (int i = 0; i < 3; i++) {
                assertThatThrownBy(() -> transcoder.transcode(payload, 0, payload.length, new RowBuffer(16)))
                        .isInstanceOf(DeserializationException.class)
                        .hasMessageContaining("schema id 7")
                        .hasMessageContaining("cannot be transcoded")
                        .hasMessageContaining("field 'qty'")
                        .hasCauseInstanceOf(AvroMappingException.class);
            }
            assertThat(shared.compilations()).isEqualTo(1);
        }
    }

    @Test
    void badFramingAndTombstonesAreDeserializationErrors() {
        try (StubSchemaRegistry stub = StubSchemaRegistry.start()) {
            SchemaRegistryClient registry =
                    SchemaRegistryClient.builder(stub.url()).build();
            AvroRowTranscoder transcoder =
                    AvroRowTranscoder.confluent(everyType(), registry).build();
            assertThatThrownBy(() -> transcoder.transcode(new byte[] {0, 0}, 0, 2, new RowBuffer(16)))
                    .isInstanceOf(DeserializationException.class)
                    .hasMessageContaining("shorter than the 5-byte");
            assertThatThrownBy(() -> transcoder.transcode(new byte[] {1, 0, 0, 0, 1}, 0, 5, new RowBuffer(16)))
                    .isInstanceOf(DeserializationException.class)
                    .hasMessageContaining("bad magic byte 0x01");
            assertThatThrownBy(() -> transcoder.transcode(new byte[] {0, 0, 0, 0, 99}, 0, 5, new RowBuffer(16)))
                    .isInstanceOf(DeserializationException.class)
                    .hasMessageContaining("unknown schema id 99");
            assertThatThrownBy(() -> transcoder.encode(new Payload(), null, new RowBuffer(16)))
                    .isInstanceOf(DeserializationException.class)
                    .hasMessageContaining("tombstone");
        }
    }

    @Test
    void transcodingAllocatesNothingPerRecord() {
        AvroRowMapping mapping = everyType();
        AvroRowTranscoder transcoder = AvroRowTranscoder.raw(mapping, ORDER).build();
        Random random = new Random(11);
        byte[][] bodies = new byte[64][];
        for (int i = 0; i < bodies.length; i++) {
            bodies[i] = AvroWireFormat.raw(ORDER, order(random));
        }
        assertAllocatesNothingPerRecord(transcoder, bodies);
    }

    /** 20,000 payloads (cycling through {@code payloads}) after a warm-up round allocate (almost) nothing. */
    static void assertAllocatesNothingPerRecord(AvroRowTranscoder transcoder, byte[][] payloads) {
        RowBuffer out = new RowBuffer(1 << 16);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        for (int round = 0; round < 2; round++) {
            long before = threads.getThreadAllocatedBytes(thread);
            for (int i = 0; i < 20_000; i++) {
                out.reset();
                byte[] payload = payloads[i % payloads.length];
                transcoder.transcode(payload, 0, payload.length, out);
            }
            long allocated = threads.getThreadAllocatedBytes(thread) - before;
            if (round == 1) {
                // The measurement's own calls may allocate a little; per record it must be nothing.
                assertThat(allocated).as("bytes allocated for 20,000 records").isLessThan(20_000);
            }
        }
    }
}
