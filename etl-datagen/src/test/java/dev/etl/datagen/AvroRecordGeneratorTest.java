package dev.etl.datagen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.avro.AvroDeserializer;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.record.Payload;
import dev.etl.test.avro.StubSchemaRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.avro.Conversions;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.junit.jupiter.api.Test;

class AvroRecordGeneratorTest {

    static Schema everyType() throws IOException {
        try (InputStream in = AvroRecordGeneratorTest.class.getResourceAsStream("/every-type.avsc")) {
            return new Schema.Parser().parse(in);
        }
    }

    /** Values of {@code generator} for records 0..count-1 of one partition of {@code partitions}. */
    static List<byte[]> generate(RecordGenerator generator, long seed, int partition, int count) throws Exception {
        List<byte[]> values = new ArrayList<>();
        GeneratedRecord out = new GeneratedRecord();
        DatagenRandom random = new DatagenRandom();
        for (long s = 0; s < count; s++) {
            out.reset(partition, s, s * 4 + partition);
            random.reset(seed, partition, s);
            generator.generate(partition, s, random, out);
            values.add(out.value().toByteArray());
        }
        return values;
    }

    static GenericRecord readFully(Schema schema, byte[] body, int offset) throws IOException {
        BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(body, offset, body.length - offset, null);
        GenericRecord record = new GenericDatumReader<GenericRecord>(schema).read(null, decoder);
        assertThat(decoder.isEnd())
                .as("the body is exactly one datum, nothing after it")
                .isTrue();
        return record;
    }

    @Test
    void everyTypeIsWhatAvrosOwnReaderReadsAndTheHintsHold() throws Exception {
        Schema schema = everyType();
        AvroRecordGenerator generator = AvroRecordGenerator.builder(schema).build();
        List<byte[]> values = generate(generator, 1, 2, 3_000);
        Set<Object> statuses = new HashSet<>();
        Set<Object> eitherTypes = new HashSet<>();
        int nulls = 0;
        for (int s = 0; s < values.size(); s++) {
            GenericRecord r = readFully(schema, values.get(s), 0);
            assertThat(r.get("id")).isEqualTo(s * 4L + 2);
            assertThat(r.get("seq")).isEqualTo(s);
            assertThat(r.get("part")).isEqualTo(2);
            assertThat((int) r.get("small")).isBetween(-5, 5);
            assertThat((int) r.get("anInt")).isBetween(0, 999_999);
            assertThat((long) r.get("aLong")).isBetween(0L, 999_999_999L);
            assertThat((float) r.get("aFloat")).isBetween(1.5f, 2.5f);
            assertThat(r.get("name").toString()).matches("[a-zA-Z0-9]{1,16}");
            assertThat(r.get("fixedLength").toString()).hasSize(12);
            statuses.add(r.get("status").toString());
            assertThat(((ByteBuffer) r.get("blob")).remaining()).isBetween(3, 9);
            assertThat(((GenericFixed) r.get("hash")).bytes()).hasSize(20);
            assertThat(r.get("warm").toString()).isIn("RED", "GREEN");
            assertThat((List<?>) r.get("tags")).hasSizeLessThanOrEqualTo(6);
            assertThat((Map<?, ?>) r.get("attributes")).hasSizeLessThanOrEqualTo(4);
            if (r.get("maybe") == null) {
                nulls++;
            } else {
                assertThat(r.get("maybe").toString()).isIn("x", "y");
            }
            assertThat(r.get("never")).isNotNull();
            assertThat(r.get("always")).isNull();
            eitherTypes.add(r.get("either").getClass().getSimpleName());
            assertThat((int) ((GenericRecord) r.get("nested")).get("qty")).isBetween(1, 3);
            assertThat((List<?>) r.get("lines")).hasSize(2);
            assertThat((long) r.get("ts")).isBetween(1_767_225_600_000L, 1_798_761_599_999L); // 2026
            assertThat((long) r.get("tsMicros") / 1000).isBetween(1_767_225_600_000L, 1_798_761_599_999L);
            assertThat((int) r.get("day")).isBetween(20_454, 20_818);
            assertThat((int) r.get("timeOfDay")).isBetween(0, 86_399_999);
            assertThat(UUID.fromString(r.get("uuid").toString()).version()).isEqualTo(4);
            Conversions.DecimalConversion decimals = new Conversions.DecimalConversion();
            BigDecimal price = decimals.fromBytes(
                    (ByteBuffer) r.get("price"), schema.getField("price").schema(), LogicalTypes.decimal(9, 2));
            assertThat(price.signum()).isNotNegative();
            assertThat(price.precision()).isLessThanOrEqualTo(9);
            BigDecimal big = decimals.fromFixed(
                    (GenericFixed) r.get("bigPrice"),
                    schema.getField("bigPrice").schema(),
                    LogicalTypes.decimal(24, 4));
            assertThat(big.signum()).isNotNegative();
            BigDecimal tiny = decimals.fromFixed(
                    (GenericFixed) r.get("tinyPrice"),
                    schema.getField("tinyPrice").schema(),
                    LogicalTypes.decimal(4, 0));
            assertThat(tiny.intValueExact())
                    .as("4 digits in a 2-byte two's complement")
                    .isBetween(0, 9_999);
        }
        assertThat(statuses).containsExactlyInAnyOrder("NEW", "PAID", "CANCELLED", "ünïcødé");
        assertThat(eitherTypes).containsExactlyInAnyOrder("Integer", "Utf8", "Double");
        assertThat(nulls).as("null-probability 0.5 of 3000").isBetween(1_300, 1_700);
    }

