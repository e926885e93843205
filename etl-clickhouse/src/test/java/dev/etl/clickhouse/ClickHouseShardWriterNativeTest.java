package dev.etl.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.etl.error.SinkWriteException;
import dev.etl.sink.BatchConfig;
import dev.etl.sink.RowBuffer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The shard writer with {@link InsertFormat#NATIVE}: what it sends, on retries, and when rows do not fit. */
class ClickHouseShardWriterNativeTest {
    private static final String A = "http://127.0.0.1:18123";
    private static final String B = "http://127.0.0.1:18124";

    record Row(long id, String name) {}

    private static final RowBinaryEncoder<Row> ENCODER = RowBinaryEncoder.<Row>builder()
            .uint64("id", Row::id)
            .nullableString("name", Row::name)
            .build();

    private final FakeTransport transport = new FakeTransport();
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private static ClickHouseSinkConfig.Builder config() {
        return ClickHouseSinkConfig.builder()
                .table("shop", "orders")
                .shard(A, B)
                .breaker(2, Duration.ofSeconds(5))
                .format(InsertFormat.NATIVE);
    }

    private ClickHouseShardWriter writer(ClickHouseSinkConfig config) {
        return new ClickHouseShardWriter(
                config,
                ENCODER.columns(),
                0,
                "orders",
                "p1",
                ClickHouseCapabilities.legacy("18.16.1"),
                transport,
                registry,
                clock::get,
                () -> {});
    }

    private static TestBatch batch(long sequence, int attempt, Row... rows) {
        RowBuffer b = new RowBuffer(64);
        for (Row r : rows) {
            ENCODER.encode(r, b);
        }
        return new TestBatch(
                "orders", 0, sequence, b.toByteArray(), b.length(), rows.length, "tok-" + sequence, attempt);
    }

    @Test
    void aBatchIsSentAsOneNativeBlockOfItsRows() {
        writer(config().build()).write(batch(1, 1, new Row(1, "a"), new Row(2, null)));
        FakeTransport.Request request = transport.inserts.get(0);
        assertThat(request.insert().format()).isEqualTo(InsertFormat.NATIVE);
        assertThat(request.insert().statement()).isEqualTo("INSERT INTO `shop`.`orders` (`id`, `name`) FORMAT Native");
        assertThat(request.query())
                .contains("query=INSERT+INTO+%60shop%60.%60orders%60+%28%60id%60%2C+%60name%60%29+FORMAT+Native");
        assertThat(HexFormat.of().formatHex(request.body()))
                .isEqualTo("0202"
                        + "0269640655496e74363401000000000000000200000000000000" // id UInt64: 1, 2
                        + "046e616d65104e756c6c61626c6528537472696e6729" + "0001"
                        + "016100"); // name: null map, "a", ""
        assertThat(request.length()).isEqualTo(request.body().length);
        assertThat(registry.get("etl.clickhouse.native.transpose.duration")
                        .tags("pipeline", "p1", "sink", "orders", "shard", "0")
                        .timer()
                        .count())
                .isEqualTo(1);
        assertThat(registry.get("etl.clickhouse.native.rejected.batches")
                        .counter()
                        .count())
                .isZero();
    }

    @Test
    void aRetrySendsTheSameBlockToTheNextReplica() {
        ClickHouseShardWriter w = writer(config().build());
        transport.failNext(A, FakeTransport.connectRefused());
        TestBatch first = batch(7, 1, new Row(1, "x"), new Row(2, "y"));
        assertThat(catchThrowableOfType(SinkWriteException.class, () -> w.write(first))
                        .isTransient())
                .isTrue();
        w.write(batch(99, 1, new Row(5, "other"))); // a different batch in between reuses the buffer
        w.write(first.retry());
        assertThat(transport.replicasUsed()).containsExactly(A, B, B);
        assertThat(transport.inserts.get(2).body())
                .isEqualTo(transport.inserts.get(0).body());
    }

    @Test
    void rowsThatAreNotTheColumnsFailPermanentlyWithoutARequest() {
        ClickHouseShardWriter w = writer(config().build());
        RowBuffer other = new RowBuffer(16);
        other.writeLongLE(1).writeByte(9); // a Nullable flag of 9
        TestBatch bad = new TestBatch("orders", 0, 3, other.toByteArray(), other.length(), 1, "tok", 1);
        SinkWriteException e = catchThrowableOfType(SinkWriteException.class, () -> w.write(bad));
        assertThat(e.isTransient()).isFalse();
        assertThat(e)
                .hasMessageContaining("sink 'orders' shard 0 table shop.orders: batch 3 (1 rows, 9 bytes) cannot be "
                        + "sent in the Native format: row 0 of 1 (at byte 0 of 9), column 'name' (Nullable(String)): Nullable "
                        + "flag must be 0 or 1, got 9");
        assertThat(transport.inserts).isEmpty();
        assertThat(registry.get("etl.clickhouse.native.rejected.batches")
                        .tags("pipeline", "p1", "sink", "orders", "shard", "0")
                        .counter()
                        .count())
                .isEqualTo(1);
        assertThat(registry.get("etl.clickhouse.native.transpose.duration")
                        .timer()
                        .count())
                .isZero();
        assertThat(w.isHealthy()).isTrue();
        assertThat(w.replicaStatus())
                .allSatisfy(s -> assertThat(s.consecutiveFailures()).isZero());
        w.write(batch(4, 1, new Row(1, "a"))); // the writer goes on with the next batch
        assertThat(transport.inserts).hasSize(1);
    }

    @Test
    void aBlockBufferThatGrewPastTwiceTheBatchMaxBytesIsDroppedAfterTheWrite() {
        ClickHouseShardWriter w = writer(
                config().batch(new BatchConfig(1000, 64, Duration.ofSeconds(1))).build());
        w.write(batch(1, 1, new Row(1, "a")));
        assertThat(w.retainedBlockBytes()).isBetween(1, 128);
        Row[] many = new Row[20];
        for (int i = 0; i < many.length; i++) {
            many[i] = new Row(i, "name-" + i);
        }
        w.write(batch(2, 1, many));
        assertThat(transport.inserts.get(1).length()).isGreaterThan(128);
        assertThat(w.retainedBlockBytes()).isZero();
        w.write(batch(3, 1, new Row(1, "a")));
        assertThat(transport.inserts.get(2).body())
                .isEqualTo(transport.inserts.get(0).body());
    }

    @Test
    void nativeNeedsTheColumnsAndSupportedTypes() {
        assertThatThrownBy(() -> new ClickHouseShardWriter(
                        config().build(),
                        0,
                        "orders",
                        "p1",
                        ClickHouseCapabilities.legacy("18.16.1"),
                        transport,
                        new SimpleMeterRegistry(),
                        clock::get))
                .isInstanceOf(UnsupportedNativeTypeException.class)
                .hasMessageContaining("needs the sink's columns");
        assertThatThrownBy(() -> new ClickHouseShardWriter(
                        config().build(),
                        List.of(new ClickHouseColumn("x", "Object('json')")),
                        0,
                        "orders",
                        "p1",
                        ClickHouseCapabilities.legacy("18.16.1"),
                        transport,
                        new SimpleMeterRegistry(),
                        clock::get,
                        () -> {}))
                .isInstanceOf(UnsupportedNativeTypeException.class)
                .hasMessageContaining("column 'x'");
    }

    @Test
    void rowBinaryStillSendsTheBatchBytesAsTheyAre() {
        TestBatch b = batch(1, 1, new Row(1, "a"));
        writer(config().format(InsertFormat.ROW_BINARY).build()).write(b);
        assertThat(transport.inserts.get(0).insert().statement()).endsWith("FORMAT RowBinary");
        assertThat(transport.inserts.get(0).body()).isEqualTo(b.bytes());
        assertThat(registry.find("etl.clickhouse.native.transpose.duration").meters())
                .isEmpty();
        assertThat(registry.find("etl.clickhouse.native.rejected.batches").meters())
                .isEmpty();
    }
}
