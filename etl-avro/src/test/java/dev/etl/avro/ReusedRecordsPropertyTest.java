package dev.etl.avro;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.avro.generated.ReuseLine;
import dev.etl.avro.generated.ReuseOrder;
import dev.etl.sink.RowBuffer;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.util.Utf8;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Decoding into the lane's reused record (issue 34) gives exactly what a fresh decode by Avro's own
 * reader gives: random orders of two writer versions in a random order, arrays of records that grow and
 * shrink, nullable strings, records and primitives that go null and back — nothing of a previous record
 * may leak into the next (an element past the new length, a non-null where the new record has null). For
 * generated classes, whose primitives the decoder sets through typed setters, and for generic records. And
 * the object path of a generated class allocates nothing per record: decode, then write every field into
 * a {@link RowBuffer}.
 *
 * <p>Seeded: each seed is a reproducible case (the test name shows it); 200 seeds × 40 records.
 */
class ReusedRecordsPropertyTest {
    /** Version 1: {@code small} an int and {@code ratio} a float (promoted by v2), a field v2 removed, no coupon/channel/tags. */
    static final Schema V1 = TestSchemas.parse("""
            {"type": "record", "name": "ReuseOrder", "namespace": "dev.etl.avro.generated", "fields": [
              {"name": "id", "type": "long"},
              {"name": "customer", "type": "string"},
              {"name": "legacy", "type": ["null", "string"]},
              {"name": "status", "type": {"type": "enum", "name": "ReuseStatus", "symbols": ["NEW", "PAID", "SHIPPED", "CANCELLED"]}},
              {"name": "updated_ms", "type": "long"},
              {"name": "small", "type": "int"},
              {"name": "ratio", "type": "float"},
              {"name": "weight", "type": "float"},
              {"name": "paid", "type": "boolean"},
              {"name": "quantity", "type": "int"},
              {"name": "parent", "type": ["null", {"type": "record", "name": "ReuseRef", "fields": [
                {"name": "ref_id", "type": "long"}, {"name": "label", "type": ["null", "string"]}]}]},
              {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "ReuseLine", "fields": [
                {"name": "sku", "type": "string"},
                {"name": "qty", "type": "int"},
                {"name": "price_cents", "type": "long"},
                {"name": "discount", "type": ["null", "double"]},
                {"name": "note", "type": ["null", "string"]}]}}}
            ]}""");

    static final Schema V2 = ReuseOrder.getClassSchema();

    /** V2 as a plain schema: generic records of it (no generated class behind it). */
    static final Schema V2_GENERIC = TestSchemas.parse(V2.toString());

