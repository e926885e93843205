package dev.etl.avro.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.clickhouse.ClickHouseTypes;
import dev.etl.clickhouse.ColumnEncodeException;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.sink.RowBuffer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
 * Computed columns ({@code length}, {@code sum}, {@code sum(a * b)}, {@code a * b}, constants, {@code now()}) and
 * array projections, byte for byte against a reference model: Avro's {@code GenericDatumReader(writer, reader)}
 * materialises the record, plain Java computes, {@link RowBinaryEncoder} writes. Seeded random orders in two
 * writer schemas (v1 lacks {@code lines.unit_cents}, {@code scores} and {@code discount_cents}, so they are the
 * reader defaults), arrays in one block and in Avro's blocked form (byte sizes, several blocks).
 */
class ComputedColumnsTest {
    static final Schema ORDER = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "namespace": "c", "fields": [
              {"name": "id", "type": "long"},
              {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line",
                  "fields": [
                    {"name": "sku", "type": "string"},
                    {"name": "qty", "type": "int"},
                    {"name": "unit_cents", "type": "long", "default": 100},
                    {"name": "weight", "type": "float"}]}}},
              {"name": "attrs", "type": {"type": "map", "values": "string"}},
              {"name": "scores", "type": {"type": "array", "items": "int"}, "default": []},
              {"name": "discount_cents", "type": "long", "default": 5},
              {"name": "coupon", "type": ["null", "long"], "default": null},
              {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2},
                  "default": "\\u0000"}
            ]}""");
    static final Schema ORDER_V1 = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "namespace": "c", "fields": [
              {"name": "id", "type": "long"},
              {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line",
                  "fields": [
                    {"name": "sku", "type": "string"},
                    {"name": "qty", "type": "int"},
                    {"name": "weight", "type": "float"}]}}},
              {"name": "attrs", "type": {"type": "map", "values": "string"}}
            ]}""");

    // tag::computed[]
    /** Orders with their line count, total, and the lines as a Nested(sku String, qty UInt32) column. */
    static AvroRowMapping orders(Schema readerSchema) {
        return AvroRowMapping.builder(readerSchema)
                .column("id", "UInt64") // a field, as always
                .column("n_lines", "UInt32", "length(lines)") // elements of an array (or a map)
                .column("total_cents", "Int64", "sum(lines.qty * lines.unit_cents)") // over the elements
                .column("total_qty", "UInt64", "sum(lines.qty)")
                .column("net_cents", "Int64", "discount_cents * -1") // a product of the row's numbers
                .column("channel", "LowCardinality(String)", "'web'") // a constant
                .column("lines.sku", "Array(String)", "lines.sku") // Nested as parallel arrays:
                .column("lines.qty", "Array(UInt32)", "lines.qty") // one element per line
                .build();
    }
    // end::computed[]

    /** Every kind of source, for the reference model. */
    static AvroRowMapping everyKind() {
        return AvroRowMapping.builder(ORDER)
                .column("id", "UInt64")
                .column("n_lines", "UInt32", "length(lines)")
                .column("total_cents", "Int64", "sum(lines.qty * lines.unit_cents)")
                .column("total_qty", "UInt64", "sum(lines.qty)")
                .column("score_sum", "Int64", "sum(scores)")
                .column("n_attrs", "UInt16", "length(attrs)")
                .column("weight", "Float64", "sum(lines.weight * lines.qty)")
                .column("skus", "Array(String)", "lines.sku")
                .column("qtys", "Array(UInt32)", "lines.qty")
                .column("units", "Array(Decimal(18, 2))", "lines.unit_cents")
                .column("net_cents", "Int64", "discount_cents * -1")
                .column("scaled", "Float64", "2.5 * id")
                .column("source", "String", "'web'")
                .column("quoted", "Nullable(String)", "'it''s'")
                .column("version", "Int8", "-1")
                .column("rate", "Decimal(9, 2)", "2.5")
                .column("zero", "UInt8", "0")
                .column("n_lines_again", "Nullable(UInt64)", "length( lines )")
                .build();
    }

    private record Line(String sku, int qty, long unitCents, float weight) {}

    private record Order(
            long id, List<Line> lines, Map<String, String> attrs, List<Integer> scores, long discountCents) {}

    private static final RowBinaryEncoder<Order> REFERENCE = RowBinaryEncoder.<Order>builder()
            .uint64("id", Order::id)
            .uint32("n_lines", o -> o.lines.size())
            .int64(
                    "total_cents",
                    o -> o.lines.stream().mapToLong(l -> l.qty * l.unitCents).sum())
            .uint64("total_qty", o -> o.lines.stream().mapToLong(Line::qty).sum())
            .int64(
                    "score_sum",
                    o -> o.scores.stream().mapToLong(Integer::longValue).sum())
            .uint16("n_attrs", o -> o.attrs.size())
            .float64("weight", o -> {
                double sum = 0;
                for (Line l : o.lines) {
                    sum += (double) l.weight * l.qty;
                }
                return sum;
            })
            .array(
                    "skus",
                    ClickHouseTypes.string(),
                    o -> o.lines.stream().map(Line::sku).toList())
            .array(
                    "qtys",
                    ClickHouseTypes.uint32(),
                    o -> o.lines.stream().map(l -> (long) l.qty).toList())
            .array(
                    "units",
                    ClickHouseTypes.decimal(18, 2),
                    o -> o.lines.stream()
                            .map(l -> java.math.BigDecimal.valueOf(l.unitCents, 2))
                            .toList())
            .int64("net_cents", o -> -o.discountCents)
            .float64("scaled", o -> 2.5 * o.id)
            .string("source", o -> "web")
            .nullableString("quoted", o -> "it's")
            .int8("version", o -> -1)
            .decimal32("rate", 2, o -> 250)
            .uint8("zero", o -> 0)
            .column("n_lines_again", ClickHouseTypes.nullable(ClickHouseTypes.uint64()), o -> (long) o.lines.size())
            .build();

    @SuppressWarnings("unchecked")
    private static Order materialise(Schema writer, byte[] body) {
        try {
            GenericRecord r = new GenericDatumReader<GenericRecord>(writer, ORDER)
                    .read(null, DecoderFactory.get().binaryDecoder(body, null));
            List<Line> lines = new ArrayList<>();
            for (GenericRecord l : (List<GenericRecord>) r.get("lines")) {
                lines.add(new Line(l.get("sku").toString(), (Integer) l.get("qty"), (Long) l.get("unit_cents"), (Float)
                        l.get("weight")));
            }
            Map<String, String> attrs = new LinkedHashMap<>();
            ((Map<Object, Object>) r.get("attrs")).forEach((k, v) -> attrs.put(k.toString(), v.toString()));
            return new Order(
                    (Long) r.get("id"), lines, attrs, (List<Integer>) r.get("scores"), (Long) r.get("discount_cents"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static GenericRecord randomOrder(Schema schema, SplittableRandom random) {
        Schema lineSchema = schema.getField("lines").schema().getElementType();
        GenericRecord order = new GenericData.Record(schema);
        order.put("id", random.nextLong(0, Long.MAX_VALUE / 4));
        List<GenericRecord> lines = new ArrayList<>();
        for (int i = random.nextInt(6); i > 0; i--) {
            GenericRecord line = new GenericData.Record(lineSchema);
            line.put("sku", "sku-" + random.nextInt(1000) + (random.nextBoolean() ? "-ü" : ""));
            line.put("qty", random.nextInt(0, 1000));
            if (lineSchema.getField("unit_cents") != null) {
                line.put("unit_cents", random.nextLong(0, 1_000_000));
            }
            line.put("weight", (float) random.nextDouble(0, 50));
            lines.add(line);
        }
        order.put("lines", lines);
        Map<String, String> attrs = new LinkedHashMap<>();
        for (int i = random.nextInt(4); i > 0; i--) {
            attrs.put("k" + i, "v" + random.nextInt(9));
        }
        order.put("attrs", attrs);
        if (schema.getField("scores") != null) {
            List<Integer> scores = new ArrayList<>();
            for (int i = random.nextInt(5); i > 0; i--) {
                scores.add(random.nextInt(-1000, 1000));
            }
            order.put("scores", scores);
            order.put("discount_cents", random.nextLong(0, 1_000_000));
            order.put("coupon", random.nextBoolean() ? null : random.nextLong(100));
            order.put("amount", java.nio.ByteBuffer.wrap(new byte[] {(byte) random.nextInt(100)}));
        }
        return order;
    }

    /** Avro's binary form, arrays and maps in one block or (blocked) in blocks of a few bytes with their sizes. */
    static byte[] encode(Schema schema, GenericRecord record, boolean blocked) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BinaryEncoder encoder = blocked
                ? new EncoderFactory().configureBlockSize(64).blockingBinaryEncoder(bytes, null)
                : EncoderFactory.get().directBinaryEncoder(bytes, null);
        try {
            new GenericDatumWriter<GenericRecord>(schema).write(record, encoder);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static byte[] transcode(AvroRowMapping mapping, Schema writer, byte[] body) {
        RowBuffer out = new RowBuffer(64);
        int rows = AvroRowTranscoder.raw(mapping, writer).build().transcode(body, 0, body.length, out);
        assertThat(rows).isEqualTo(1);
        return out.toByteArray();
    }

    @Test
    void everySourceKindMatchesTheReferenceModelInBothWriterSchemasAndBlockForms() {
        AvroRowMapping mapping = everyKind();
        assertThat(mapping.scans()).isTrue();
        SplittableRandom random = new SplittableRandom(33);
        for (Schema writer : List.of(ORDER, ORDER_V1)) {
            AvroRowTranscoder transcoder =
                    AvroRowTranscoder.raw(mapping, writer).build();
            for (int i = 0; i < 400; i++) {
                GenericRecord order = randomOrder(writer, random);
                byte[] body = encode(writer, order, i % 2 == 1);
                RowBuffer expected = new RowBuffer(64);
                REFERENCE.encode(materialise(writer, body), expected);
                RowBuffer out = new RowBuffer(64);
                assertThat(transcoder.transcode(body, 0, body.length, out)).isEqualTo(1);
                assertThat(out.toByteArray())
                        .as("%s record %d (%s)", writer.getFullName(), i, order)
                        .isEqualTo(expected.toByteArray());
            }
        }
    }

    @Test
    void theDocumentedOrdersMappingWritesLineCountTotalAndNestedArrays() {
        GenericRecord order = new GenericData.Record(ORDER);
        Schema lineSchema = ORDER.getField("lines").schema().getElementType();
        List<GenericRecord> lines = new ArrayList<>();
        for (int i = 1; i <= 2; i++) {
            GenericRecord line = new GenericData.Record(lineSchema);
            line.put("sku", "s" + i);
            line.put("qty", i);
            line.put("unit_cents", 250L * i);
            line.put("weight", 1f);
            lines.add(line);
        }
        order.put("id", 7L);
        order.put("lines", lines);
        order.put("attrs", Map.of());
        order.put("scores", List.of());
        order.put("discount_cents", 10L);
        order.put("coupon", null);
        order.put("amount", java.nio.ByteBuffer.wrap(new byte[] {1}));
        RowBuffer expected = new RowBuffer(64)
                .writeLongLE(7) // id
                .writeIntLE(2) // n_lines
                .writeLongLE(1 * 250 + 2 * 500) // total_cents
                .writeLongLE(3) // total_qty
                .writeLongLE(-10) // net_cents
                .writeVarUInt(3);
        expected.writeBytes("web".getBytes(java.nio.charset.StandardCharsets.UTF_8), 0, 3);
        expected.writeVarUInt(2).writeVarUInt(2);
        expected.writeBytes(new byte[] {'s', '1'}, 0, 2);
        expected.writeVarUInt(2);
        expected.writeBytes(new byte[] {'s', '2'}, 0, 2);
        expected.writeVarUInt(2).writeIntLE(1).writeIntLE(2);
        assertThat(transcode(orders(ORDER), ORDER, encode(ORDER, order, false))).isEqualTo(expected.toByteArray());
    }

    @Test
    void aWriterWithoutTheArrayTakesItsEmptyDefaultAndWithoutAnOperandItsDefault() {
        AvroRowMapping mapping = AvroRowMapping.builder(ORDER)
                .column("score_sum", "Int64", "sum(scores)")
                .column("n_scores", "UInt8", "length(scores)")
                .column("net", "Int64", "discount_cents * 3")
                .column("units", "Int64", "sum(lines.unit_cents)")
                .build();
        GenericRecord order = randomOrder(ORDER_V1, new SplittableRandom(1));
        int lines = ((List<?>) order.get("lines")).size();
        byte[] row = transcode(mapping, ORDER_V1, encode(ORDER_V1, order, false));
        RowBuffer expected =
                new RowBuffer(32).writeLongLE(0).writeByte(0).writeLongLE(15).writeLongLE(100L * lines);
        assertThat(row).isEqualTo(expected.toByteArray());
    }

    @Test
    void explodedRowsRepeatTheRecordsSumsAndMultiplyTheirElementsFields() {
        AvroRowMapping mapping = AvroRowMapping.builder(ORDER)
                .explode("lines")
                .column("id", "UInt64")
                .index("line_no", "UInt8")
                .column("line_cents", "Int64", "lines.qty * lines.unit_cents")
                .column("order_cents", "Int64", "sum(lines.qty * lines.unit_cents)")
                .column("n_lines", "UInt16", "length(lines)")
                .column("double_id", "Int64", "id * 2")
                .column("sku", "String", "lines.sku")
                .build();
        SplittableRandom random = new SplittableRandom(5);
        for (Schema writer : List.of(ORDER, ORDER_V1)) {
            AvroRowTranscoder transcoder =
                    AvroRowTranscoder.raw(mapping, writer).build();
            for (int i = 0; i < 100; i++) {
                GenericRecord order = randomOrder(writer, random);
                byte[] body = encode(writer, order, i % 2 == 0);
                Order o = materialise(writer, body);
                long orderCents =
                        o.lines.stream().mapToLong(l -> l.qty * l.unitCents).sum();
                RowBuffer expected = new RowBuffer(64);
                for (int k = 0; k < o.lines.size(); k++) {
                    Line l = o.lines.get(k);
                    expected.writeLongLE(o.id)
                            .writeByte(k)
                            .writeLongLE(l.qty * l.unitCents)
                            .writeLongLE(orderCents)
                            .writeShortLE(o.lines.size())
                            .writeLongLE(o.id * 2);
                    byte[] sku = l.sku.getBytes(java.nio.charset.StandardCharsets.UTF_8);
                    expected.writeVarUInt(sku.length);
                    expected.writeBytes(sku, 0, sku.length);
                }
                RowBuffer out = new RowBuffer(64);
                assertThat(transcoder.transcode(body, 0, body.length, out)).isEqualTo(o.lines.size());
                assertThat(out.toByteArray()).isEqualTo(expected.toByteArray());
            }
        }
    }

    @Test
    void overflowAndOutOfRangeNameTheColumn() {
        Schema schema = new Schema.Parser().parse("""
                {"type": "record", "name": "N", "fields": [
                  {"name": "a", "type": "long"}, {"name": "b", "type": "long"},
                  {"name": "xs", "type": {"type": "array", "items": "long"}}]}""");
        AvroRowMapping mapping = AvroRowMapping.builder(schema)
                .column("product", "Int64", "a * b")
                .column("total", "Int64", "sum(xs)")
                .column("n", "UInt8", "length(xs)")
                .build();
        GenericRecord r = new GenericData.Record(schema);
        r.put("a", Long.MAX_VALUE / 2);
        r.put("b", 3L);
        r.put("xs", List.of(1L));
        assertThatThrownBy(() -> transcode(mapping, schema, encode(schema, r, false)))
                .isInstanceOf(ColumnEncodeException.class)
                .hasMessageContaining("product")
                .hasMessageContaining("overflows");
        r.put("b", 1L);
        r.put("xs", List.of(Long.MAX_VALUE, 1L));
        assertThatThrownBy(() -> transcode(mapping, schema, encode(schema, r, false)))
                .isInstanceOf(ColumnEncodeException.class)
                .hasMessageContaining("total")
                .hasMessageContaining("overflows");
        List<Long> many = new ArrayList<>();
        for (int i = 0; i < 256; i++) {
            many.add(0L);
        }
        r.put("xs", many);
        assertThatThrownBy(() -> transcode(mapping, schema, encode(schema, r, false)))
                .isInstanceOf(ColumnEncodeException.class)
                .hasMessageContaining("'n'")
                .hasMessageContaining("256 out of range");
    }

    @Test
    void aWrongTargetTypeOrOperandFailsAtBuildNamingColumnSourceAndWhy() {
        assertThatThrownBy(() -> AvroRowMapping.builder(ORDER)
                        .column("n", "String", "length(lines)")
                        .build())
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("'length(lines)'")
                .hasMessageContaining("column 'n'")
                .hasMessageContaining("Int8…Int64");
        assertThatThrownBy(() -> AvroRowMapping.builder(ORDER)
                        .column("w", "Int64", "sum(lines.weight)")
                        .build())
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("Float32 or Float64");
        assertThatThrownBy(() -> AvroRowMapping.builder(ORDER)
                        .column("s", "Int64", "sum(lines.sku)")
                        .build())
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("'lines.sku' is string, not an int, long, float or double");
        assertThatThrownBy(() -> AvroRowMapping.builder(ORDER)
                        .column("c", "Int64", "coupon * 2")
                        .build())
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("'coupon' is a union");
        assertThatThrownBy(() -> AvroRowMapping.builder(ORDER)
                        .column("d", "Int64", "amount * 2")
                        .build())
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("logicalType decimal");
        assertThatThrownBy(() -> AvroRowMapping.builder(ORDER)
                        .column("sku", "String", "lines.sku")
                        .build())
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("Array(...)");
        assertThatThrownBy(() -> AvroRowMapping.builder(ORDER)
                        .column("q", "Int64", "lines.qty * 2")
                        .build())
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("sum(...) adds up");
        assertThatThrownBy(() -> AvroRowMapping.builder(ORDER)
                        .column("x", "Int64", "sum(lines.qty * scores)")
                        .build())
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("one array of records");
        assertThatThrownBy(() -> AvroRowMapping.builder(ORDER)
                        .column("x", "Int64", "sum(nothing)")
                        .build())
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("not in an array");
        assertThatThrownBy(() -> AvroRowMapping.builder(ORDER)
                        .column("x", "UInt8", "300")
                        .build())
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("300 out of range");
        assertThatThrownBy(() -> AvroRowMapping.builder(ORDER)
                        .column("x", "Enum8('a' = 1)", "'b'")
                        .build())
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("not a value of the column's enum");
        assertThatThrownBy(() -> AvroRowMapping.builder(ORDER)
                        .column("x", "String", "now()")
                        .build())
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("DateTime");
    }

    @Test
    void aBadExpressionNamesThePosition() {
        assertThatThrownBy(() -> AvroRowMapping.builder(ORDER).column("x", "Int64", "sum(lines.qty"))
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("syntax error at position 13")
                .hasMessageContaining("expected ')'");
        assertThatThrownBy(() -> AvroRowMapping.builder(ORDER).column("x", "Int64", "avg(lines.qty)"))
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("position 0")
                .hasMessageContaining("length(...), sum(...) or now()");
        assertThatThrownBy(() -> AvroRowMapping.builder(ORDER).column("x", "String", "'open"))
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("closing quote");
        assertThatThrownBy(() -> AvroRowMapping.builder(ORDER).column("x", "Int64", "id * * 2"))
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("position 5");
    }

    @Test
    void theParserReadsTheGrammar() {
        assertThat(ColumnSource.parse("a.b")).isEqualTo(new ColumnSource.Path("a.b"));
        assertThat(ColumnSource.parse(" length( a.b ) ")).isEqualTo(new ColumnSource.Length("a.b"));
        assertThat(ColumnSource.parse("sum(l.q*l.c)")).isEqualTo(new ColumnSource.Sum("l.q", "l.c"));
        assertThat(ColumnSource.parse("'it''s'")).isEqualTo(new ColumnSource.Text("it's"));
        assertThat(ColumnSource.parse("''")).isEqualTo(new ColumnSource.Text(""));
        assertThat(ColumnSource.parse("now()")).isEqualTo(new ColumnSource.Now());
        assertThat(ColumnSource.parse("-1.50")).isInstanceOf(ColumnSource.Number.class);
        assertThat(ColumnSource.parse("2 * x").toString()).contains("Product");
    }

    @Test
    void nowIsTheClockOfTheRecordInSecondsOrTicks() {
        Schema schema = new Schema.Parser().parse("""
                {"type": "record", "name": "T", "fields": [{"name": "a", "type": "int"}]}""");
        AvroRowMapping mapping = AvroRowMapping.builder(schema)
                .column("a", "Int32")
                .column("at", "DateTime", "now()")
                .column("at_ms", "DateTime64(3)", "now()")
                .column("at_us", "Nullable(DateTime64(6))", "now()")
                .build();
        GenericRecord r = new GenericData.Record(schema);
        r.put("a", 1);
        long before = System.currentTimeMillis();
        byte[] row = transcode(mapping, schema, encode(schema, r, false));
        long after = System.currentTimeMillis();
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(row).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        assertThat(b.getInt()).isEqualTo(1);
        long seconds = b.getInt() & 0xFFFF_FFFFL;
        long millis = b.getLong();
        assertThat(b.get()).isZero();
        long micros = b.getLong();
        assertThat(millis).isBetween(before, after);
        assertThat(seconds).isEqualTo(millis / 1000);
        assertThat(micros).isEqualTo(millis * 1000);
    }

    @Test
    void computedColumnsAllocateNothingPerRecord() {
        AvroRowMapping exploded = AvroRowMapping.builder(ORDER)
                .explode("lines")
                .column("id", "UInt64")
                .column("line_cents", "Int64", "lines.qty * lines.unit_cents")
                .column("order_cents", "Int64", "sum(lines.qty * lines.unit_cents)")
                .column("at", "DateTime64(3)", "now()")
                .build();
        AvroRowTranscoder plain = AvroRowTranscoder.raw(everyKind(), ORDER).build();
        AvroRowTranscoder lines = AvroRowTranscoder.raw(exploded, ORDER).build();
        SplittableRandom random = new SplittableRandom(17);
        byte[][] bodies = new byte[64][];
        for (int i = 0; i < bodies.length; i++) {
            bodies[i] = encode(ORDER, randomOrder(ORDER, random), i % 2 == 1);
        }
        RowBuffer out = new RowBuffer(1 << 16);
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        long rows = 0;
        for (int round = 0; round < 2; round++) {
            long before = threads.getThreadAllocatedBytes(thread);
            for (int i = 0; i < 20_000; i++) {
                out.reset();
                byte[] body = bodies[i % bodies.length];
                rows += plain.transcode(body, 0, body.length, out);
                rows += lines.transcode(body, 0, body.length, out);
            }
            long allocated = threads.getThreadAllocatedBytes(thread) - before;
            if (round == 1) {
                assertThat(allocated).as("bytes allocated for 20,000 records").isLessThan(20_000);
            }
        }
        assertThat(rows).isPositive();
    }

    @Test
    void elementsThatTakeNoBytesAreCountedAndProjectedAndAHostileCountIsRefused() {
        Schema writer = new Schema.Parser().parse("""
                {"type": "record", "name": "Z", "fields": [
                  {"name": "items", "type": {"type": "array", "items": {"type": "record", "name": "E", "fields": []}}}]}""");
        Schema reader = new Schema.Parser().parse("""
                {"type": "record", "name": "Z", "fields": [
                  {"name": "items", "type": {"type": "array", "items": {"type": "record", "name": "E", "fields": [
                    {"name": "w", "type": "int", "default": 3}]}}}]}""");
        AvroRowMapping mapping = AvroRowMapping.builder(reader)
                .column("n", "UInt32", "length(items)")
                .column("total", "Int64", "sum(items.w)")
                .column("ws", "Array(Int32)", "items.w")
                .build();
        // 1000 empty records in one block: count 1000 (zig-zag varint), no item bytes, the end of the array.
        byte[] body = {(byte) 0xD0, 0x0F, 0};
        RowBuffer expected =
                new RowBuffer(64).writeIntLE(1000).writeLongLE(3000).writeVarUInt(1000);
        for (int i = 0; i < 1000; i++) {
            expected.writeIntLE(3);
        }
        assertThat(transcode(mapping, writer, body)).isEqualTo(expected.toByteArray());
        // 2^30 of them: over the body's budget of items that take no bytes (within the collection limit).
        byte[] hostile = {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x08, 0};
        assertThatThrownBy(() -> AvroRowTranscoder.raw(mapping, writer)
                        .build()
                        .transcode(hostile, 0, hostile.length, new RowBuffer(64)))
                .isInstanceOf(dev.etl.error.DeserializationException.class)
                .hasMessageContaining("take no bytes");
    }
}
