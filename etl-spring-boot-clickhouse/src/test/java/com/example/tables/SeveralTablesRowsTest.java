package com.example.tables;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.test.autoconfigure.EtlPipelineTest;
import dev.etl.test.capture.CaptureScript;
import dev.etl.test.memory.MemorySourceHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;

/** Each named table's rows are encoded with the encoder qualified with its name. */
@EtlPipelineTest(
        properties = {
            "etl.sink.clickhouse.tables.orders.table=orders_local",
            "etl.sink.clickhouse.tables.lines.table=order_lines_local",
            "etl.sink.clickhouse.tables.refunds.table=refunds_local"
        })
class SeveralTablesRowsTest {

    @Autowired
    MemorySourceHandle source;

    @Autowired
    @Qualifier("orders")
    CaptureScript orders;

    @Autowired
    @Qualifier("lines")
    CaptureScript lines;

    @Autowired
    @Qualifier("refunds")
    CaptureScript refunds;

    @Test
    void everyTableIsWrittenWithItsOwnEncoder() throws Exception {
        this.source.assign(0, 2);
        this.source.push(2, null, SeveralTablesPipelineTest.bytes("order,44,7,1250,ab:2"));
        long last = this.source.push(2, null, SeveralTablesPipelineTest.bytes("refund,9,44,500"));
        assertThat(this.source.awaitCommitted(2, last + 1, Duration.ofSeconds(20)))
                .isTrue();

        ByteBuffer order = lastRow(this.orders); // order_id, customer_id, amount (Decimal64)
        assertThat(List.of(order.getLong(), order.getLong(), order.getLong())).containsExactly(44L, 7L, 1250L);
        ByteBuffer line = lastRow(this.lines); // order_id, line_no, sku, quantity
        assertThat(line.getLong()).isEqualTo(44);
        assertThat(line.getShort()).isEqualTo((short) 0);
        assertThat(line.get()).as("sku length").isEqualTo((byte) 2);
        assertThat(new String(new byte[] {line.get(), line.get()})).isEqualTo("ab");
        assertThat(line.getInt()).isEqualTo(2);
        ByteBuffer refund = lastRow(this.refunds); // refund_id, order_id, amount
        assertThat(List.of(refund.getLong(), refund.getLong(), refund.getLong()))
                .containsExactly(9L, 44L, 500L);
    }

    /** The first row of the script's latest write. */
    private static ByteBuffer lastRow(CaptureScript script) {
        List<CaptureScript.Write> writes = script.writes();
        return ByteBuffer.wrap(writes.get(writes.size() - 1).bytes()).order(ByteOrder.LITTLE_ENDIAN);
    }
}
