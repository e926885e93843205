package dev.etl.sample;

import static dev.etl.sample.OrdersPipelineTest.line;
import static dev.etl.sample.OrdersPipelineTest.v1Order;
import static dev.etl.sample.OrdersPipelineTest.v2Order;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.sample.OrdersPipelineTest.Row;
import dev.etl.sample.avro.Order;
import dev.etl.sample.avro.OrderLine;
import dev.etl.sample.avro.OrderStatus;
import dev.etl.sink.SinkDefinition;
import dev.etl.test.autoconfigure.EtlPipelineTest;
import dev.etl.test.avro.StubSchemaRegistry;
import dev.etl.test.capture.CaptureScript;
import dev.etl.test.memory.MemorySourceHandle;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.test.context.ActiveProfiles;

/**
 * The {@code tables} profile as the application assembles it — {@link OrderTablesConfiguration} with the
 * deserializer and line encoder of {@link OrdersPipelineConfiguration}, {@code application.yaml} and
 * {@code application-tables.yaml} (two shards, the {@code orders} sink and the named tables
 * {@code headers} and {@code cancelled}) — with the slice's memory source, a capture sink per table and
 * the stub schema registry. Each table gets the rows of its kind of order; an order's offset is committed
 * only once its header and its lines are both written.
 */
@EtlPipelineTest(properties = "etl.pipeline.threads=1")
@ActiveProfiles("tables")
class OrderTablesPipelineTest {
    static final Duration WAIT = Duration.ofSeconds(20);

    @Autowired
    MemorySourceHandle source;

    @Autowired
    CaptureScript lines; // etl.sink.clickhouse.table: orders

    @Autowired
    @Qualifier("headers")
    CaptureScript headers; // etl.sink.clickhouse.tables.headers

    @Autowired
    @Qualifier("cancelled")
    CaptureScript cancelled; // etl.sink.clickhouse.tables.cancelled

    @Autowired
    StubSchemaRegistry registry;

    @Autowired
    ObjectProvider<SinkDefinition> sinks;

    @BeforeEach
    void serveWriterSchemas() throws IOException {
        registry.put(OrdersPipelineTest.V1_ID, OrdersPipelineTest.v1());
        registry.put(OrdersPipelineTest.V2_ID, Order.getClassSchema());
    }

    @Test
    void threeSinksFromConfiguration() {
        assertThat(sinks.orderedStream())
                .extracting(SinkDefinition::name)
                .containsExactly("orders", "headers", "cancelled"); // the table sink first, then the named ones
    }

    @Test
    void splitsOrdersIntoHeadersAndLinesAndRoutesCancelledOrders() throws Exception {
        source.assign(0, 0, 1);
        source.push(0, null, v1Order(1, "alice", "PAID", line("apple", 2, 150), line("kiwi", 1, 99)));
        source.push(1, null, v2Order(2, "bob", OrderStatus.NEW, "SAVE10", line("fig", 3, 1000)));
        source.push(0, null, v1Order(3, "carol", "CANCELLED", line("plum", 1, 10)));
        long last = source.push(
                1,
                null,
                v2Order(4, "dave", OrderStatus.CANCELLED, "SAVE10", line("lime", 5, 20), line("date", 1, 300)));

        assertThat(source.awaitCommitted(0, 2, WAIT)).isTrue();
        assertThat(source.awaitCommitted(1, last + 1, WAIT)).isTrue();

        assertThat(headers(headers, 1, 4, true))
                .containsExactlyInAnyOrder( // one row per live order
                        new Header(1, "alice", "PAID", 2, 3, 399, null, 1_700_000_000_001L),
                        new Header(2, "bob", "NEW", 1, 3, 3000, "SAVE10", 1_700_000_000_002L));
        assertThat(lines(1, 4))
                .containsExactlyInAnyOrder( // its lines, as without the profile
                        new Row(1, 0, "alice", "PAID", "apple", 2, 150, null, 1_700_000_000_001L),
                        new Row(1, 1, "alice", "PAID", "kiwi", 1, 99, null, 1_700_000_000_001L),
                        new Row(2, 0, "bob", "NEW", "fig", 3, 1000, "SAVE10", 1_700_000_000_002L));
        assertThat(headers(cancelled, 1, 4, false))
                .containsExactlyInAnyOrder( // cancelled orders: no lines
                        new Header(3, "carol", "CANCELLED", 1, 1, 10, null, 1_700_000_000_003L),
                        new Header(4, "dave", "CANCELLED", 2, 6, 400, "SAVE10", 1_700_000_000_004L));
    }

