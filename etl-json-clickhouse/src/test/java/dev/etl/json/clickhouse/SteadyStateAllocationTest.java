package dev.etl.json.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.sink.RowBuffer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The transcoder allocates nothing per message once warm: no tree, no String per field name or value. */
class SteadyStateAllocationTest {

    /** An order as a shop's topic carries it: nested customer, arrays, a map, escapes, unknown fields. */
    static final String ORDER = """
            {"order_id": 1234567890123, "customer": {"id": "c-42", "name": "Ann \\"The\\" Example \\u00e9",
             "tier": "gold"}, "status": "paid", "created_at": "2024-05-01T12:30:15.123Z", "total": 1234.56,
             "currency": "EUR", "lines": [{"sku": "A1", "qty": 2, "price": 10.5}, {"sku": "B2", "qty": 1, "price": 99}],
             "skus": ["A1", "B2", "C3"], "quantities": [2, 1, 5], "tags": {"channel": "web", "promo": "spring"},
             "note": null, "trace_id": "123e4567-e89b-12d3-a456-426614174000", "score": 0.875}""";

    static JsonRowTranscoder.Builder orders() {
        return JsonRowTranscoder.builder(Rows.table(
                        "order_id", "UInt64",
                        "customer_id", "String",
                        "customer_name", "String",
                        "status", "Enum8('new' = 1, 'paid' = 2, 'shipped' = 3)",
                        "created_at", "DateTime64(3)",
                        "total", "Decimal(18, 2)",
                        "currency", "LowCardinality(String)",
                        "skus", "Array(String)",
                        "quantities", "Array(UInt16)",
                        "tags", "Map(String, String)",
                        "note", "Nullable(String)",
                        "trace_id", "UUID",
                        "score", "Float64"))
                .field("customer_id", "customer.id")
                .field("customer_name", "customer.name");
    }

    @Test
    void anOrderIsTranscodedWithoutAllocating() {
        JsonRowTranscoder transcoder = orders().build();
        byte[] message = ORDER.getBytes(StandardCharsets.UTF_8);
        RowBuffer out = new RowBuffer(1 << 16);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        for (int round = 0; round < 3; round++) {
            long before = threads.getThreadAllocatedBytes(thread);
            for (int i = 0; i < 20_000; i++) {
                out.reset();
                transcoder.transcode(message, 0, message.length, out);
            }
            long allocated = threads.getThreadAllocatedBytes(thread) - before;
            if (round == 2) {
                // The measurement's own calls may allocate a little; per message it must be nothing.
                assertThat(allocated).as("bytes allocated for 20,000 messages").isLessThan(20_000);
            }
        }
        assertThat(transcoder.unknownFields()).isEqualTo(3 * 20_000 * 2); // "tier" and "lines"
    }
}
