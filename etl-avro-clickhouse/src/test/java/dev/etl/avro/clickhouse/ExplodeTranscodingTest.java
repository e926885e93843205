package dev.etl.avro.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.avro.AvroWireFormat;
import dev.etl.clickhouse.ColumnEncodeException;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.error.DeserializationException;
import dev.etl.record.Payload;
import dev.etl.sink.KeyHashRouter;
import dev.etl.sink.RowBuffer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
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
 * {@code explode}, {@code index}, {@code dropWhen}/{@code keepWhen} and {@code shardKey} against a
 * reference model: Avro's {@code GenericDatumReader(writer, reader)} materialises the order, plain
 * Java fans it out into its lines and filters it, and {@link RowBinaryEncoder} writes the rows. Seeded
 * random orders (0–5 lines, every status, nulls, multi-byte strings, edge numbers) in both writer
 * schemas (v1 lacks {@code coupon}, so its column is the reader default), arrays written in one block
 * and in Avro's blocked form (byte sizes, several blocks). {@code -Dtranscoder.explode.seed=<seed>}
 * replays a failure.
 */
class ExplodeTranscodingTest {
    static final Schema ORDER_V2 = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "namespace": "t", "fields": [
              {"name": "id", "type": "long"},
              {"name": "customer", "type": "string"},
              {"name": "status", "type": {"type": "enum", "name": "Status",
                  "symbols": ["NEW", "PAID", "SHIPPED", "CANCELLED"]}},
              {"name": "updated_ms", "type": "long"},
              {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line",
                  "fields": [
                    {"name": "sku", "type": "string"},
                    {"name": "quantity", "type": "int"},
                    {"name": "price_cents", "type": "long"}]}}},
              {"name": "coupon", "type": ["null", "string"], "default": null}
            ]}""");
    static final Schema ORDER_V1 = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "namespace": "t", "fields": [
              {"name": "id", "type": "long"},
              {"name": "customer", "type": "string"},
              {"name": "status", "type": {"type": "enum", "name": "Status",
                  "symbols": ["NEW", "PAID", "SHIPPED", "CANCELLED"]}},
              {"name": "updated_ms", "type": "long"},
              {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line",
                  "fields": [
                    {"name": "sku", "type": "string"},
                    {"name": "quantity", "type": "int"},
                    {"name": "price_cents", "type": "long"}]}}}
            ]}""");
    private static final Map<String, Integer> STATUS = Map.of("NEW", 0, "PAID", 1, "SHIPPED", 2, "CANCELLED", 3);
    private static final String STATUS_TYPE = "Enum8('NEW' = 0, 'PAID' = 1, 'SHIPPED' = 2, 'CANCELLED' = 3)";

    /** The sample's table: one row per line, cancelled orders dropped, sharded by order id. */
    static AvroRowMapping lines() {
        return AvroRowMapping.builder(ORDER_V2)
                .explode("lines")
                .column("order_id", "UInt64", "id")
                .index("line_no", "UInt16")
                .column("customer", "String")
                .column("status", STATUS_TYPE)
                .column("sku", "String", "lines.sku")
                .column("quantity", "UInt32", "lines.quantity")
                .column("price", "Decimal(18, 2)", "lines.price_cents")
                .column("coupon", "Nullable(String)")
                .column("updated_ms", "Int64")
                .dropWhen("status", "CANCELLED")
                .shardKey("id")
                .build();
    }

    /** A row of the reference model. */
    private record Line(GenericRecord order, int index, GenericRecord line) {}

    private static final RowBinaryEncoder<Line> REFERENCE = RowBinaryEncoder.<Line>builder()
            .uint64("order_id", l -> (Long) l.order.get("id"))
            .uint16("line_no", l -> l.index)
            .string("customer", l -> (CharSequence) l.order.get("customer"))
            .enum8("status", STATUS, l -> STATUS.get(l.order.get("status").toString()))
            .string("sku", l -> (CharSequence) l.line.get("sku"))
            .uint32("quantity", l -> (Integer) l.line.get("quantity"))
            .decimal64("price", 2, l -> (Long) l.line.get("price_cents"))
            .nullableString("coupon", l -> (CharSequence) l.order.get("coupon"))
            .int64("updated_ms", l -> (Long) l.order.get("updated_ms"))
            .build();

    private static byte[] reference(Schema writer, byte[] body, boolean dropCancelled) throws IOException {
        GenericRecord order = new GenericDatumReader<GenericRecord>(writer, ORDER_V2)
                .read(null, DecoderFactory.get().binaryDecoder(body, null));
        RowBuffer out = new RowBuffer(64);
        if (dropCancelled && order.get("status").toString().equals("CANCELLED")) {
            return out.toByteArray();
        }
        @SuppressWarnings("unchecked")
        List<GenericRecord> lines = (List<GenericRecord>) order.get("lines");
        for (int i = 0; i < lines.size(); i++) {
            REFERENCE.encode(new Line(order, i, lines.get(i)), out);
        }
        return out.toByteArray();
    }

    private static final String[] TEXT = {"", "a", "zürich", "東京", "x".repeat(130), "emoji 🎉"};

    private static GenericRecord order(Schema schema, SplittableRandom random) {
        GenericData.Record r = new GenericData.Record(schema);
        long[] ids = {0, 1, 127, 128, Long.MAX_VALUE, random.nextLong() >>> 1};
        r.put("id", ids[random.nextInt(ids.length)]);
        r.put("customer", TEXT[random.nextInt(TEXT.length)]);
        Schema status = schema.getField("status").schema();
        r.put(
                "status",
                new GenericData.EnumSymbol(status, status.getEnumSymbols().get(random.nextInt(4))));
        r.put("updated_ms", random.nextLong());
        Schema lineSchema = schema.getField("lines").schema().getElementType();
        List<GenericRecord> lines = new ArrayList<>();
        int n = random.nextInt(6);
        for (int i = 0; i < n; i++) {
            GenericData.Record line = new GenericData.Record(lineSchema);
            line.put("sku", TEXT[random.nextInt(TEXT.length)] + i);
            line.put("quantity", random.nextInt(3) == 0 ? Integer.MAX_VALUE : random.nextInt(1000));
            long[] prices = {0, -1, 999_999_999_999_999_999L, -999_999_999_999_999_999L, random.nextInt(100_000)};
            line.put("price_cents", prices[random.nextInt(prices.length)]);
            lines.add(line);
        }
        r.put("lines", lines);
        if (schema.getField("coupon") != null) {
            r.put("coupon", random.nextBoolean() ? null : TEXT[random.nextInt(TEXT.length)]);
        }
        return r;
    }

    /** Avro's blocked array encoding: blocks of at most a few bytes, each with its byte size. */
    private static byte[] blocked(Schema schema, GenericRecord record) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BinaryEncoder encoder = new EncoderFactory().configureBlockSize(64).blockingBinaryEncoder(bytes, null);
        new GenericDatumWriter<GenericRecord>(schema).write(record, encoder);
        encoder.flush();
        return bytes.toByteArray();
    }

    @Test
    void explodedRowsMatchTheReferenceModelOnRandomOrders() throws Exception {
        Long replay = Long.getLong("transcoder.explode.seed");
        long base = replay != null ? replay : new SplittableRandom().nextLong();
        int cases = replay != null ? 1 : 300;
        AvroRowMapping mapping = lines();
        for (int c = 0; c < cases; c++) {
            long seed = base + c;
            SplittableRandom random = new SplittableRandom(seed);
            Schema writer = random.nextBoolean() ? ORDER_V1 : ORDER_V2;
            AvroRowTranscoder transcoder =
                    AvroRowTranscoder.raw(mapping, writer).build();
            KeyHashRouter<Payload> router = transcoder.shardKeyRouter();
            KeyHashRouter<Long> objects = KeyHashRouter.byKey(id -> id);
            for (int i = 0; i < 8; i++) {
                GenericRecord record = order(writer, random);
                byte[] body = random.nextBoolean() ? AvroWireFormat.raw(writer, record) : blocked(writer, record);
                byte[] expected = reference(writer, body, true);
                // Routed first, as the sink stage does (the scan is then reused), or encoded alone.
                Payload payload = new Payload().wrap(body);
                boolean route = random.nextBoolean();
                if (route) {
                    assertThat(transcoder.shardKey(payload)).isEqualTo(record.get("id"));
                    assertThat(router.shard(payload, null, 2))
                            .isEqualTo(objects.shard((Long) record.get("id"), null, 2));
                }
                RowBuffer out = new RowBuffer(16);
                int rows = transcoder.encodeRows(payload, null, out);
                byte[] actual = out.toByteArray();
                if (!Arrays.equals(actual, expected)) {
                    throw new AssertionError("seed " + seed + " (replay: -Dtranscoder.explode.seed=" + seed
                            + "), record " + i + (route ? " routed first" : "") + " differs\nexpected "
                            + HexFormat.of().formatHex(expected) + "\nactual   "
                            + HexFormat.of().formatHex(actual)
                            + "\nrecord " + record);
                }
                boolean cancelled = record.get("status").toString().equals("CANCELLED");
                assertThat(rows).isEqualTo(cancelled ? 0 : ((List<?>) record.get("lines")).size());
            }
        }
    }

    @Test
    void keepWhenOnAStringAndDropWhenOnANumberCombine() throws Exception {
        AvroRowMapping mapping = AvroRowMapping.builder(ORDER_V2)
                .column("id", "UInt64")
                .keepWhen("customer", "a", "zürich")
                .dropWhen("id", 7L)
                .build();
        AvroRowTranscoder transcoder = AvroRowTranscoder.raw(mapping, ORDER_V2).build();
        SplittableRandom random = new SplittableRandom(42);
        int kept = 0;
        for (int i = 0; i < 200; i++) {
            GenericRecord record = order(ORDER_V2, random);
            if (i % 10 == 0) {
                record.put("id", 7L);
            }
            RowBuffer out = new RowBuffer(16);
            int rows = transcoder.encodeRows(new Payload().wrap(AvroWireFormat.raw(ORDER_V2, record)), null, out);
            String customer = record.get("customer").toString();
            boolean keep = (customer.equals("a") || customer.equals("zürich")) && (Long) record.get("id") != 7L;
            assertThat(rows).as("record %s", record).isEqualTo(keep ? 1 : 0);
            assertThat(out.length()).isEqualTo(keep ? 8 : 0);
            kept += rows;
        }
        assertThat(kept).as("the seed keeps some").isPositive();
    }

    @Test
    void aConditionOnAFieldTheWriterLacksIsDecidedOnTheReaderDefault() throws Exception {
        AvroRowMapping dropNoCoupon = AvroRowMapping.builder(ORDER_V2)
                .column("id", "UInt64")
                .keepWhen("customer", "a")
                .build();
        assertThat(dropNoCoupon.columns()).hasSize(1);
        Schema v2WithFlag = new Schema.Parser()
                .parse(ORDER_V2.toString()
                        .replace(
                                "{\"name\":\"coupon\"",
                                "{\"name\":\"test\",\"type\":\"boolean\",\"default\":true},{\"name\":\"coupon\""));
        AvroRowMapping onFlag = AvroRowMapping.builder(v2WithFlag)
                .column("id", "UInt64")
                .dropWhen("test", true)
                .build();
        AvroRowTranscoder fromV1 = AvroRowTranscoder.raw(onFlag, ORDER_V1).build();
        GenericRecord record = order(ORDER_V1, new SplittableRandom(1));
        assertThat(fromV1.encodeRows(new Payload().wrap(AvroWireFormat.raw(ORDER_V1, record)), null, new RowBuffer(16)))
                .as("v1 lacks 'test', whose default true is dropped")
                .isZero();
    }

    @Test
    void anEmptyArrayHasNoRowAndAFailedRowCutsNothingItself() throws Exception {
        AvroRowTranscoder transcoder = AvroRowTranscoder.raw(lines(), ORDER_V2).build();
        GenericRecord record = order(ORDER_V2, new SplittableRandom(3));
        record.put(
                "status", new GenericData.EnumSymbol(ORDER_V2.getField("status").schema(), "NEW"));
        record.put("lines", List.of());
        RowBuffer out = new RowBuffer(16);
        assertThat(transcoder.encodeRows(new Payload().wrap(AvroWireFormat.raw(ORDER_V2, record)), null, out))
                .isZero();
        assertThat(out.length()).isZero();

        // A quantity out of UInt32 range in the second line: the exception names the column; the sink
        // stage truncates the value's rows (here: the first line's row and the partial second).
        Schema line = ORDER_V2.getField("lines").schema().getElementType();
        GenericData.Record ok = new GenericData.Record(line);
        ok.put("sku", "a");
        ok.put("quantity", 1);
        ok.put("price_cents", 1L);
        GenericData.Record bad = new GenericData.Record(line);
        bad.put("sku", "b");
        bad.put("quantity", -1);
        bad.put("price_cents", 1L);
        record.put("lines", List.of(ok, bad));
        assertThatThrownBy(() -> transcoder.encodeRows(
                        new Payload().wrap(AvroWireFormat.raw(ORDER_V2, record)), null, new RowBuffer(16)))
                .isInstanceOf(ColumnEncodeException.class)
                .hasMessageContaining("quantity");
    }

    @Test
    void aTruncatedBodyIsADeserializationErrorBeforeAnyRowIsWritten() throws Exception {
        AvroRowTranscoder transcoder = AvroRowTranscoder.raw(lines(), ORDER_V2).build();
        GenericRecord record = order(ORDER_V2, new SplittableRandom(5));
        record.put(
                "status", new GenericData.EnumSymbol(ORDER_V2.getField("status").schema(), "PAID"));
        byte[] body = AvroWireFormat.raw(ORDER_V2, record);
        RowBuffer out = new RowBuffer(16);
        assertThatThrownBy(() ->
                        transcoder.encodeRows(new Payload().wrap(Arrays.copyOf(body, body.length - 1)), null, out))
                .isInstanceOf(DeserializationException.class)
                .hasMessageContaining("does not match writer schema");
        assertThat(out.length())
                .as("the scan checks the whole body before the first row")
                .isZero();
    }

    @Test
    void mappingErrorsNameTheFieldAndWhatIsWrong() {
        assertThatThrownBy(() -> AvroRowMapping.builder(ORDER_V2)
                        .index("line_no", "UInt16")
                        .build())
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("an index column needs an exploded array");
        assertThatThrownBy(() -> AvroRowMapping.builder(ORDER_V2)
                        .explode("customer")
                        .column("id", "UInt64")
                        .build())
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("explode(...) needs an array of records");
        assertThatThrownBy(() -> AvroRowMapping.builder(ORDER_V2)
                        .explode("lines")
                        .column("lines", "Array(String)")
                        .build())
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("map its elements' fields");
        assertThatThrownBy(() -> AvroRowMapping.builder(ORDER_V2)
                        .column("id", "UInt64")
                        .dropWhen("status", "LOST")
                        .build())
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("'LOST' is not a symbol of [NEW, PAID, SHIPPED, CANCELLED]");
        assertThatThrownBy(() -> AvroRowMapping.builder(ORDER_V2)
                        .column("id", "UInt64")
                        .dropWhen("coupon", "x")
                        .build())
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("coupon")
                .hasMessageContaining("(not unions)");
        assertThatThrownBy(() -> AvroRowMapping.builder(ORDER_V2)
                        .column("id", "UInt64")
                        .dropWhen("id", "7")
                        .build())
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("value 7 is not an integer number");
        assertThatThrownBy(() -> AvroRowMapping.builder(ORDER_V2)
                        .explode("lines")
                        .column("id", "UInt64")
                        .dropWhen("lines.sku", "x")
                        .build())
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("reads a field of the record, not of the exploded array");
        assertThatThrownBy(() -> AvroRowMapping.builder(ORDER_V2)
                        .column("id", "UInt64")
                        .shardKey("customer")
                        .build())
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("the shard key is an int or long field");
        AvroRowTranscoder withoutKey = AvroRowTranscoder.raw(
                        AvroRowMapping.builder(ORDER_V2).column("id", "UInt64").build(), ORDER_V2)
                .build();
        assertThatThrownBy(withoutKey::shardKeyRouter)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("names no shard key");
    }

    @Test
    void routingAndExplodingAllocateNothingPerRecord() throws Exception {
        AvroRowTranscoder transcoder = AvroRowTranscoder.raw(lines(), ORDER_V2).build();
        SplittableRandom random = new SplittableRandom(17);
        Payload[] payloads = new Payload[64];
        for (int i = 0; i < payloads.length; i++) {
            GenericRecord record = order(ORDER_V2, random);
            payloads[i] =
                    new Payload().wrap(i % 2 == 0 ? AvroWireFormat.raw(ORDER_V2, record) : blocked(ORDER_V2, record));
        }
        KeyHashRouter<Payload> router = transcoder.shardKeyRouter();
        RowBuffer out = new RowBuffer(1 << 16);
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        long rows = 0;
        for (int round = 0; round < 2; round++) {
            long before = threads.getThreadAllocatedBytes(thread);
            for (int i = 0; i < 20_000; i++) {
                out.reset();
                Payload payload = payloads[i % payloads.length];
                rows += router.shard(payload, null, 2);
                rows += transcoder.encodeRows(payload, null, out);
            }
            long allocated = threads.getThreadAllocatedBytes(thread) - before;
            if (round == 1) {
                assertThat(allocated).as("bytes allocated for 20,000 records").isLessThan(20_000);
            }
        }
        assertThat(rows).isPositive();
    }
}
