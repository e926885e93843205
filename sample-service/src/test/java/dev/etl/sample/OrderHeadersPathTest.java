package dev.etl.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.ops.ChainFactory;
import dev.etl.sample.avro.Order;
import dev.etl.sample.avro.OrderLine;
import dev.etl.sample.avro.OrderStatus;
import dev.etl.sink.KeyHashRouter;
import dev.etl.sink.RowBuffer;
import dev.etl.test.autoconfigure.EtlPipelineTest;
import dev.etl.test.avro.StubSchemaRegistry;
import dev.etl.test.capture.CaptureScript;
import dev.etl.test.memory.MemorySourceHandle;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The like-for-like proof behind {@code scripts/bench.sh}'s {@code BENCH_PATHS=1}: each {@code headers-*}
 * profile, as the application assembles it (its configuration class, {@code application.yaml} and
 * {@code application-headers.yaml}, the real deserializers and registry client against the slice's stub
 * registry, the capture sink in place of ClickHouse), writes for the same payloads exactly the same
 * {@code order_headers} rows, byte for byte, on the same shards. The payloads are seeded random orders of
 * both writer schemas (v1 has no coupon), every status (cancelled ones dropped), 0 to 5 lines; the
 * reference row is written column by column as {@code order_headers.sql} declares it. A subclass per
 * profile ({@code @ActiveProfiles}) runs the same test.
 */
@EtlPipelineTest(properties = "etl.pipeline.threads=1")
abstract class OrderHeadersPathTest {
    static final int ORDERS = 400;

    @Autowired
    MemorySourceHandle source;

    @Autowired
    CaptureScript sink; // etl.sink.clickhouse.table: order_headers (application-headers.yaml)

    @Autowired
    StubSchemaRegistry registry;

    @Autowired
    ObjectProvider<ChainFactory> chains;

    @BeforeEach
    void serveWriterSchemas() throws IOException {
        registry.put(OrdersPipelineTest.V1_ID, OrdersPipelineTest.v1());
        registry.put(OrdersPipelineTest.V2_ID, Order.getClassSchema());
    }

    @Test
    void theProfileDefinesOneChain() {
        assertThat(chains.stream()).hasSize(1);
    }

    @Test
    void writesTheReferenceRowOfEveryLiveOrderByteForByteOnItsOrdersShard() throws Exception {
        source.assign(0, 0, 1);
        SplittableRandom random = new SplittableRandom(34);
        Map<Long, byte[]> expected = new HashMap<>();
        long[] end = new long[2];
        OrderStatus[] statuses = OrderStatus.values();
        for (long id = 1; id <= ORDERS; id++) {
            String customer = random.nextInt(10) == 0 ? "kundin-ß-" + id : "customer-" + random.nextInt(50);
            OrderStatus status = statuses[random.nextInt(statuses.length)];
            OrderLine[] lines = new OrderLine[random.nextInt(6)];
            long quantity = 0;
            long totalCents = 0;
            for (int i = 0; i < lines.length; i++) {
                int q = random.nextInt(100_000);
                long price = random.nextLong(10_000_000L);
                lines[i] = OrdersPipelineTest.line("sku-" + i, q, price);
                quantity += q;
                totalCents += q * price;
            }
            boolean v2 = id % 2 == 0;
            String coupon = v2 && random.nextBoolean() ? "SAVE" + random.nextInt(100) : null;
            byte[] payload = v2
                    ? OrdersPipelineTest.v2Order(id, customer, status, coupon, lines)
                    : OrdersPipelineTest.v1Order(id, customer, status.name(), lines);
            int partition = (int) (id % 2);
            end[partition] = source.push(partition, null, payload) + 1;
            if (status != OrderStatus.CANCELLED) {
                RowBuffer row = new RowBuffer(64)
                        .writeLongLE(id) // order_id UInt64
                        .writeString(customer) // customer String
                        .writeByte(status.ordinal()) // status Enum8, the codes of the symbols' order
                        .writeShortLE(lines.length) // line_count UInt16
                        .writeIntLE((int) quantity) // quantity UInt32
                        .writeLongLE(totalCents) // total Decimal64(2): the unscaled cents
                        .writeByte(coupon == null ? 1 : 0); // coupon Nullable(String)
                if (coupon != null) {
                    row.writeString(coupon);
                }
                expected.put(id, row.writeLongLE(1_700_000_000_000L + id).toByteArray()); // updated_ms Int64
            }
        }
        assertThat(source.awaitCommitted(0, end[0], OrdersPipelineTest.WAIT)).isTrue();
        assertThat(source.awaitCommitted(1, end[1], OrdersPipelineTest.WAIT)).isTrue();

        KeyHashRouter<Long> byOrderId = KeyHashRouter.byKey(id -> id);
        Map<Long, byte[]> written = new HashMap<>();
        for (CaptureScript.Write write : sink.writes()) {
            ByteBuffer in = ByteBuffer.wrap(write.bytes()).order(ByteOrder.LITTLE_ENDIAN);
            while (in.hasRemaining()) {
                int start = in.position();
                long orderId = skipRow(in);
                assertThat(write.shard()).as("shard of order %d", orderId).isEqualTo(byOrderId.shard(orderId, null, 2));
                byte[] previous = written.put(orderId, Arrays.copyOfRange(write.bytes(), start, in.position()));
                assertThat(previous).as("rows of order %d", orderId).isNull();
            }
        }
        assertThat(written.keySet()).containsExactlyInAnyOrderElementsOf(expected.keySet());
        for (Map.Entry<Long, byte[]> row : expected.entrySet()) {
            assertThat(written.get(row.getKey()))
                    .as("row of order %d", row.getKey())
                    .isEqualTo(row.getValue());
        }
    }

    /** Moves past one order_headers row, returning its order id. */
    private static long skipRow(ByteBuffer in) {
        long orderId = in.getLong(); // order_id
        OrdersPipelineTest.string(in); // customer
        in.position(in.position() + 1 + 2 + 4 + 8); // status, line_count, quantity, total
        if (in.get() == 0) { // coupon present
            OrdersPipelineTest.string(in);
        }
        in.getLong(); // updated_ms
        return orderId;
    }
}
