package dev.etl.avro.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.avro.AvroWireFormat;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.clickhouse.ColumnEncodeException;
import dev.etl.deser.Deserializer;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.record.Payload;
import dev.etl.sink.MultiRowEncoder;
import dev.etl.sink.RowBuffer;
import dev.etl.test.avro.StubSchemaRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

/**
 * The record view ({@link AvroView}) against a reference model: every accessor equals what Avro's
 * {@code GenericDatumReader(writer, reader)} decodes from the same bytes (seeded random orders, in a v1 writer
 * schema that lacks fields, promotes {@code id} from int and orders the enum's symbols differently, and in the
 * reader schema v2; arrays in one block and in Avro's blocked form), and the view path's rows equal the
 * transcoder's for the same columns computed by {@link ColumnSource} expressions.
 */
class AvroViewTest {
    static final Schema ORDER = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "namespace": "v", "fields": [
              {"name": "id", "type": "long"},
              {"name": "customer", "type": "string"},
              {"name": "status", "type": {"type": "enum", "name": "Status",
                  "symbols": ["NEW", "PAID", "SHIPPED", "CANCELLED"]}},
              {"name": "updated_ms", "type": "long"},
              {"name": "shipping", "type": {"type": "record", "name": "Address", "fields": [
                  {"name": "city", "type": "string"},
                  {"name": "zip", "type": "int"}]}},
              {"name": "express", "type": "boolean"},
              {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line",
                  "fields": [
                    {"name": "sku", "type": "string"},
                    {"name": "quantity", "type": "int"},
                    {"name": "price_cents", "type": "long"},
                    {"name": "weight", "type": "float", "default": 1.5}]}}},
              {"name": "coupon", "type": ["null", "string"], "default": null},
              {"name": "discount", "type": "double", "default": 0.5}
            ]}""");
    /** v1: no coupon, no discount, no lines.weight; id an int; the enum's symbols in another order. */
    static final Schema ORDER_V1 = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "namespace": "v", "fields": [
              {"name": "id", "type": "int"},
              {"name": "customer", "type": "string"},
              {"name": "status", "type": {"type": "enum", "name": "Status",
                  "symbols": ["PAID", "NEW", "CANCELLED", "SHIPPED"]}},
              {"name": "updated_ms", "type": "long"},
              {"name": "shipping", "type": {"type": "record", "name": "Address", "fields": [
                  {"name": "city", "type": "string"},
                  {"name": "zip", "type": "int"}]}},
              {"name": "express", "type": "boolean"},
              {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line",
                  "fields": [
                    {"name": "sku", "type": "string"},
                    {"name": "quantity", "type": "int"},
                    {"name": "price_cents", "type": "long"}]}}}
            ]}""");

    // tag::view-mapping[]
    /** The table's columns: three read from fields, three computed by the chain (set through the view). */
    static AvroRowMapping headers() {
        return AvroRowMapping.builder(ORDER)
                .column("order_id", "UInt64", "id")
                .column("customer", "String")
                .column("status", "Enum8('NEW' = 0, 'PAID' = 1, 'SHIPPED' = 2, 'CANCELLED' = 3)")
                .computed("line_count", "UInt16") // set by the chain through the view
                .computed("quantity", "UInt32")
                .computed("total", "Decimal(18, 2)")
                .column("coupon", "Nullable(String)")
                .column("updated_ms", "Int64")
                .shardKey("id")
                .build();
    }
    // end::view-mapping[]

    /** The same table with the transcoder's own computed columns. */
    static AvroRowMapping headersComputedByTranscoder() {
        return AvroRowMapping.builder(ORDER)
                .column("order_id", "UInt64", "id")
                .column("customer", "String")
                .column("status", "Enum8('NEW' = 0, 'PAID' = 1, 'SHIPPED' = 2, 'CANCELLED' = 3)")
                .column("line_count", "UInt16", "length(lines)")
                .column("quantity", "UInt32", "sum(lines.quantity)")
                .column("total", "Decimal(18, 2)", "sum(lines.quantity * lines.price_cents)")
                .column("coupon", "Nullable(String)")
                .column("updated_ms", "Int64")
                .shardKey("id")
                .build();
    }

    /** Drives one lane's view path by hand: deserializer, a Java filter and map, the view encoder. */
    static final class Lane {
        final AvroRowTranscoder transcoder;
        final Deserializer<AvroView> views;
        final MultiRowEncoder<AvroView> encoder;
        final Payload payload = new Payload();
        AvroView current;

        Lane(AvroRowTranscoder transcoder) {
            this.transcoder = transcoder;
            this.views = transcoder.views();
            this.encoder = transcoder.viewEncoder();
        }

        /**
         * The view of {@code body}, or null when a condition of the mapping dropped it. The body lies at an offset
         * in a larger array, between other bytes, as a payload in a poll's buffer does.
         */
        AvroView read(byte[] body) throws Exception {
            current = null;
            byte[] framed = new byte[body.length + 10];
            Arrays.fill(framed, (byte) 0x55);
            System.arraycopy(body, 0, framed, 3, body.length);
            views.deserialize(null, payload.wrap(framed, 3, body.length), null, v -> current = v);
            return current;
        }
    }

    // tag::view-chain[]
    static final class Totals {
        final AvroView.EnumField status;
        final int cancelled;
        final AvroView.ArrayField lines;
        final AvroView.IntField qty;
        final AvroView.LongField price;
        final AvroView.Slot lineCount;
        final AvroView.Slot quantity;
        final AvroView.Slot total;

        Totals(AvroRowMapping mapping) {
            AvroView.Fields f = AvroView.fields(mapping); // handles: once, shared by lanes
            status = f.enumField("status");
            cancelled = status.ordinalOf("CANCELLED");
            lines = f.array("lines");
            qty = lines.intField("quantity"); // a field of the array's element record
            price = lines.longField("price_cents");
            lineCount = f.slot("line_count"); // the mapping's computed columns
            quantity = f.slot("quantity");
            total = f.slot("total");
        }

        /** The chain's filter. */
        boolean notCancelled(AvroView v) {
            return v.ordinal(status) != cancelled;
        }

        /** The chain's map: the three computed columns, from the lines iterated in place. */
        AvroView totals(AvroView v) {
            long q = 0;
            long cents = 0;
            int n = v.size(lines);
            for (int i = 0; i < n; i++) {
                int lineQty = v.get(qty, i);
                q += lineQty;
                cents += lineQty * v.get(price, i);
            }
            return v.set(lineCount, n).set(quantity, q).set(total, cents);
        }
    }
    // end::view-chain[]

    // tag::view-wiring[]
    /** The chain: the payload read into the lane's view, Java filter and map, rows written from the view. */
    static ChainFactory chains(AvroRowTranscoder.Builder transcoders, Totals totals) {
        return ctx -> {
            AvroRowTranscoder t = transcoders.build(); // per lane: owns the cursor and the view
            return Chains.from(ctx, t.views())
                    .filter("not-cancelled", totals::notCancelled)
                    .map("totals", totals::totals)
                    .sink(t.viewEncoder(), t.viewRouter());
        };
    }
    // end::view-wiring[]

    @Test
    void theChainBuildsOnTheEngine() {
        assertThat(chains(AvroRowTranscoder.raw(headers(), ORDER), new Totals(headers())))
                .isNotNull();
    }

    @Test
    void accessorsEqualWhatAvroDecodesFromTheSameBytes() throws Exception {
        AvroRowMapping mapping = headers();
        AvroView.Fields f = AvroView.fields(mapping);
        AvroView.LongField id = f.longField("id");
        AvroView.StringField customer = f.stringField("customer");
        AvroView.EnumField status = f.enumField("status");
        AvroView.LongField updated = f.longField("updated_ms");
        AvroView.StringField city = f.stringField("shipping.city");
        AvroView.IntField zip = f.intField("shipping.zip");
        AvroView.LongField zipAsLong = f.longField("shipping.zip");
        AvroView.BooleanField express = f.booleanField("express");
        AvroView.StringField coupon = f.stringField("coupon");
        AvroView.DoubleField discount = f.doubleField("discount");
        AvroView.DoubleField idAsDouble = f.doubleField("id");
        AvroView.ArrayField lines = f.array("lines");
        AvroView.StringField sku = lines.stringField("sku");
        AvroView.IntField qty = lines.intField("quantity");
        AvroView.LongField price = lines.longField("price_cents");
        AvroView.DoubleField weight = lines.doubleField("weight");

        SplittableRandom random = new SplittableRandom(34);
        for (Schema writer : List.of(ORDER_V1, ORDER)) {
            Lane lane = new Lane(AvroRowTranscoder.raw(mapping, writer).build());
            for (int n = 0; n < 500; n++) {
                GenericRecord order = randomOrder(writer, random);
                byte[] body = encode(order, random.nextInt(4) == 0);
                GenericRecord expected = new GenericDatumReader<GenericRecord>(writer, ORDER)
                        .read(null, DecoderFactory.get().binaryDecoder(body, null));
                AvroView v = lane.read(body);
                assertThat(v).isNotNull();
                assertThat(v.get(id)).isEqualTo(expected.get("id"));
                assertThat(v.get(idAsDouble)).isEqualTo(((Long) expected.get("id")).doubleValue());
                assertThat(v.string(customer).toString())
                        .isEqualTo(expected.get("customer").toString());
                assertThat(v.equals(customer, expected.get("customer").toString()))
                        .isTrue();
                assertThat(v.equals(customer, expected.get("customer") + "x")).isFalse();
                assertThat(status.symbols().get(v.ordinal(status)))
                        .isEqualTo(expected.get("status").toString());
                assertThat(v.get(updated)).isEqualTo(expected.get("updated_ms"));
                GenericRecord shipping = (GenericRecord) expected.get("shipping");
                assertThat(v.string(city).toString())
                        .isEqualTo(shipping.get("city").toString());
                assertThat(v.get(zip)).isEqualTo(shipping.get("zip"));
                assertThat(v.get(zipAsLong)).isEqualTo(((Integer) shipping.get("zip")).longValue());
                assertThat(v.get(express)).isEqualTo(expected.get("express"));
                Object c = expected.get("coupon");
                assertThat(v.isNull(coupon)).isEqualTo(c == null);
                if (c != null) {
                    assertThat(v.string(coupon).toString()).isEqualTo(c.toString());
                } else {
                    assertThatThrownBy(() -> v.string(coupon))
                            .isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("isNull");
                }
                assertThat(v.get(discount)).isEqualTo(expected.get("discount"));
                List<?> expectedLines = (List<?>) expected.get("lines");
                assertThat(v.size(lines)).isEqualTo(expectedLines.size());
                // Random access, in any order, twice: positions are kept for the record.
                for (int pass = 0; pass < 2; pass++) {
                    for (int i = expectedLines.size() - 1; i >= 0; i--) {
                        GenericRecord line = (GenericRecord) expectedLines.get(i);
                        assertThat(v.string(sku, i).toString())
                                .isEqualTo(line.get("sku").toString());
                        assertThat(v.get(qty, i)).isEqualTo(line.get("quantity"));
                        assertThat(v.get(price, i)).isEqualTo(line.get("price_cents"));
                        assertThat(v.get(weight, i)).isEqualTo(((Float) line.get("weight")).doubleValue());
                    }
                }
                int size = expectedLines.size();
                assertThatThrownBy(() -> v.get(qty, size)).isInstanceOf(IndexOutOfBoundsException.class);
            }
        }
    }

    @Test
    void rowsEqualTheTranscodersWithColumnSourceComputedColumns() throws Exception {
        Totals totals = new Totals(headers());
        SplittableRandom random = new SplittableRandom(3434);
        for (Schema writer : List.of(ORDER_V1, ORDER)) {
            Lane lane = new Lane(AvroRowTranscoder.raw(headers(), writer).build());
            AvroRowTranscoder reference =
                    AvroRowTranscoder.raw(headersComputedByTranscoder(), writer).build();
            RowBuffer viewRows = new RowBuffer(64);
            RowBuffer expected = new RowBuffer(64);
            int written = 0;
            for (int n = 0; n < 500; n++) {
                byte[] body = encode(randomOrder(writer, random), random.nextBoolean());
                AvroView v = lane.read(body);
                if (!totals.notCancelled(v)) {
                    continue;
                }
                written += lane.encoder.encodeRows(totals.totals(v), null, viewRows);
                reference.transcode(body, 0, body.length, expected);
            }
            assertThat(written).isPositive();
            assertThat(viewRows.toByteArray()).isEqualTo(expected.toByteArray());
        }
    }

    @Test
    void confluentPayloadsOfTwoWriterSchemasOnOneLaneAreReadByTheirOwnPlans() throws Exception {
        Totals totals = new Totals(headers());
        AvroView.StringField customer = AvroView.fields(headers()).stringField("customer");
        try (StubSchemaRegistry stub = StubSchemaRegistry.start()) {
            stub.put(1, ORDER_V1);
            stub.put(2, ORDER);
            SchemaRegistryClient registry =
                    SchemaRegistryClient.builder(stub.url()).build();
            AvroRowTranscoder.Builder shared = AvroRowTranscoder.confluent(headers(), registry);
            Lane lane = new Lane(shared.build());
            AvroRowTranscoder v1 = AvroRowTranscoder.raw(headersComputedByTranscoder(), ORDER_V1)
                    .build();
            AvroRowTranscoder v2 =
                    AvroRowTranscoder.raw(headersComputedByTranscoder(), ORDER).build();
            SplittableRandom random = new SplittableRandom(12);
            RowBuffer out = new RowBuffer(64);
            RowBuffer expected = new RowBuffer(64);
            for (int n = 0; n < 200; n++) {
                boolean old = random.nextBoolean();
                GenericRecord order = randomOrder(old ? ORDER_V1 : ORDER, random);
                byte[] body = encode(order, false);
                AvroView v = lane.read(AvroWireFormat.confluent(old ? 1 : 2, order.getSchema(), order));
                assertThat(v.string(customer).toString())
                        .isEqualTo(order.get("customer").toString());
                lane.encoder.encodeRows(totals.totals(v), null, out);
                (old ? v1 : v2).transcode(body, 0, body.length, expected);
            }
            assertThat(out.toByteArray()).isEqualTo(expected.toByteArray());
            assertThat(shared.compilations())
                    .as("compiled once per writer schema")
                    .isEqualTo(2);
        }
    }

    @Test
    void routerShardsByTheScannedKey() throws Exception {
        Lane lane = new Lane(AvroRowTranscoder.raw(headers(), ORDER).build());
        var router = lane.transcoder.viewRouter();
        var reference = dev.etl.sink.KeyHashRouter.<Long>byKey(Long::longValue);
        SplittableRandom random = new SplittableRandom(7);
        for (int n = 0; n < 200; n++) {
            GenericRecord order = randomOrder(ORDER, random);
            AvroView v = lane.read(encode(order, false));
            assertThat(router.shard(v, null, 4)).isEqualTo(reference.shard((Long) order.get("id"), null, 4));
        }
    }

    @Test
    void explodedRowsCarryTheSlotsOfTheirRecord() throws Exception {
        AvroRowMapping lines = AvroRowMapping.builder(ORDER)
                .explode("lines")
                .column("order_id", "UInt64", "id")
                .index("line", "UInt16")
                .column("sku", "String", "lines.sku")
                .computed("line_count", "UInt16")
                .build();
        AvroRowMapping reference = AvroRowMapping.builder(ORDER)
                .explode("lines")
                .column("order_id", "UInt64", "id")
                .index("line", "UInt16")
                .column("sku", "String", "lines.sku")
                .column("line_count", "UInt16", "length(lines)")
                .build();
        AvroView.Fields f = AvroView.fields(lines);
        AvroView.ArrayField array = f.array("lines");
        AvroView.Slot count = f.slot("line_count");
        SplittableRandom random = new SplittableRandom(11);
        for (Schema writer : List.of(ORDER_V1, ORDER)) {
            Lane lane = new Lane(AvroRowTranscoder.raw(lines, writer).build());
            AvroRowTranscoder expected =
                    AvroRowTranscoder.raw(reference, writer).build();
            RowBuffer out = new RowBuffer(64);
            RowBuffer ref = new RowBuffer(64);
            for (int n = 0; n < 300; n++) {
                byte[] body = encode(randomOrder(writer, random), random.nextBoolean());
                AvroView v = lane.read(body);
                int rows = lane.encoder.encodeRows(v.set(count, v.size(array)), null, out);
                assertThat(rows).isEqualTo(expected.transcode(body, 0, body.length, ref));
            }
            assertThat(out.toByteArray()).isEqualTo(ref.toByteArray());
        }
    }

    @Test
    void aRecordTheMappingDropsReachesNoOperator() throws Exception {
        AvroRowMapping paid = AvroRowMapping.builder(ORDER)
                .column("order_id", "UInt64", "id")
                .keepWhen("status", "PAID")
                .build();
        AvroView.EnumField status = AvroView.fields(paid).enumField("status");
        Lane lane = new Lane(AvroRowTranscoder.raw(paid, ORDER).build());
        SplittableRandom random = new SplittableRandom(5);
        for (int n = 0; n < 100; n++) {
            GenericRecord order = randomOrder(ORDER, random);
            AvroView v = lane.read(encode(order, false));
            if (order.get("status").toString().equals("PAID")) {
                assertThat(v).isNotNull();
                assertThat(status.symbols().get(v.ordinal(status))).isEqualTo("PAID");
            } else {
                assertThat(v).isNull();
            }
        }
    }

    @Test
    void aSlotNotSetFailsTheEncodeNamingItsColumn() throws Exception {
        Lane lane = new Lane(AvroRowTranscoder.raw(headers(), ORDER).build());
        AvroView.Slot quantity = AvroView.fields(headers()).slot("quantity");
        AvroView v = lane.read(encode(randomOrder(ORDER, new SplittableRandom(1)), false));
        v.set(quantity, 3);
        assertThatThrownBy(() -> lane.encoder.encodeRows(v, null, new RowBuffer(16)))
                .isInstanceOf(ColumnEncodeException.class)
                .hasMessageContaining("line_count")
                .hasMessageContaining("not set");
    }

    @Test
    void aViewEncodedTwiceIsRefused() throws Exception {
        Totals totals = new Totals(headers());
        Lane lane = new Lane(AvroRowTranscoder.raw(headers(), ORDER).build());
        AvroView v = lane.read(encode(randomOrder(ORDER, new SplittableRandom(2)), false));
        RowBuffer out = new RowBuffer(64);
        lane.encoder.encodeRows(totals.totals(v), null, out);
        // A stateful operator that kept the view and emits it again:
        assertThatThrownBy(() -> lane.encoder.encodeRows(v, null, out))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already encoded");
    }

    @Test
    void theTranscodersPayloadPathCannotFillSlots() {
        AvroRowTranscoder t = AvroRowTranscoder.raw(headers(), ORDER).build();
        byte[] body = encode(randomOrder(ORDER, new SplittableRandom(3)), false);
        assertThatThrownBy(() -> t.transcode(body, 0, body.length, new RowBuffer(16)))
                .isInstanceOf(ColumnEncodeException.class)
                .hasMessageContaining("views()");
    }

    @Test
    void handlesNamingMissingFieldsOrOtherTypesFailWhenMade() {
        AvroView.Fields f = AvroView.fields(headers());
        assertThatThrownBy(() -> f.longField("updatedms"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("did you mean 'updated_ms'");
        assertThatThrownBy(() -> f.intField("customer"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not an int field");
        assertThatThrownBy(() -> f.array("lines").intField("qty"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("did you mean 'quantity'");
        assertThatThrownBy(() -> f.array("customer")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> f.slot("totals"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[line_count, quantity, total]");
        assertThatThrownBy(() -> f.enumField("status").ordinalOf("LOST")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> AvroRowMapping.builder(ORDER).computed("c", "String"))
                .isInstanceOf(AvroMappingException.class);
    }

    @Test
    void aWarmLaneAllocatesNothingPerRecord() throws Exception {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Totals totals = new Totals(headers());
        Lane lane = new Lane(AvroRowTranscoder.raw(headers(), ORDER).build());
        SplittableRandom random = new SplittableRandom(9);
        byte[][] bodies = new byte[64][];
        for (int i = 0; i < bodies.length; i++) {
            bodies[i] = encode(randomOrder(ORDER, random), false);
        }
        RowBuffer out = new RowBuffer(1 << 20);
        AvroView.StringField customer = AvroView.fields(headers()).stringField("customer");
        long[] sink = new long[1];
        dev.etl.record.Collector<AvroView> collector = v -> {
            if (totals.notCancelled(v) && !v.equals(customer, "nobody")) {
                try {
                    sink[0] += lane.encoder.encodeRows(totals.totals(v), null, out);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        };
        Payload payload = new Payload();
        long allocated = Long.MAX_VALUE;
        // Until the JIT has compiled the path: at least 30 rounds, and on a loaded machine more, for up to 30 s.
        // The path allocates nothing even without escape analysis (checked with -XX:-DoEscapeAnalysis: CI's
        // JIT once kept an iterator that this machine's removed, 49 B/record, when handles of two Fields
        // instances alternated). The bound is on time, not on the assertion.
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        for (int round = 0; allocated >= 20_000 && (round < 30 || System.nanoTime() < deadline); round++) {
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 20_000; i++) {
                if ((i & 1023) == 0) {
                    out.reset();
                }
                lane.views.deserialize(null, payload.wrap(bodies[i & 63]), null, collector);
            }
            allocated = threads.getCurrentThreadAllocatedBytes() - before;
        }
        assertThat(allocated).as("bytes allocated for 20,000 records, warm").isLessThan(20_000);
        assertThat(sink[0]).isPositive();
    }

    static GenericRecord randomOrder(Schema schema, SplittableRandom random) {
        GenericRecord order = new GenericData.Record(schema);
        boolean intId = schema.getField("id").schema().getType() == Schema.Type.INT;
        order.put(
                "id",
                intId ? (Object) random.nextInt(0, Integer.MAX_VALUE) : (Object) random.nextLong(0, Long.MAX_VALUE));
        order.put("customer", random.nextInt(10) == 0 ? "Zoë Ünïcode-" + random.nextInt(99) : "c-" + random.nextInt());
        Schema status = schema.getField("status").schema();
        order.put(
                "status",
                new GenericData.EnumSymbol(status, status.getEnumSymbols().get(random.nextInt(4))));
        order.put("updated_ms", random.nextLong(0, 1L << 42));
        GenericRecord shipping =
                new GenericData.Record(schema.getField("shipping").schema());
        shipping.put("city", random.nextBoolean() ? "" : "city-" + random.nextInt(1000));
        shipping.put("zip", random.nextInt(-5, 99_999));
        order.put("shipping", shipping);
        order.put("express", random.nextBoolean());
        Schema line = schema.getField("lines").schema().getElementType();
        List<GenericRecord> lines = new ArrayList<>();
        int n = random.nextInt(10) == 0 ? random.nextInt(20, 80) : random.nextInt(0, 6);
        for (int i = 0; i < n; i++) {
            GenericRecord l = new GenericData.Record(line);
            l.put("sku", "sku-" + random.nextInt(100_000));
            l.put("quantity", random.nextInt(1, 50));
            l.put("price_cents", random.nextLong(0, 100_000));
            if (line.getField("weight") != null) {
                l.put("weight", (float) random.nextDouble(0, 10));
            }
            lines.add(l);
        }
        order.put("lines", lines);
        if (schema.getField("coupon") != null) {
            order.put("coupon", random.nextBoolean() ? null : "C" + random.nextInt(100));
        }
        if (schema.getField("discount") != null) {
            order.put("discount", random.nextDouble());
        }
        return order;
    }

    /** The record's Avro body; {@code blocked}: arrays in Avro's blocked form (byte sizes, several blocks). */
    static byte[] encode(GenericRecord record, boolean blocked) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            BinaryEncoder encoder = blocked
                    ? new EncoderFactory().configureBlockSize(64).blockingBinaryEncoder(bytes, null)
                    : EncoderFactory.get().binaryEncoder(bytes, null);
            new GenericDatumWriter<GenericRecord>(record.getSchema()).write(record, encoder);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Arrays.copyOf(bytes.toByteArray(), bytes.size());
    }
}