    @Test
    void anOrdersOffsetIsCommittedOnlyOnceItsHeaderAndItsLinesAreWritten() throws Exception {
        source.assign(0, 2, 3);
        lines.block(0).block(1); // the orders table stops answering
        try {
            long offset = source.push(2, null, v2Order(2001, "erin", OrderStatus.PAID, null, line("pear", 1, 80)));
            assertThat(awaitHeader(2001)).isTrue(); // its header is written ...
            Thread.sleep(300);
            assertThat(source.lastCommitted(2))
                    .as("committed without its lines")
                    .isLessThan(offset + 1);

            long gone = source.push(3, null, v1Order(2002, "fred", "CANCELLED", line("fig", 1, 5)));
            assertThat(source.awaitCommitted(3, gone + 1, WAIT)) // a cancelled order waits for no line
                    .as("a cancelled order waits for cancelled_orders alone")
                    .isTrue();
            assertThat(source.lastCommitted(2))
                    .as("committed without its lines")
                    .isLessThan(offset + 1);
        } finally {
            lines.release(0).release(1);
        }
        assertThat(source.awaitCommitted(2, source.endOffset(2), WAIT)).isTrue(); // ... and then its lines

        headers.block(0).block(1); // the other way round
        try {
            long offset = source.push(2, null, v1Order(2003, "gina", "NEW", line("yuzu", 2, 40)));
            assertThat(awaitLines(2003, 1)).isTrue();
            Thread.sleep(300);
            assertThat(source.lastCommitted(2))
                    .as("committed without its header")
                    .isLessThan(offset + 1);
        } finally {
            headers.release(0).release(1);
        }
        assertThat(source.awaitCommitted(2, source.endOffset(2), WAIT)).isTrue();
        assertThat(headers(headers, 2001, 2003, true))
                .extracting(Header::orderId)
                .containsExactlyInAnyOrder(2001L, 2003L);
        assertThat(lines(2001, 2003)).extracting(Row::orderId).containsExactlyInAnyOrder(2001L, 2003L);
        assertThat(headers(cancelled, 2001, 2003, false))
                .extracting(Header::orderId)
                .containsExactly(2002L);
    }

    @Test
    void anOrdersHeaderAndLinesLandOnTheSameShard() throws Exception {
        source.assign(0, 4, 5);
        for (long id = 3001; id <= 3100; id++) {
            OrderLine[] items = {line("apple", 1, 100), line("pear", 2, 200)};
            source.push(
                    (int) (4 + id % 2),
                    null,
                    id % 2 == 0 ? v2Order(id, "c", OrderStatus.PAID, null, items) : v1Order(id, "c", "NEW", items));
        }
        assertThat(source.awaitCommitted(4, 50, WAIT)).isTrue();
        assertThat(source.awaitCommitted(5, 50, WAIT)).isTrue();

        Map<Long, Integer> headerShard = new HashMap<>();
        int[] headersPerShard = new int[2];
        for (CaptureScript.Write write : headers.writes()) {
            for (Header header : decodeHeaders(write.bytes(), true)) {
                if (header.orderId() >= 3001 && header.orderId() <= 3100) {
                    headerShard.put(header.orderId(), write.shard());
                    headersPerShard[write.shard()]++;
                }
            }
        }
        assertThat(headerShard).hasSize(100);
        assertThat(headersPerShard[0]).as("headers on shard 0").isPositive();
        assertThat(headersPerShard[1]).as("headers on shard 1").isPositive();
        int lineRows = 0;
        for (CaptureScript.Write write : lines.writes()) {
            for (Row row : OrdersPipelineTest.decode(write.bytes())) {
                if (row.orderId() >= 3001 && row.orderId() <= 3100) {
                    assertThat(write.shard())
                            .as("shard of order %d's line", row.orderId())
                            .isEqualTo(headerShard.get(row.orderId()));
                    lineRows++;
                }
            }
        }
        assertThat(lineRows).isEqualTo(200);
    }

    // ---- waiting for and reading the captured RowBinary back, as the .sql files declare the tables ----

    boolean awaitHeader(long orderId) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!headers(headers, orderId, orderId, true).isEmpty()) {
                return true;
            }
            Thread.sleep(10);
        }
        return false;
    }

    boolean awaitLines(long orderId, int count) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (lines(orderId, orderId).size() >= count) {
                return true;
            }
            Thread.sleep(10);
        }
        return false;
    }

    List<Row> lines(long fromId, long toId) {
        List<Row> rows = new ArrayList<>();
        for (CaptureScript.Write write : lines.writes()) {
            for (Row row : OrdersPipelineTest.decode(write.bytes())) {
                if (row.orderId() >= fromId && row.orderId() <= toId) {
                    rows.add(row);
                }
            }
        }
        return rows;
    }

    /** A row of order_headers, or of cancelled_orders (which has no status column: CANCELLED). */
    record Header(
            long orderId,
            String customer,
            String status,
            int lineCount,
            long quantity,
            long totalCents,
            String coupon,
            long updatedMs) {}

    private static final String[] STATUS = {"NEW", "PAID", "SHIPPED", "CANCELLED"};

    static List<Header> headers(CaptureScript table, long fromId, long toId, boolean withStatus) {
        List<Header> rows = new ArrayList<>();
        for (CaptureScript.Write write : table.writes()) {
            for (Header header : decodeHeaders(write.bytes(), withStatus)) {
                if (header.orderId() >= fromId && header.orderId() <= toId) {
                    rows.add(header);
                }
            }
        }
        return rows;
    }

    static List<Header> decodeHeaders(byte[] rowBinary, boolean withStatus) {
        ByteBuffer in = ByteBuffer.wrap(rowBinary).order(ByteOrder.LITTLE_ENDIAN);
        List<Header> rows = new ArrayList<>();
        while (in.hasRemaining()) {
            long orderId = in.getLong(); // UInt64
            String customer = OrdersPipelineTest.string(in); // String
            String status = withStatus ? STATUS[in.get()] : "CANCELLED"; // Enum8
            int lineCount = Short.toUnsignedInt(in.getShort()); // UInt16
            long quantity = Integer.toUnsignedLong(in.getInt()); // UInt32
            long total = in.getLong(); // Decimal64(2): unscaled cents
            String coupon = in.get() == 1 ? null : OrdersPipelineTest.string(in); // Nullable(String)
            long updatedMs = in.getLong(); // Int64
            rows.add(new Header(orderId, customer, status, lineCount, quantity, total, coupon, updatedMs));
        }
        return rows;
    }
}
