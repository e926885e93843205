package com.example.tables;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.test.autoconfigure.EtlPipelineTest;
import dev.etl.test.capture.CaptureScript;
import dev.etl.test.memory.MemorySourceHandle;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;

/**
 * Named tables in the slice: a capture sink per {@code etl.sink.clickhouse.tables.<name>}, written with
 * the encoder qualified with that name and injected by the same qualifier. One record is routed by its
 * kind to one table, or split into rows of two; its offset commits only when every table it reached has
 * written its rows.
 */
// tag::slice[]
@EtlPipelineTest(
        properties = {
            "etl.sink.clickhouse.tables.orders.table=orders_local",
            "etl.sink.clickhouse.tables.lines.table=order_lines_local",
            "etl.sink.clickhouse.tables.refunds.table=refunds_local"
        })
class SeveralTablesPipelineTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

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
    void eachRecordGoesToTheTablesOfItsKind() throws Exception {
        long orderRows = this.orders.rows();
        long lineRows = this.lines.rows();
        long refundRows = this.refunds.rows();
        this.source.assign(0, 0);
        this.source.push(0, null, bytes("order,42,7,1250,sku-1:2;sku-2:1"));
        long last = this.source.push(0, null, bytes("refund,9,42,500"));
        assertThat(this.source.awaitCommitted(0, last + 1, WAIT)).isTrue();

        assertThat(this.orders.rows() - orderRows).isEqualTo(1); // the order's header
        assertThat(this.lines.rows() - lineRows).isEqualTo(2); // its two lines
        assertThat(this.refunds.rows() - refundRows).isEqualTo(1); // the refund, and nothing else
    }

    @Test
    void anOrdersOffsetWaitsForItsHeaderAndItsLines() throws Exception {
        this.source.assign(0, 1);
        this.lines.block(0); // the lines table stops answering
        long offset = this.source.push(1, null, bytes("order,43,8,990,sku-3:1"));
        assertThat(this.orders.awaitRows(this.orders.rows() + 1, WAIT)).isTrue(); // the header is written
        Thread.sleep(300);
        assertThat(this.source.lastCommitted(1))
                .as("committed while the lines are unwritten")
                .isLessThan(offset + 1);

        this.lines.release(0);
        assertThat(this.source.awaitCommitted(1, offset + 1, WAIT)).isTrue();
    }

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
// end::slice[]
