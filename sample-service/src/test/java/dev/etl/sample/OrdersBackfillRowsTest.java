package dev.etl.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.avro.AvroWireFormat;
import dev.etl.avro.WriterSchemas;
import dev.etl.sample.OrdersPipelineTest.Row;
import dev.etl.sample.avro.Order;
import dev.etl.sample.avro.OrderStatus;
import dev.etl.test.autoconfigure.EtlPipelineTest;
import dev.etl.test.capture.CaptureScript;
import dev.etl.test.memory.MemorySourceHandle;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * What the {@code backfill} profile hands the chain: Avro rows of an archived container file in
 * single-object encoding (no registry id, no key), the file's writer schema registered in
 * {@link WriterSchemas#shared()}. The sample's chain, built for the topic's Confluent records, reads them
 * unchanged — v1 rows resolved against the v2 reader — and routes by order id, not by the missing key.
 */
@EtlPipelineTest(properties = "etl.pipeline.threads=1")
class OrdersBackfillRowsTest {

    @Autowired
    MemorySourceHandle source;

    @Autowired
    CaptureScript sink;

    @Test
    void singleObjectRowsOfBothSchemaVersionsBecomeTheSameRowsAsTheTopicsRecords() throws Exception {
        Schema v1 = OrdersPipelineTest.v1();
        WriterSchemas.shared().register(v1);
        WriterSchemas.shared().register(Order.getClassSchema());
        source.assign(0, 0);
        source.push(0, null, v1Row(v1, 7, "erin", "PAID"));
        Order v2 = Order.newBuilder()
                .setId(8)
                .setCustomer("frank")
                .setStatus(OrderStatus.NEW)
                .setUpdatedMs(1_700_000_000_008L)
                .setLines(List.of(OrdersPipelineTest.line("fig", 2, 300), OrdersPipelineTest.line("date", 1, 75)))
                .setCoupon("SAVE10")
                .build();
        long last = source.push(0, null, AvroWireFormat.singleObject(Order.getClassSchema(), v2));

        assertThat(source.awaitCommitted(0, last + 1, OrdersPipelineTest.WAIT)).isTrue();
        List<Row> rows = new ArrayList<>();
        Set<String> tokens = new HashSet<>();
        for (CaptureScript.Write write : sink.writes()) {
            if (write.dedupToken() != null && !tokens.add(write.dedupToken())) {
                continue; // a block written again under its token: ClickHouse keeps one copy, so the table does
            }
            for (Row row : OrdersPipelineTest.decode(write.bytes())) {
                if (row.orderId() == 7 || row.orderId() == 8) { // the slice's context is shared with other tests
                    rows.add(row);
                }
            }
        }
        assertThat(rows)
                .containsExactlyInAnyOrder(
                        new Row(7, 0, "erin", "PAID", "kiwi", 4, 120, null, 1_700_000_000_007L),
                        new Row(8, 0, "frank", "NEW", "fig", 2, 300, "SAVE10", 1_700_000_000_008L),
                        new Row(8, 1, "frank", "NEW", "date", 1, 75, "SAVE10", 1_700_000_000_008L));
    }

    private static byte[] v1Row(Schema v1, long id, String customer, String status) throws IOException {
        Schema lineSchema = v1.getField("lines").schema().getElementType();
        GenericRecord order = new GenericData.Record(v1);
        order.put("id", id);
        order.put("customer", customer);
        order.put("status", new GenericData.EnumSymbol(v1.getField("status").schema(), status));
        order.put("updated_ms", 1_700_000_000_000L + id);
        GenericRecord line = new GenericData.Record(lineSchema);
        line.put("sku", "kiwi");
        line.put("quantity", 4);
        line.put("price_cents", 120L);
        order.put("lines", List.of(line));
        return AvroWireFormat.singleObject(v1, order);
    }
}
