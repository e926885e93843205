package dev.etl.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.avro.clickhouse.AvroRowTranscoder;
import dev.etl.sample.avro.OrderLine;
import dev.etl.sample.avro.OrderStatus;
import dev.etl.sink.KeyHashRouter;
import dev.etl.test.capture.CaptureScript;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.ActiveProfiles;

/**
 * The {@code transcode} profile ({@link OrdersTranscodingConfiguration}) passes every test of the
 * object path's pipeline ({@link OrdersPipelineTest}, inherited: same rows, cancelled orders dropped,
 * v1 without coupon), and puts every order on the shard the object path puts it on.
 */
@ActiveProfiles("transcode")
class OrdersTranscodingPipelineTest extends OrdersPipelineTest {
    @Autowired
    AvroRowTranscoder.Builder transcoders;

    @Test
    void theTranscoderIsWhatWritesTheRows() {
        assertThat(transcoders.mapping().columns()).hasSize(9);
    }

    @Test
    void shardsEachOrderAsKeyHashRouterByOrderIdDoes() throws Exception {
        source.assign(0, 4);
        for (long id = 2001; id <= 2200; id++) {
            source.push(
                    4,
                    null,
                    id % 3 == 0
                            ? v1Order(id, "c", "PAID", line("a", 1, 1), line("b", 2, 2))
                            : v2Order(id, "c", OrderStatus.NEW, "X", new OrderLine[] {line("c", 3, 3)}));
        }
        assertThat(source.awaitCommitted(4, 200, WAIT)).isTrue();

        KeyHashRouter<Long> byOrderId = KeyHashRouter.byKey(id -> id);
        int rows = 0;
        for (CaptureScript.Write write : sink.writes()) {
            for (Row row : decode(write.bytes())) {
                if (row.orderId() >= 2001 && row.orderId() <= 2200) {
                    assertThat(write.shard())
                            .as("shard of order %d", row.orderId())
                            .isEqualTo(byOrderId.shard(row.orderId(), null, 2));
                    rows++;
                }
            }
        }
        assertThat(rows).isEqualTo(67 * 2 + 133);
    }
}