    static LongStream seeds() {
        return LongStream.range(0, 200).map(i -> i * 0x9E3779B97F4A7C15L + 5);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void generatedRecordsDecodedIntoTheLastOneEqualFreshOnes(long seed) throws IOException {
        AvroTarget<ReuseOrder> target = AvroTarget.specific(ReuseOrder.class);
        BodyDecoder<ReuseOrder> v1 = target.decoderFor(V1, true, "v1");
        BodyDecoder<ReuseOrder> v2 = target.decoderFor(V2, true, "v2");
        assertThat(v1.fast()).isTrue();
        assertThat(v2.fast()).isTrue();
        RandomData data = new RandomData(seed);
        Random versions = new Random(seed);
        ReuseOrder reused = null;
        for (int i = 0; i < 40; i++) {
            Schema writer = versions.nextBoolean() ? V1 : V2;
            byte[] body = AvroWireFormat.raw(writer, data.record(writer));
            ReuseOrder expected = new SpecificDatumReader<ReuseOrder>(writer, V2)
                    .read(null, DecoderFactory.get().binaryDecoder(body, null));
            ReuseOrder decoded = (writer == V1 ? v1 : v2).decode(body, 0, body.length, reused);
            // Field by field: a generated class's equals (SpecificData.compare) finds a NaN float unequal to itself.
            for (int f = 0; f < V2.getFields().size(); f++) {
                assertThat(decoded.get(f))
                        .as(
                                "record %d (%s), field %s",
                                i,
                                writer == V1 ? "v1" : "v2",
                                V2.getFields().get(f).name())
                        .isEqualTo(expected.get(f));
            }
            assertThat(decoded).hasToString(expected.toString());
            if (reused != null) {
                assertThat(decoded).as("the same object").isSameAs(reused);
            }
            reused = decoded;
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void genericRecordsDecodedIntoTheLastOneEqualFreshOnes(long seed) throws IOException {
        AvroTarget<GenericRecord> target = AvroTarget.generic(V2_GENERIC);
        BodyDecoder<GenericRecord> v1 = target.decoderFor(V1, true, "v1");
        BodyDecoder<GenericRecord> v2 = target.decoderFor(V2_GENERIC, true, "v2");
        RandomData data = new RandomData(seed);
        Random versions = new Random(seed);
        GenericRecord reused = null;
        for (int i = 0; i < 40; i++) {
            Schema writer = versions.nextBoolean() ? V1 : V2_GENERIC;
            byte[] body = AvroWireFormat.raw(writer, data.record(writer));
            GenericRecord expected = new GenericDatumReader<GenericRecord>(writer, V2_GENERIC)
                    .read(null, DecoderFactory.get().binaryDecoder(body, null));
            reused = (writer == V1 ? v1 : v2).decode(body, 0, body.length, reused);
            assertThat(reused)
                    .as("record %d (%s)", i, writer == V1 ? "v1" : "v2")
                    .isEqualTo(expected);
        }
    }

    @Test
    void primitivesOfGeneratedClassesAreSetThroughTheirTypedSetters() throws IOException {
        // The setter is what the check found: a class whose setter wrote elsewhere would keep put().
        ReuseOrder order = AvroTarget.specific(ReuseOrder.class)
                .decoderFor(V1, true, "v1")
                .decode(body(V1, 1), 0, body(V1, 1).length, null);
        assertThat(order.getSmall()).isEqualTo(order.getId() % 1000);
        assertThat(order.getRatio()).isEqualTo(0.5d);
        assertThat(order.getPaid()).isTrue();
    }

    @Test
    void theObjectPathOfAGeneratedClassAllocatesNothingPerRecord() throws IOException {
        for (Schema writer : List.of(V1, V2)) {
            BodyDecoder<ReuseOrder> decoder =
                    AvroTarget.specific(ReuseOrder.class).decoderFor(writer, true, "w");
            byte[][] bodies = new byte[64][];
            for (int i = 0; i < bodies.length; i++) {
                bodies[i] = body(writer, i);
            }
            RowBuffer out = new RowBuffer(1 << 16);
            com.sun.management.ThreadMXBean threads =
                    (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long thread = Thread.currentThread().getId();
            ReuseOrder reused = null;
            for (int round = 0; round < 3; round++) {
                long before = threads.getThreadAllocatedBytes(thread);
                for (int i = 0; i < 20_000; i++) {
                    byte[] body = bodies[i % bodies.length];
                    reused = decoder.decode(body, 0, body.length, reused);
                    out.reset();
                    write(reused, out);
                }
                long allocated = threads.getThreadAllocatedBytes(thread) - before;
                if (round == 2) {
                    // The measurement's own calls may allocate a little; per record it must be nothing.
                    assertThat(allocated)
                            .as("bytes allocated for 20,000 records of %s", writer == V1 ? "v1" : "v2")
                            .isLessThan(20_000);
                }
            }
        }
    }

    @Test
    void decodedStringsAreWrittenAsTheirBytes() throws IOException {
        ReuseOrder order = AvroTarget.specific(ReuseOrder.class)
                .decoderFor(V2, true, "v2")
                .decode(body(V2, 3), 0, body(V2, 3).length, null);
        assertThat(order.getCustomer()).isInstanceOf(dev.etl.sink.Utf8CharSequence.class);
        RowBuffer viaBytes = new RowBuffer(64).writeString(order.getCustomer());
        RowBuffer viaChars = new RowBuffer(64).writeString(order.getCustomer().toString());
        assertThat(viaBytes.toByteArray()).isEqualTo(viaChars.toByteArray());
    }

    /**
     * An order of {@code writer} whose nullable fields vary with {@code i} (null and back) and whose
     * lines grow and shrink; no nullable primitive is set: a generated class stores it boxed
     * ({@code Double}), which Avro's class shape forces.
     */
    private static byte[] body(Schema writer, int i) {
        GenericRecord order = new GenericData.Record(writer);
        order.put("id", 1_000_000L + i);
        order.put("customer", new Utf8("customer-" + i + (i % 3 == 0 ? "-é€😀" : "")));
        order.put("status", new GenericData.EnumSymbol(writer.getField("status").schema(), "PAID"));
        order.put("updated_ms", 1_700_000_000_000L + i);
        order.put(
                "small", writer == V1 ? (Object) (int) ((1_000_000L + i) % 1000) : (Object) ((1_000_000L + i) % 1000));
        order.put("ratio", writer == V1 ? (Object) 0.5f : (Object) 0.5d);
        order.put("weight", 1.25f * i);
        order.put("paid", true);
        order.put("quantity", 1000 + i);
        if (writer == V1) {
            order.put("legacy", i % 2 == 0 ? null : new Utf8("legacy-" + i));
        } else {
            order.put("coupon", i % 2 == 0 ? null : new Utf8("coupon-" + i));
            order.put("channel", new Utf8("web"));
            order.put(
                    "tags",
                    new GenericData.Array<>(writer.getField("tags").schema(), List.of(new Utf8("a"), new Utf8("b"))));
        }
        Schema refSchema = writer.getField("parent").schema().getTypes().get(1);
        if (i % 3 != 0) {
            GenericRecord ref = new GenericData.Record(refSchema);
            ref.put("ref_id", (long) i);
            ref.put("label", i % 2 == 0 ? null : new Utf8("label-" + i));
            order.put("parent", ref);
        }
        Schema linesSchema = writer.getField("lines").schema();
        GenericData.Array<GenericRecord> lines = new GenericData.Array<>(0, linesSchema);
        for (int l = 0; l < i % 5; l++) {
            GenericRecord line = new GenericData.Record(linesSchema.getElementType());
            line.put("sku", new Utf8("sku-" + i + "-" + l));
            line.put("qty", l + 1);
            line.put("price_cents", 100_000L * l + i);
            line.put("note", (i + l) % 2 == 0 ? null : new Utf8("note"));
            lines.add(line);
        }
        order.put("lines", lines);
        return AvroWireFormat.raw(writer, order);
    }

    /** Every field the way an encoder of the table writes it: typed getters, strings as CharSequences. */
    private static void write(ReuseOrder order, RowBuffer out) {
        out.writeLongLE(order.getId());
        out.writeString(order.getCustomer());
        out.writeByte(order.getStatus().ordinal());
        out.writeLongLE(order.getUpdatedMs());
        out.writeLongLE(order.getSmall());
        out.writeDoubleLE(order.getRatio());
        out.writeFloatLE(order.getWeight());
        out.writeByte(order.getPaid() ? 1 : 0);
        out.writeIntLE(order.getQuantity());
        CharSequence coupon = order.getCoupon();
        out.writeByte(coupon == null ? 1 : 0);
        if (coupon != null) {
            out.writeString(coupon);
        }
        out.writeLongLE(order.getParent() == null ? -1 : order.getParent().getRefId());
        out.writeString(order.getChannel());
        List<ReuseLine> lines = order.getLines();
        out.writeVarUInt(lines.size());
        for (int l = 0; l < lines.size(); l++) {
            ReuseLine line = lines.get(l);
            out.writeString(line.getSku());
            out.writeIntLE(line.getQty());
            out.writeLongLE(line.getPriceCents());
            CharSequence note = line.getNote();
            out.writeByte(note == null ? 1 : 0);
            if (note != null) {
                out.writeString(note);
            }
        }
        List<CharSequence> tags = order.getTags();
        for (int t = 0; t < tags.size(); t++) {
            out.writeString(tags.get(t));
        }
    }
}
