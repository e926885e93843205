package dev.etl.bench.avro;

import dev.etl.avro.AvroWireFormat;
import dev.etl.avro.clickhouse.AvroRowMapping;
import dev.etl.avro.clickhouse.AvroRowTranscoder;
import dev.etl.avro.clickhouse.AvroView;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.deser.Deserializer;
import dev.etl.record.Collector;
import dev.etl.record.Payload;
import dev.etl.sink.MultiRowEncoder;
import dev.etl.sink.RowBuffer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
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
 * The sample's order-headers table (issue 34 item 2) on three paths, 1024 orders of 0–5 lines (a tenth
 * cancelled), cycled; each drops the cancelled orders and writes {@code line_count}, {@code quantity} and
 * {@code total} (the sum of quantity × price) with four plain columns:
 * <ul>
 * <li>{@code viewOrderHeaders}: {@link AvroRowTranscoder#views()} reads the payload into the {@link AvroView},
 *     a Java filter on the status, a Java map iterating the lines in place sets the three computed columns
 *     (slots), {@link AvroRowTranscoder#viewEncoder()} writes the row;</li>
 * <li>{@code transcodeOrderHeaders}: the transcoder alone, the filter a {@code dropWhen} and the three columns
 *     {@code length(lines)}, {@code sum(lines.quantity)}, {@code sum(lines.quantity * lines.price_cents)};</li>
 * <li>{@code objectOrderHeaders}: the object path: Avro's {@code GenericDatumReader} (reusing its record), a
 *     Java row object computed from it, the project's {@link RowBinaryEncoder}.</li>
 * </ul>
 * The three write the same bytes (checked in {@link #setUp}). Run with {@code -prof gc} for
 * {@code gc.alloc.rate.norm}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class OrderHeadersBenchmark {
    private static final int RECORDS = 1024;

    /** The sample's order (v2). */
    public static final Schema ORDER = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "namespace": "bench", "fields": [
              {"name": "id", "type": "long"},
              {"name": "customer", "type": "string"},
              {"name": "status", "type": {"type": "enum", "name": "OrderStatus",
                  "symbols": ["NEW", "PAID", "SHIPPED", "CANCELLED"]}},
              {"name": "updated_ms", "type": "long"},
              {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "OrderLine",
                  "fields": [
                    {"name": "sku", "type": "string"},
                    {"name": "quantity", "type": "int"},
                    {"name": "price_cents", "type": "long"}]}}},
              {"name": "coupon", "type": ["null", "string"], "default": null}
            ]}""");

    private static final String STATUS = "Enum8('NEW' = 0, 'PAID' = 1, 'SHIPPED' = 2, 'CANCELLED' = 3)";

    private final byte[][] orders = new byte[RECORDS][];
    private int next;
    private final RowBuffer out = new RowBuffer(1024);
    private final Payload payload = new Payload();

    // The view path.
    private Deserializer<AvroView> views;
    private MultiRowEncoder<AvroView> viewEncoder;
    private Collector<AvroView> chain;
    private AvroView.EnumField status;
    private int cancelled;
    private AvroView.ArrayField lines;
    private AvroView.IntField qty;
    private AvroView.LongField price;
    private AvroView.Slot lineCount;
    private AvroView.Slot quantity;
    private AvroView.Slot total;
    private int rows;

    // The transcoder.
    private AvroRowTranscoder transcoder;

    // The object path.
    private GenericDatumReader<GenericRecord> reader;
    private BinaryDecoder decoder;
    private GenericRecord reuse;
    private RowBinaryEncoder<HeaderRow> rowEncoder;

    /** The object path's row. */
    record HeaderRow(
            long orderId,
            CharSequence customer,
            int status,
            int lineCount,
            long quantity,
            long totalCents,
            CharSequence coupon,
            long updatedMs) {}

    /** The view path's mapping: three columns set by the chain. */
    public static AvroRowMapping viewHeaders() {
        return AvroRowMapping.builder(ORDER)
                .column("order_id", "UInt64", "id")
                .column("customer", "String")
                .column("status", STATUS)
                .computed("line_count", "UInt16")
                .computed("quantity", "UInt32")
                .computed("total", "Decimal(18, 2)")
                .column("coupon", "Nullable(String)")
                .column("updated_ms", "Int64")
                .build();
    }

    /** The transcoder's mapping: the same columns, computed by expressions, the filter a condition. */
    public static AvroRowMapping transcodedHeaders() {
        return AvroRowMapping.builder(ORDER)
                .column("order_id", "UInt64", "id")
                .column("customer", "String")
                .column("status", STATUS)
                .column("line_count", "UInt16", "length(lines)")
                .column("quantity", "UInt32", "sum(lines.quantity)")
                .column("total", "Decimal(18, 2)", "sum(lines.quantity * lines.price_cents)")
                .column("coupon", "Nullable(String)")
                .column("updated_ms", "Int64")
                .dropWhen("status", "CANCELLED")
                .build();
    }

    @Setup
    public void setUp() throws Exception {
        Random random = new Random(34);
        Schema line = ORDER.getField("lines").schema().getElementType();
        Schema statusSchema = ORDER.getField("status").schema();
        for (int i = 0; i < RECORDS; i++) {
            GenericRecord order = new GenericData.Record(ORDER);
            order.put("id", (long) i);
            order.put("customer", "customer-" + random.nextInt(10_000));
            order.put(
                    "status",
                    new GenericData.EnumSymbol(
                            statusSchema,
                            random.nextInt(10) == 0 ? "CANCELLED" : random.nextBoolean() ? "NEW" : "PAID"));
            order.put("updated_ms", 1_700_000_000_000L + i);
            List<GenericRecord> items = new ArrayList<>();
            for (int l = random.nextInt(6); l > 0; l--) {
                GenericRecord item = new GenericData.Record(line);
                item.put("sku", "sku-" + random.nextInt(100_000));
                item.put("quantity", random.nextInt(1, 20));
                item.put("price_cents", (long) random.nextInt(100, 100_000));
                items.add(item);
            }
            order.put("lines", items);
            order.put("coupon", random.nextInt(4) == 0 ? "SAVE" + random.nextInt(10) : null);
            orders[i] = AvroWireFormat.raw(ORDER, order);
        }

        AvroRowMapping mapping = viewHeaders();
        AvroView.Fields f = AvroView.fields(mapping);
        status = f.enumField("status");
        cancelled = status.ordinalOf("CANCELLED");
        lines = f.array("lines");
        qty = lines.intField("quantity");
        price = lines.longField("price_cents");
        lineCount = f.slot("line_count");
        quantity = f.slot("quantity");
        total = f.slot("total");
        AvroRowTranscoder lane = AvroRowTranscoder.raw(mapping, ORDER).build();
        views = lane.views();
        viewEncoder = lane.viewEncoder();
        chain = v -> {
            if (notCancelled(v)) {
                try {
                    rows += viewEncoder.encodeRows(totals(v), null, out);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        };

        transcoder = AvroRowTranscoder.raw(transcodedHeaders(), ORDER).build();

        reader = new GenericDatumReader<>(ORDER, ORDER);
        Map<String, Integer> statuses = new LinkedHashMap<>();
        for (String s : statusSchema.getEnumSymbols()) {
            statuses.put(s, statuses.size());
        }
        rowEncoder = RowBinaryEncoder.<HeaderRow>builder()
                .uint64("order_id", HeaderRow::orderId)
                .string("customer", HeaderRow::customer)
                .enum8("status", statuses, HeaderRow::status)
                .uint16("line_count", HeaderRow::lineCount)
                .uint32("quantity", HeaderRow::quantity)
                .decimal64("total", 2, HeaderRow::totalCents)
                .nullableString("coupon", HeaderRow::coupon)
                .int64("updated_ms", HeaderRow::updatedMs)
                .build();

        for (int i = 0; i < RECORDS; i++) {
            next = i;
            byte[] a = viewOrderHeaders().toByteArray();
            next = i;
            byte[] b = transcodeOrderHeaders().toByteArray();
            next = i;
            byte[] c = objectOrderHeaders().toByteArray();
            if (!java.util.Arrays.equals(a, b) || !java.util.Arrays.equals(a, c)) {
                throw new IllegalStateException("order " + i + ": the paths write different rows");
            }
        }
        next = 0;
    }

    private boolean notCancelled(AvroView v) {
        return v.ordinal(status) != cancelled;
    }

    private AvroView totals(AvroView v) {
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

    private byte[] nextOrder() {
        int i = next;
        next = (i + 1) & (RECORDS - 1);
        return orders[i];
    }

    @Benchmark
    public RowBuffer viewOrderHeaders() throws Exception {
        byte[] body = nextOrder();
        out.reset();
        views.deserialize(null, payload.wrap(body), null, chain);
        return out;
    }

    @Benchmark
    public RowBuffer transcodeOrderHeaders() {
        byte[] body = nextOrder();
        RowBuffer out = this.out;
        out.reset();
        transcoder.transcode(body, 0, body.length, out);
        return out;
    }

    @Benchmark
    public RowBuffer objectOrderHeaders() throws IOException {
        byte[] body = nextOrder();
        out.reset();
        decoder = DecoderFactory.get().binaryDecoder(body, decoder);
        GenericRecord r = reader.read(reuse, decoder);
        reuse = r;
        int ordinal = ((GenericData.EnumSymbol) r.get(2)).toString().equals("CANCELLED") ? 3 : -1;
        if (ordinal == 3) {
            return out;
        }
        List<?> items = (List<?>) r.get(4);
        long q = 0;
        long cents = 0;
        for (Object o : items) {
            GenericRecord item = (GenericRecord) o;
            int lineQty = (Integer) item.get(1);
            q += lineQty;
            cents += lineQty * (Long) item.get(2);
        }
        HeaderRow row = new HeaderRow(
                (Long) r.get(0),
                (CharSequence) r.get(1),
                ORDER.getField("status").schema().getEnumOrdinal(r.get(2).toString()),
                items.size(),
                q,
                cents,
                (CharSequence) r.get(5),
                (Long) r.get(3));
        rowEncoder.encode(row, null, out);
        return out;
    }
}
