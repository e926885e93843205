package dev.etl.bench.avro;

import dev.etl.avro.AvroDeserializer;
import dev.etl.avro.AvroWireFormat;
import dev.etl.avro.clickhouse.AvroRowMapping;
import dev.etl.avro.clickhouse.AvroRowTranscoder;
import dev.etl.bench.avro.generated.BenchEvent;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.internal.record.MutableRecordMeta;
import dev.etl.record.Collector;
import dev.etl.record.Payload;
import dev.etl.sink.RowBuffer;
import java.io.IOException;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Avro bytes to one RowBinary row, for the 15-field {@code BenchEvent} of {@link AvroDecodeBenchmark}
 * (the same 1024 records, cycled), every field a column:
 * <ul>
 * <li>{@code genericDatumReader}: Avro's {@code GenericDatumReader} decode alone (reusing its decoder
 *     and record: its best case), no row written — the baseline;</li>
 * <li>{@code genericDatumReaderAndEncode}: the same decode, then the project's {@link RowBinaryEncoder}
 *     (primitive accessors over the generic record) writes the row — the object path;</li>
 * <li>{@code fastPathAndEncode}: {@link AvroDeserializer}'s compiled fast path, then the same encoder;</li>
 * <li>{@code fastPathSpecificAndEncode}: the fast path into the generated {@code BenchEvent}, then an
 *     encoder of the same columns over its typed getters ({@link #specificEncoder()}) — the object path as
 *     the guide writes it (issue 34: 0 B per record);</li>
 * <li>{@code transcode}: {@link AvroRowTranscoder}, Avro bytes straight to the row;</li>
 * <li>{@code transcodeFiveOfFifteen}: the same for a table of five of the fields (the other ten skipped
 *     unread);</li>
 * <li>{@code transcodeOrderFields} and {@code transcodeOrderComputed} (issue 33): 1024 orders of 0–5 lines
 *     ({@link #ORDER}), first three plain fields, then the same three plus computed columns: {@code
 *     length(lines)}, {@code sum(lines.qty * lines.unit_cents)}, a product of two fields, a constant and the
 *     lines' skus as an array projection (a Nested column's sub-column).</li>
 * </ul>
 * Every benchmark that writes a row writes the same bytes (checked in {@link #setUp}). Run with
 * {@code -prof gc} for {@code gc.alloc.rate.norm}; see {@code docs/BENCHMARKS.md}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class TranscodeBenchmark {
    private static final int RECORDS = 1024;

    private final byte[][] bodies = new byte[RECORDS][];
    private int next;

    private GenericDatumReader<GenericRecord> genericReader;
    private BinaryDecoder decoder;
    private GenericRecord genericReuse;
    private RowBinaryEncoder<GenericRecord> encoder;
    private AvroDeserializer<GenericRecord> fastPath;
    private AvroDeserializer<BenchEvent> fastPathSpecific;
    private RowBinaryEncoder<BenchEvent> specificEncoder;
    private BenchEvent lastSpecific;
    private final Collector<BenchEvent> specificSink = v -> lastSpecific = v;
    private AvroRowTranscoder transcoder;
    private AvroRowTranscoder fiveColumns;
    private final RowBuffer out = new RowBuffer(1024);

    /** An order with lines, for the computed columns. */
    public static final Schema ORDER = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "namespace": "bench", "fields": [
              {"name": "id", "type": "long"},
              {"name": "customer", "type": "string"},
              {"name": "discount_cents", "type": "long"},
              {"name": "factor", "type": "int"},
              {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line",
                  "fields": [
                    {"name": "sku", "type": "string"},
                    {"name": "qty", "type": "int"},
                    {"name": "unit_cents", "type": "long"}]}}}
            ]}""");

    private final byte[][] orders = new byte[RECORDS][];
    private int nextOrder;
    private AvroRowTranscoder orderFields;
    private AvroRowTranscoder orderComputed;

    private final Payload key = new Payload();
    private final Payload value = new Payload();
    private final MutableRecordMeta meta = new MutableRecordMeta();
    private GenericRecord last;
    private final Collector<GenericRecord> sink = v -> last = v;

    /** Every field of {@code BenchEvent} as a column, in field order. */
    public static AvroRowMapping mapping(Schema schema) {
        return AvroRowMapping.builder(schema)
                .column("id", "UInt64")
                .column("timestamp_ms", "Int64", "timestampMs")
                .column("user_id", "Int32", "userId")
                .column("session_id", "String", "sessionId")
                .column("country", "LowCardinality(String)", "country")
                .column("device", "Enum8('DESKTOP' = 1, 'MOBILE' = 2, 'TABLET' = 3, 'TV' = 4)", "device")
                .column("price", "Float64", "price")
                .column("quantity", "Int32", "quantity")
                .column("discount", "Float32", "discount")
                .column("paid", "Bool", "paid")
                .column("campaign", "Nullable(String)", "campaign")
                .column("score", "Float64", "score")
                .column("page", "String", "page")
                .column("referrer", "Nullable(String)", "referrer")
                .column("version", "Int32", "version")
                .build();
    }

    /** The {@code device} column's Enum8 values: the enum's symbols, from 1. */
    private static java.util.Map<String, Integer> devices() {
        java.util.Map<String, Integer> devices = new java.util.LinkedHashMap<>();
        devices.put("DESKTOP", 1);
        devices.put("MOBILE", 2);
        devices.put("TABLET", 3);
        devices.put("TV", 4);
        return devices;
    }

    /** The object path's encoder for the same columns. */
    public static RowBinaryEncoder<GenericRecord> encoder() {
        java.util.Map<String, Integer> devices = devices();
        return RowBinaryEncoder.<GenericRecord>builder()
                .uint64("id", r -> (Long) r.get(0))
                .int64("timestamp_ms", r -> (Long) r.get(1))
                .int32("user_id", r -> (Integer) r.get(2))
                .string("session_id", r -> (CharSequence) r.get(3))
                .lowCardinalityString("country", r -> (CharSequence) r.get(4))
                .enum8("device", devices, r -> devices.get(r.get(5).toString()))
                .float64("price", r -> (Double) r.get(6))
                .int32("quantity", r -> (Integer) r.get(7))
                .float32("discount", r -> (Float) r.get(8))
                .bool("paid", r -> (Boolean) r.get(9))
                .nullableString("campaign", r -> (CharSequence) r.get(10))
                .float64("score", r -> (Double) r.get(11))
                .string("page", r -> (CharSequence) r.get(12))
                .nullableString("referrer", r -> (CharSequence) r.get(13))
                .int32("version", r -> (Integer) r.get(14))
                .build();
    }

    /** The same columns over the generated class's typed getters: no boxing, strings as their bytes. */
    public static RowBinaryEncoder<BenchEvent> specificEncoder() {
        java.util.Map<String, Integer> devices = devices();
        return RowBinaryEncoder.<BenchEvent>builder()
                .uint64("id", BenchEvent::getId)
                .int64("timestamp_ms", BenchEvent::getTimestampMs)
                .int32("user_id", BenchEvent::getUserId)
                .string("session_id", BenchEvent::getSessionId)
                .lowCardinalityString("country", BenchEvent::getCountry)
                .enum8("device", devices, r -> r.getDevice().ordinal() + 1)
                .float64("price", BenchEvent::getPrice)
                .int32("quantity", BenchEvent::getQuantity)
                .float32("discount", BenchEvent::getDiscount)
                .bool("paid", BenchEvent::getPaid)
                .nullableString("campaign", BenchEvent::getCampaign)
                .float64("score", BenchEvent::getScore)
                .string("page", BenchEvent::getPage)
                .nullableString("referrer", BenchEvent::getReferrer)
                .int32("version", BenchEvent::getVersion)
                .build();
    }

    @Setup
    public void setUp() throws IOException {
        Schema schema = BenchEvent.getClassSchema();
        Random random = new Random(7);
        for (int i = 0; i < RECORDS; i++) {
            bodies[i] = AvroWireFormat.raw(schema, AvroDecodeBenchmark.event(random, i));
        }
        genericReader = new GenericDatumReader<>(schema, schema);
        encoder = encoder();
        fastPath = AvroDeserializer.generic(schema).raw(schema).build();
        fastPathSpecific =
                AvroDeserializer.specific(BenchEvent.class).raw(schema).build();
        specificEncoder = specificEncoder();
        transcoder = AvroRowTranscoder.raw(mapping(schema), schema).build();
        fiveColumns = AvroRowTranscoder.raw(
                        AvroRowMapping.builder(schema)
                                .column("id", "UInt64")
                                .column("timestamp_ms", "Int64", "timestampMs")
                                .column("country", "LowCardinality(String)", "country")
                                .column("price", "Float64", "price")
                                .column("paid", "Bool", "paid")
                                .build(),
                        schema)
                .build();
        Schema line = ORDER.getField("lines").schema().getElementType();
        for (int i = 0; i < RECORDS; i++) {
            org.apache.avro.generic.GenericRecord order = new org.apache.avro.generic.GenericData.Record(ORDER);
            order.put("id", (long) i);
            order.put("customer", "customer-" + random.nextInt(10_000));
            order.put("discount_cents", (long) random.nextInt(1000));
            order.put("factor", random.nextInt(1, 4));
            java.util.List<GenericRecord> lines = new java.util.ArrayList<>();
            for (int l = random.nextInt(6); l > 0; l--) {
                GenericRecord item = new org.apache.avro.generic.GenericData.Record(line);
                item.put("sku", "sku-" + random.nextInt(100_000));
                item.put("qty", random.nextInt(1, 20));
                item.put("unit_cents", (long) random.nextInt(100, 100_000));
                lines.add(item);
            }
            order.put("lines", lines);
            orders[i] = AvroWireFormat.raw(ORDER, order);
        }
        orderFields = AvroRowTranscoder.raw(orderFields(), ORDER).build();
        orderComputed = AvroRowTranscoder.raw(orderComputed(), ORDER).build();
        for (int i = 0; i < RECORDS; i++) {
            next = i;
            byte[] a = genericDatumReaderAndEncode().toByteArray();
            next = i;
            byte[] b = transcode().toByteArray();
            next = i;
            byte[] c = fastPathAndEncode().toByteArray();
            next = i;
            byte[] d = fastPathSpecificAndEncode().toByteArray();
            if (!java.util.Arrays.equals(a, b) || !java.util.Arrays.equals(a, c) || !java.util.Arrays.equals(a, d)) {
                throw new IllegalStateException("record " + i + ": the paths write different rows");
            }
        }
        next = 0;
    }

    /** Three plain fields of {@link #ORDER}. */
    public static AvroRowMapping orderFields() {
        return AvroRowMapping.builder(ORDER)
                .column("id", "UInt64")
                .column("customer", "String")
                .column("discount_cents", "Int64")
                .build();
    }

    /** The same three and computed columns: length, sum of products, product, constant, array projection. */
    public static AvroRowMapping orderComputed() {
        return AvroRowMapping.builder(ORDER)
                .column("id", "UInt64")
                .column("customer", "String")
                .column("discount_cents", "Int64")
                .column("n_lines", "UInt32", "length(lines)")
                .column("total_cents", "Int64", "sum(lines.qty * lines.unit_cents)")
                .column("discount_total", "Int64", "discount_cents * factor")
                .column("channel", "LowCardinality(String)", "'web'")
                .column("lines.sku", "Array(String)", "lines.sku")
                .build();
    }

    private byte[] nextBody() {
        int i = next;
        next = (i + 1) & (RECORDS - 1);
        return bodies[i];
    }

    @Benchmark
    public Object genericDatumReader() throws IOException {
        byte[] body = nextBody();
        decoder = DecoderFactory.get().binaryDecoder(body, 0, body.length, decoder);
        return genericReuse = genericReader.read(genericReuse, decoder);
    }

    @Benchmark
    public RowBuffer genericDatumReaderAndEncode() throws IOException {
        byte[] body = nextBody();
        decoder = DecoderFactory.get().binaryDecoder(body, 0, body.length, decoder);
        genericReuse = genericReader.read(genericReuse, decoder);
        RowBuffer out = this.out;
        out.reset();
        encoder.encode(genericReuse, out);
        return out;
    }

    @Benchmark
    public RowBuffer fastPathAndEncode() {
        fastPath.deserialize(key, value.wrap(nextBody()), meta, sink);
        RowBuffer out = this.out;
        out.reset();
        encoder.encode(last, out);
        return out;
    }

    @Benchmark
    public RowBuffer fastPathSpecificAndEncode() {
        fastPathSpecific.deserialize(key, value.wrap(nextBody()), meta, specificSink);
        RowBuffer out = this.out;
        out.reset();
        specificEncoder.encode(lastSpecific, out);
        return out;
    }

    @Benchmark
    public RowBuffer transcode() {
        byte[] body = nextBody();
        RowBuffer out = this.out;
        out.reset();
        transcoder.transcode(body, 0, body.length, out);
        return out;
    }

    @Benchmark
    public RowBuffer transcodeFiveOfFifteen() {
        byte[] body = nextBody();
        RowBuffer out = this.out;
        out.reset();
        fiveColumns.transcode(body, 0, body.length, out);
        return out;
    }

    @Benchmark
    public RowBuffer transcodeOrderFields() {
        byte[] body = nextOrder();
        RowBuffer out = this.out;
        out.reset();
        orderFields.transcode(body, 0, body.length, out);
        return out;
    }

    @Benchmark
    public RowBuffer transcodeOrderComputed() {
        byte[] body = nextOrder();
        RowBuffer out = this.out;
        out.reset();
        orderComputed.transcode(body, 0, body.length, out);
        return out;
    }

    private byte[] nextOrder() {
        int i = nextOrder;
        nextOrder = (i + 1) & (RECORDS - 1);
        return orders[i];
    }
}
