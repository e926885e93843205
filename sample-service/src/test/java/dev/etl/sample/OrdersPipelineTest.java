package dev.etl.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.avro.AvroWireFormat;
import dev.etl.sample.avro.Order;
import dev.etl.sample.avro.OrderLine;
import dev.etl.sample.avro.OrderStatus;
import dev.etl.test.autoconfigure.EtlPipelineTest;
import dev.etl.test.avro.StubSchemaRegistry;
import dev.etl.test.capture.CaptureScript;
import dev.etl.test.memory.MemorySourceHandle;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The orders pipeline as the application assembles it — {@link OrdersPipelineConfiguration}, the
 * real Avro deserializer and registry client, {@code application.yaml} (two shards) — with the
 * memory source in place of Kafka, the capture sink in place of ClickHouse and the slice's stub
 * schema registry in place of the real one, serving the two writer schemas by id.
 */
@EtlPipelineTest(properties = "etl.pipeline.threads=1")
class OrdersPipelineTest {
    // tag::test[]
    static final int V1_ID = 1;
    static final int V2_ID = 2;
    static final Duration WAIT = Duration.ofSeconds(20);

    @Autowired
    MemorySourceHandle source; // Kafka's stand-in: partitions, records, commits

    @Autowired
    CaptureScript sink; // ClickHouse's stand-in: the RowBinary batches written

    @Autowired
    StubSchemaRegistry registry; // the registry's stand-in: writer schemas by id

    @BeforeEach
    void serveWriterSchemas() throws IOException {
        registry.put(V1_ID, v1()); // the ids the test records carry
        registry.put(V2_ID, Order.getClassSchema());
    }

    @Test
    void dropsCancelledOrdersAndWritesOneRowPerLine() throws Exception {
        source.assign(0, 0, 1); // lane 0 owns partitions 0 and 1
        source.push(0, null, v1Order(1, "alice", "PAID", line("apple", 2, 150), line("kiwi", 1, 99)));
        source.push(1, null, v2Order(2, "bob", OrderStatus.NEW, "SAVE10", line("fig", 3, 1000)));
        source.push(0, null, v1Order(3, "carol", "CANCELLED", line("plum", 1, 10)));
        long last = source.push(1, null, v2Order(4, "dave", OrderStatus.SHIPPED, null, line("lime", 5, 20)));

        // Committed offsets are the end of the at-least-once path: every row derived was written.
        assertThat(source.awaitCommitted(0, 2, WAIT)).isTrue(); // includes the cancelled order
        assertThat(source.awaitCommitted(1, last + 1, WAIT)).isTrue();

        assertThat(rows(1, 4))
                .containsExactlyInAnyOrder(
                        new Row(1, 0, "alice", "PAID", "apple", 2, 150, null, 1_700_000_000_001L), // v1: no coupon
                        new Row(1, 1, "alice", "PAID", "kiwi", 1, 99, null, 1_700_000_000_001L),
                        new Row(2, 0, "bob", "NEW", "fig", 3, 1000, "SAVE10", 1_700_000_000_002L), // v2
                        new Row(4, 0, "dave", "SHIPPED", "lime", 5, 20, null, 1_700_000_000_004L));
    }
    // end::test[]

    @Test
    void sendsEveryLineOfAnOrderToTheSameShard() throws Exception {
        source.assign(0, 2, 3);
        for (long id = 1001; id <= 1100; id++) {
            OrderLine[] lines = {line("apple", 1, 100), line("pear", 2, 200), line("yuzu", 3, 300)};
            source.push(
                    (int) (2 + id % 2),
                    null,
                    id % 2 == 0 ? v2Order(id, "c", OrderStatus.PAID, null, lines) : v1Order(id, "c", "NEW", lines));
        }
        assertThat(source.awaitCommitted(2, 50, WAIT)).isTrue();
        assertThat(source.awaitCommitted(3, 50, WAIT)).isTrue();

        Map<Long, Integer> shardOfOrder = new HashMap<>();
        int[] rowsPerShard = new int[2];
        for (CaptureScript.Write write : sink.writes()) {
            for (Row row : decode(write.bytes())) {
                if (row.orderId() >= 1001 && row.orderId() <= 1100) {
                    Integer before = shardOfOrder.putIfAbsent(row.orderId(), write.shard());
                    assertThat(before).as("shard of order %d", row.orderId()).isIn(null, write.shard());
                    rowsPerShard[write.shard()]++;
                }
            }
        }
        assertThat(shardOfOrder).hasSize(100);
        assertThat(rowsPerShard[0] + rowsPerShard[1]).isEqualTo(300);
        assertThat(rowsPerShard[0]).as("rows on shard 0").isPositive(); // both shards of application.yaml
        assertThat(rowsPerShard[1]).as("rows on shard 1").isPositive();
    }

