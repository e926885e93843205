package dev.etl.json.clickhouse.guide;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.ClickHouseSink;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.ClickHouseTableSchema;
import dev.etl.deser.Deserializer;
import dev.etl.json.clickhouse.JsonRowTranscoder;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.record.Payload;
import dev.etl.sink.KeyHashRouter;
import dev.etl.sink.RowBuffer;
import dev.etl.sink.SinkDefinition;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.memory.MemorySource;
import dev.etl.test.memory.MemorySourceHandle;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The code of the section "Straight into a ClickHouse table" of {@code docs/connectors/json.md} (its
 * snippets are these regions), run through a pipeline: JSON orders and a tombstone in, one row per order out.
 */
class JsonRowsGuideTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    /** The table, as system.columns describes it (the Spring layer reads it from the server). */
    static final ClickHouseTableSchema ORDERS = ClickHouseTableSchema.of(
            List.of(
                    new ClickHouseColumn("order_id", "UInt64"),
                    new ClickHouseColumn("customer", "String"),
                    new ClickHouseColumn("status", "Enum8('new' = 1, 'paid' = 2)"),
                    new ClickHouseColumn("amount", "Decimal(18, 2)"),
                    new ClickHouseColumn("created_at", "DateTime64(3)"),
                    new ClickHouseColumn("tags", "Array(LowCardinality(String))"),
                    new ClickHouseColumn("coupon", "Nullable(String)"),
                    new ClickHouseColumn("inserted_at", "DateTime")), // DEFAULT now()
            Set.of("inserted_at"));

    // tag::mapping[]
    /** Every column takes the field of its name, but where a path says otherwise. */
    static JsonRowTranscoder.Builder orders(ClickHouseTableSchema table) {
        return JsonRowTranscoder.builder(table)
                .field("customer", "customer.name") // a field of a nested object
                .field("order_id", "id") // another name
                .serverDefault("inserted_at"); // left out of the insert: the server computes its DEFAULT
    }

    /** The insert carries the transcoder's columns. */
    static SinkDefinition ordersSink(
            ClickHouseSinkConfig config, JsonRowTranscoder.Builder orders, MeterRegistry meters) {
        return ClickHouseSink.definition("orders", "orders-pipeline", config, orders.columns(), meters);
    }
    // end::mapping[]

    // tag::chain[]
    static ChainFactory ordersChain(JsonRowTranscoder.Builder orders) {
        return ctx -> Chains.from(ctx, Deserializer.payload()) // the raw bytes, no tree
                .filter("not-tombstone", Payload::isPresent)
                .sink(orders.build(), KeyHashRouter.byRecordKey()); // build() once per lane
    }
    // end::chain[]

    private final MemorySource source = MemorySource.create();
    private final MemorySourceHandle handle = source.handle();
    private final CaptureSink sink = CaptureSink.create("orders", 1);
    private PipelineRuntime runtime;

    @AfterEach
    void stop() throws InterruptedException {
        if (runtime != null) {
            runtime.shutdown();
            runtime.awaitTermination(WAIT);
        }
    }

    @Test
    void theChainWritesOneRowPerOrderAndSkipsTombstones() throws Exception {
        JsonRowTranscoder.Builder orders = orders(ORDERS);
        assertThat(orders.columns())
                .extracting(ClickHouseColumn::name)
                .containsExactly("order_id", "customer", "status", "amount", "created_at", "tags", "coupon");
        runtime = Pipeline.builder(PipelineConfig.builder("guide")
                        .checkpointInterval(Duration.ofMillis(50))
                        .pollTimeout(Duration.ofMillis(20))
                        .build())
                .source(source)
                .sink(sink.definition())
                .chains(ordersChain(orders))
                .build();
        runtime.start();
        handle.assign(0, 0);

        byte[] first = """
                {"id": 1, "customer": {"name": "Ada", "tier": 3}, "status": "new", "amount": 12.50,
                 "created_at": "2024-05-01T12:30:00.250Z", "tags": ["gift"], "source": "web"}""".getBytes(StandardCharsets.UTF_8);
        byte[] second = """
                {"tags": [], "coupon": "SPRING", "amount": "3.07", "created_at": 1714566600000, "status": "paid",
                 "customer": {"name": "Bob"}, "id": 2}""".getBytes(StandardCharsets.UTF_8);
        handle.push(0, null, first);
        handle.push(0, null, null);
        handle.push(0, null, second);
        assertThat(handle.awaitCommitted(0, 3, WAIT)).isTrue();

        ByteArrayOutputStream written = new ByteArrayOutputStream();
        sink.script().writes().forEach(w -> written.writeBytes(w.bytes()));
        RowBuffer expected = new RowBuffer(256);
        JsonRowTranscoder one = orders.build();
        one.transcode(first, 0, first.length, expected);
        one.transcode(second, 0, second.length, expected);
        assertThat(written.toByteArray()).isEqualTo(expected.toByteArray());
        assertThat(sink.script().rows()).isEqualTo(2);
    }
}
