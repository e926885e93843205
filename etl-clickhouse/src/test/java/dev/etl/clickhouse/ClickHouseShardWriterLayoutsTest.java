package dev.etl.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.etl.error.SinkWriteException;
import dev.etl.sink.SealedBatch;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A writer for a sink whose rows change their columns: each batch goes out with its layout's statement. */
class ClickHouseShardWriterLayoutsTest {
    private static final String A = "http://127.0.0.1:18123";
    private static final String B = "http://127.0.0.1:18124";
    private static final ClickHouseColumn ID = new ClickHouseColumn("id", "UInt64");
    private static final ClickHouseColumn NOTE = new ClickHouseColumn("note", "String");

    private final FakeTransport transport = new FakeTransport();
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ColumnLayouts layouts = ColumnLayouts.of(List.of(ID));

    /** A batch of {@code layout} (rows {@code id} or {@code id, note}). */
    record LayoutBatch(long sequence, int attempt, int layout, byte[] bytes, int rowCount) implements SealedBatch {
        @Override
        public String sinkName() {
            return "orders";
        }

        @Override
        public int shard() {
            return 0;
        }

        @Override
        public int byteCount() {
            return bytes.length;
        }

        @Override
        public String dedupToken() {
            return "tok-" + sequence;
        }

        LayoutBatch retry() {
            return new LayoutBatch(sequence, attempt + 1, layout, bytes, rowCount);
        }
    }

    private ClickHouseShardWriter writer(InsertFormat format) {
        ClickHouseSinkConfig config = ClickHouseSinkConfig.builder()
                .table("shop", "orders")
                .shard(A, B)
                .format(format)
                .build();
        return new ClickHouseShardWriter(
                config,
                layouts,
                0,
                "orders",
                "p1",
                ClickHouseCapabilities.legacy("18.16.1"),
                transport,
                registry,
                clock::get,
                () -> {});
    }

    /** RowBinary rows {@code (id)} or, with a note, {@code (id, note)}. */
    private static byte[] rows(long firstId, int n, String note) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < n; i++) {
            long id = firstId + i;
            for (int b = 0; b < 8; b++) {
                out.write((int) (id >>> (8 * b)));
            }
            if (note != null) {
                byte[] s = note.getBytes(StandardCharsets.UTF_8);
                out.write(s.length);
                out.write(s, 0, s.length);
            }
        }
        return out.toByteArray();
    }

    @Test
    void eachBatchIsInsertedWithTheColumnsOfItsLayout() {
        ClickHouseShardWriter w = writer(InsertFormat.ROW_BINARY);
        w.write(new LayoutBatch(0, 1, 0, rows(1, 2, null), 2));
        int one = layouts.register(List.of(ID, NOTE)); // registered while the writer runs
        w.write(new LayoutBatch(1, 1, one, rows(3, 2, "n"), 2));
        w.write(new LayoutBatch(2, 1, 0, rows(5, 1, null), 1)); // encoded before the switch, written after

        assertThat(transport.inserts)
                .extracting(r -> r.insert().statement())
                .containsExactly(
                        "INSERT INTO `shop`.`orders` (`id`) FORMAT RowBinary",
                        "INSERT INTO `shop`.`orders` (`id`, `note`) FORMAT RowBinary",
                        "INSERT INTO `shop`.`orders` (`id`) FORMAT RowBinary");
        assertThat(transport.inserts.get(1).query()).contains("INSERT+INTO").contains("note");
    }

    @Test
    void aRetryOnAnotherReplicaSendsItsLayoutsStatementAgain() {
        int one = layouts.register(List.of(ID, NOTE));
        ClickHouseShardWriter w = writer(InsertFormat.ROW_BINARY);
        transport.failNext(A, FakeTransport.http(503, "Code: 999. overloaded"));
        LayoutBatch batch = new LayoutBatch(7, 1, one, rows(1, 3, "x"), 3);
        catchThrowableOfType(SinkWriteException.class, () -> w.write(batch));
        w.write(batch.retry());

        assertThat(transport.inserts).hasSize(2);
        assertThat(transport.inserts).extracting(FakeTransport.Request::replica).containsExactly(A, B);
        assertThat(transport.inserts)
                .extracting(r -> r.insert().statement())
                .containsOnly("INSERT INTO `shop`.`orders` (`id`, `note`) FORMAT RowBinary");
        assertThat(transport.inserts.get(0).body())
                .isEqualTo(transport.inserts.get(1).body());
    }

    @Test
    void aBatchOfAnUnknownLayoutFailsPermanentlyNamingItWithoutARequest() {
        ClickHouseShardWriter w = writer(InsertFormat.ROW_BINARY);
        SinkWriteException e = catchThrowableOfType(
                SinkWriteException.class, () -> w.write(new LayoutBatch(3, 1, 4, rows(1, 1, null), 1)));
        assertThat(e).isNotNull();
        assertThat(e.isTransient()).isFalse();
        assertThat(e.getMessage()).contains("column layout 4").contains("unknown column layout 4");
        assertThat(transport.inserts).isEmpty();
    }

    @Test
    void nativeBlocksAreBuiltFromTheColumnsOfTheBatchsLayout() {
        ClickHouseShardWriter w = writer(InsertFormat.NATIVE);
        w.write(new LayoutBatch(0, 1, 0, rows(1, 2, null), 2));
        int one = layouts.register(List.of(ID, NOTE));
        w.write(new LayoutBatch(1, 1, one, rows(3, 2, "n"), 2));

        assertThat(transport.inserts)
                .extracting(r -> r.insert().statement())
                .containsExactly(
                        "INSERT INTO `shop`.`orders` (`id`) FORMAT Native",
                        "INSERT INTO `shop`.`orders` (`id`, `note`) FORMAT Native");
        // A Native block starts with its column count and row count (LEB128).
        assertThat(transport.inserts.get(0).body()[0]).isEqualTo((byte) 1);
        assertThat(transport.inserts.get(1).body()[0]).isEqualTo((byte) 2);
        assertThat(new String(transport.inserts.get(1).body(), StandardCharsets.ISO_8859_1))
                .contains("note")
                .contains("String");
    }

    @Test
    void aLayoutWhoseTypesANativeBlockCannotCarryFailsItsBatchesPermanently() {
        ClickHouseShardWriter w = writer(InsertFormat.NATIVE);
        int odd = layouts.register(List.of(ID, new ClickHouseColumn("shape", "Object('json')")));
        SinkWriteException e = catchThrowableOfType(
                SinkWriteException.class, () -> w.write(new LayoutBatch(1, 1, odd, rows(1, 1, null), 1)));
        assertThat(e).isNotNull();
        assertThat(e.isTransient()).isFalse();
        assertThat(e.getMessage()).contains("column layout " + odd);
        assertThat(transport.inserts).isEmpty();
    }
}