    @Test
    void theSameSeedGivesTheSameBytesAndAnotherSeedOthers() throws Exception {
        AvroRecordGenerator generator = AvroRecordGenerator.builder(everyType()).build();
        List<byte[]> first = generate(generator, 42, 1, 200);
        List<byte[]> again = generate(generator, 42, 1, 200);
        List<byte[]> other = generate(generator, 43, 1, 200);
        for (int i = 0; i < first.size(); i++) {
            assertThat(again.get(i)).isEqualTo(first.get(i));
            assertThat(other.get(i)).isNotEqualTo(first.get(i));
        }
    }

    @Test
    void rawConfluentAndSingleObjectValuesAreWhatAvroDeserializerReads() throws Exception {
        Schema schema = everyType();
        try (StubSchemaRegistry registry = StubSchemaRegistry.start()) {
            int id = registry.register("datagen-value", schema);
            SchemaRegistryClient client =
                    SchemaRegistryClient.builder(registry.url()).build();
            check(
                    AvroRecordGenerator.builder(schema).raw().build(),
                    AvroDeserializer.generic(schema).raw(schema).build());
            check(
                    AvroRecordGenerator.builder(schema).confluent(id).build(),
                    AvroDeserializer.generic(schema).confluent(client).build());
            check(
                    AvroRecordGenerator.builder(schema).singleObject().build(),
                    AvroDeserializer.generic(schema)
                            .singleObject(List.of(schema))
                            .build());
        }
    }

    private static void check(AvroRecordGenerator generator, AvroDeserializer<GenericRecord> deserializer)
            throws Exception {
        List<GenericRecord> decoded = new ArrayList<>();
        Payload value = new Payload();
        for (byte[] bytes : generate(generator, 5, 0, 300)) {
            deserializer.deserialize(
                    new Payload(),
                    value.wrap(bytes),
                    null,
                    (r) -> decoded.add(GenericData.get().deepCopy(r.getSchema(), r)));
        }
        assertThat(decoded).hasSize(300);
        assertThat(decoded).extracting((r) -> (long) r.get("id")).doesNotHaveDuplicates();
    }

    @Test
    void theKeyIsTheIdBigEndianUnlessNone() throws Exception {
        Schema schema = Schema.create(Schema.Type.BOOLEAN);
        GeneratedRecord out = new GeneratedRecord();
        out.reset(1, 2, 9);
        AvroRecordGenerator.builder(schema).build().generate(1, 2, DatagenRandom.of(0, 1, 2), out);
        assertThat(ByteBuffer.wrap(out.key().toByteArray()).getLong()).isEqualTo(9);
        out.reset(1, 2, 9);
        AvroRecordGenerator.builder(schema)
                .key(AvroRecordGenerator.Key.NONE)
                .build()
                .generate(1, 2, DatagenRandom.of(0, 1, 2), out);
        assertThat(out.key().length()).isZero();
    }

    @Test
    void theConfluentHeaderIsMagicZeroAndTheBigEndianId() throws Exception {
        AvroRecordGenerator generator = AvroRecordGenerator.builder(Schema.create(Schema.Type.NULL))
                .confluent(0x01020304)
                .build();
        assertThat(generate(generator, 0, 0, 1).get(0)).containsExactly(0, 1, 2, 3, 4);
        assertThat(generator.schemaId()).isEqualTo(0x01020304);
        assertThat(generator).hasToString("avro[null, confluent id 16909060]");
    }

    @Test
    void anUnknownOrMisplacedHintFailsNamingTheField() {
        assertThatThrownBy(() -> AvroRecordGenerator.builder(
                                schema("{\"name\": \"qty\", \"type\": \"int\", " + "\"datagen\": {\"maximum\": 3}}"))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown datagen hint 'maximum' on T.qty");
        assertThatThrownBy(() -> AvroRecordGenerator.builder(
                                schema("{\"name\": \"qty\", \"type\": \"int\", " + "\"datagen\": {\"length\": 3}}"))
                        .build())
                .hasMessageContaining("'length' does not apply to T.qty (type int)");
        assertThatThrownBy(() -> AvroRecordGenerator.builder(schema(
                                "{\"name\": \"qty\", \"type\": \"int\", " + "\"datagen\": {\"min\": 5, \"max\": 1}}"))
                        .build())
                .hasMessageContaining("T.qty must satisfy min <= max");
        assertThatThrownBy(() -> AvroRecordGenerator.builder(schema("{\"name\": \"c\", \"type\": {\"type\": \"enum\", "
                                + "\"name\": \"C\", \"symbols\": [\"A\"]}, \"datagen\": {\"values\": [\"B\"]}}"))
                        .build())
                .hasMessageContaining("B of T.c is not a symbol of enum C");
        assertThatThrownBy(() -> AvroRecordGenerator.builder(schema("{\"name\": \"s\", \"type\": \"string\", "
                                + "\"datagen\": {\"null-probability\": 0.5}}"))
                        .build())
                .hasMessageContaining("'null-probability' does not apply to T.s");
    }

    @Test
    void aRecursiveSchemaIsRefused() {
        Schema list = new Schema.Parser()
                .parse("{\"type\": \"record\", \"name\": \"Node\", \"fields\": ["
                        + "{\"name\": \"next\", \"type\": [\"null\", \"Node\"]}]}");
        assertThatThrownBy(() -> AvroRecordGenerator.builder(list).build())
                .hasMessageContaining("recursive schemas: Node contains itself at Node.next");
    }

    private static Schema schema(String field) {
        return new Schema.Parser().parse("{\"type\": \"record\", \"name\": \"T\", \"fields\": [" + field + "]}");
    }
}
