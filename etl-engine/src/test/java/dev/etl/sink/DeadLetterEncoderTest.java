package dev.etl.sink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.error.ErrorClass;
import dev.etl.error.RecordException;
import dev.etl.internal.record.MutableRecordMeta;
import dev.etl.record.Payload;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class DeadLetterEncoderTest {

    @Test
    void roundTripsKeysValuesAbsentFieldsAndHeaders() {
        RowBuffer out = new RowBuffer(16);
        byte[] backing = {9, 9, 1, 2, 3, 9};
        DeadLetterEncoder.encode(
                out, new Payload().wrap(backing, 2, 3), new Payload().wrap(new byte[0]), 42L, "a", "x", "b", "ü");
        DeadLetterEncoder.encode(out, new Payload(), null, -1L);

        assertThat(DeadLetterEncoder.decode(out.array(), out.length()))
                .satisfiesExactly(
                        first -> {
                            assertThat(first.key()).containsExactly(1, 2, 3);
                            assertThat(first.value()).isEmpty();
                            assertThat(first.timestampMs()).isEqualTo(42L);
                            assertThat(first.headers())
                                    .containsExactly(java.util.Map.entry("a", "x"), java.util.Map.entry("b", "ü"));
                        },
                        second -> {
                            assertThat(second.key()).isNull();
                            assertThat(second.value()).isNull();
                            assertThat(second.headers()).isEmpty();
                        });
    }

    @Test
    void encodesTheCurrentSourceRecordWithItsContext() {
        MutableRecordMeta meta = new MutableRecordMeta();
        meta.record(
                3, 17, 1000L, new Payload().wrap("k".getBytes(StandardCharsets.UTF_8)), new Payload().wrap(new byte[] {
                            -1, 0
                        }));
        RecordException failure = new RecordException(
                ErrorClass.OPERATOR, "parse", "orders-3", 17, "x".repeat(5000), new IllegalStateException("boom"));
        RowBuffer out = new RowBuffer(16);

        DeadLetterEncoder.encode(meta, "orders", "orders-3", failure, out);

        DeadLetterRecord dead =
                DeadLetterEncoder.decode(out.array(), out.length()).get(0);
        assertThat(dead.key()).isEqualTo("k".getBytes(StandardCharsets.UTF_8));
        assertThat(dead.value()).containsExactly(-1, 0);
        assertThat(dead.headers())
                .containsEntry("etl.source.topic", "orders")
                .containsEntry("etl.source.partition", "3")
                .containsEntry("etl.source.offset", "17")
                .containsEntry("etl.stage", "parse")
                .containsEntry("etl.error.class", "operator")
                .containsEntry("etl.exception", IllegalStateException.class.getName());
        assertThat(dead.header("etl.error.message"))
                .hasSize(DeadLetterEncoder.MAX_MESSAGE_CHARS)
                .endsWith("...")
                .startsWith("stage 'parse' failed at orders-3@17");
    }

    @Test
    void theErrorMessageHeaderCarriesNoSecret() {
        MutableRecordMeta meta = new MutableRecordMeta();
        meta.record(
                3, 17, 1000L, new Payload().wrap("k".getBytes(StandardCharsets.UTF_8)), new Payload().wrap(new byte[] {1
                        }));
        RecordException failure = new RecordException(
                ErrorClass.OPERATOR,
                "enrich",
                "orders-3",
                17,
                "lookup via https://svc:hunter2@customers.internal/v1 failed (password=hunter2)",
                new IllegalStateException("boom"));
        RowBuffer out = new RowBuffer(16);

        DeadLetterEncoder.encode(meta, "orders", "orders-3", failure, out);

        String header =
                DeadLetterEncoder.decode(out.array(), out.length()).get(0).header("etl.error.message");
        assertThat(header)
                .doesNotContain("hunter2")
                .contains("https://svc:******@customers.internal/v1", "password=******", "stage 'enrich' failed");
    }

    @Test
    void partitionNumberIsTheSuffixAfterTheTopicOrTheWholeName() {
        assertThat(DeadLetterEncoder.partitionNumber("orders", "orders-12")).isEqualTo("12");
        assertThat(DeadLetterEncoder.partitionNumber("default", "memory-0")).isEqualTo("memory-0");
        assertThat(DeadLetterEncoder.partitionNumber("a-b", "a-b-x")).isEqualTo("a-b-x");
    }
}