    // ---- test data: orders written with the v1 schema (generic) and the v2 class (specific) ----

    static OrderLine line(String sku, int quantity, long priceCents) {
        return OrderLine.newBuilder()
                .setSku(sku)
                .setQuantity(quantity)
                .setPriceCents(priceCents)
                .build();
    }

    static byte[] v2Order(long id, String customer, OrderStatus status, String coupon, OrderLine... lines) {
        Order order = Order.newBuilder()
                .setId(id)
                .setCustomer(customer)
                .setStatus(status)
                .setUpdatedMs(1_700_000_000_000L + id)
                .setLines(List.of(lines))
                .setCoupon(coupon)
                .build();
        return AvroWireFormat.confluent(V2_ID, Order.getClassSchema(), order);
    }

    static byte[] v1Order(long id, String customer, String status, OrderLine... lines) throws IOException {
        Schema v1 = v1();
        Schema lineSchema = v1.getField("lines").schema().getElementType();
        GenericRecord order = new GenericData.Record(v1);
        order.put("id", id);
        order.put("customer", customer);
        order.put("status", new GenericData.EnumSymbol(v1.getField("status").schema(), status));
        order.put("updated_ms", 1_700_000_000_000L + id);
        List<GenericRecord> generic = new ArrayList<>();
        for (OrderLine l : lines) {
            GenericRecord g = new GenericData.Record(lineSchema);
            g.put("sku", l.getSku());
            g.put("quantity", l.getQuantity());
            g.put("price_cents", l.getPriceCents());
            generic.add(g);
        }
        order.put("lines", generic);
        return AvroWireFormat.confluent(V1_ID, v1, order);
    }

    static Schema v1() throws IOException {
        return OrderLoadGenerator.load("/schemas/order-v1.avsc");
    }

    // ---- reading the captured RowBinary back, column by column as orders.sql declares them ----

    record Row(
            long orderId,
            int lineNo,
            String customer,
            String status,
            String sku,
            long quantity,
            long priceCents,
            String coupon,
            long updatedMs) {}

    private static final String[] STATUS = {"NEW", "PAID", "SHIPPED", "CANCELLED"};

    List<Row> rows(long fromId, long toId) {
        List<Row> rows = new ArrayList<>();
        for (CaptureScript.Write write : sink.writes()) {
            for (Row row : decode(write.bytes())) {
                if (row.orderId() >= fromId && row.orderId() <= toId) {
                    rows.add(row);
                }
            }
        }
        return rows;
    }

    static List<Row> decode(byte[] rowBinary) {
        ByteBuffer in = ByteBuffer.wrap(rowBinary).order(ByteOrder.LITTLE_ENDIAN);
        List<Row> rows = new ArrayList<>();
        while (in.hasRemaining()) {
            long orderId = in.getLong(); // UInt64
            int lineNo = Short.toUnsignedInt(in.getShort()); // UInt16
            String customer = string(in); // String
            String status = STATUS[in.get()]; // Enum8
            String sku = string(in); // String
            long quantity = Integer.toUnsignedLong(in.getInt()); // UInt32
            long price = in.getLong(); // Decimal64(2): unscaled cents
            String coupon = in.get() == 1 ? null : string(in); // Nullable(String)
            long updatedMs = in.getLong(); // Int64
            rows.add(new Row(orderId, lineNo, customer, status, sku, quantity, price, coupon, updatedMs));
        }
        return rows;
    }

    static String string(ByteBuffer in) {
        int length = 0;
        for (int shift = 0; ; shift += 7) { // unsigned LEB128 length
            byte b = in.get();
            length |= (b & 0x7F) << shift;
            if (b >= 0) {
                break;
            }
        }
        byte[] bytes = new byte[length];
        in.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
