package dev.etl.avro.clickhouse.guide;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.avro.AvroWireFormat;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.avro.clickhouse.AvroRowMapping;
import dev.etl.avro.clickhouse.AvroRowTranscoder;
import dev.etl.clickhouse.ClickHouseSink;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.deser.Deserializer;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.record.Payload;
import dev.etl.sink.KeyHashRouter;
import dev.etl.sink.RowBuffer;
import dev.etl.sink.SinkDefinition;
import dev.etl.test.avro.StubSchemaRegistry;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.memory.MemorySource;
import dev.etl.test.memory.MemorySourceHandle;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The code of the transcoder section of {@code docs/connectors/clickhouse.md} (its snippets are these
 * regions), run through a real pipeline: Confluent-framed payloads of two writer schema versions and a
 * tombstone in, the rows the object path would write out.
 */
class TranscoderGuideTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    static final Schema ORDER_V1 = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "namespace": "shop", "fields": [
              {"name": "id", "type": "long"},
              {"name": "customer", "type": {"type": "record", "name": "Customer", "fields": [
                 {"name": "name", "type": "string"}, {"name": "tier", "type": "int"}]}},
              {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 18, "scale": 2}},
              {"name": "created_at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
              {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["NEW", "PAID"]}},
              {"name": "tags", "type": {"type": "array", "items": "string"}}
            ]}""");

    /** Version 2, the reader: a coupon added (with a default), tags removed, fields reordered. */
    static final Schema ORDER_V2 = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "namespace": "shop", "fields": [
              {"name": "id", "type": "long"},
              {"name": "created_at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
              {"name": "customer", "type": {"type": "record", "name": "Customer", "fields": [
                 {"name": "name", "type": "string"}, {"name": "tier", "type": "int"}]}},
              {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 18, "scale": 2}},
              {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["NEW", "PAID"]}},
              {"name": "coupon", "type": ["null", "string"], "default": null}
            ]}""");

    // tag::mapping[]
    /** The table's columns in order, each from a field of the reader schema (a path through nested records). */
    static AvroRowMapping ordersMapping(Schema readerSchema) {
        return AvroRowMapping.builder(readerSchema)
                .column("id", "UInt64") // long
                .column("customer", "String", "customer.name") // a nested record's field
                .column("tier", "UInt8", "customer.tier") // int, range-checked per value
                .column("amount", "Decimal(18, 2)") // bytes, logicalType decimal(18, 2)
                .column("created_at", "DateTime64(3)") // long, logicalType timestamp-millis
                .column("status", "Enum8('NEW' = 1, 'PAID' = 2)") // enum, by symbol name
                .column("coupon", "Nullable(String)") // ["null", "string"]; v1 lacks it: its default
                .build(); // mapping errors are thrown here
    }

    /** The ClickHouse sink validates the mapping's columns against the table at startup. */
    static SinkDefinition ordersSink(ClickHouseSinkConfig config, AvroRowMapping mapping, MeterRegistry meters) {
        return ClickHouseSink.definition("orders", "orders-pipeline", config, mapping.columns(), meters);
    }
    // end::mapping[]

    // tag::chain[]
    static ChainFactory ordersChain(AvroRowMapping mapping, SchemaRegistryClient registry) {
        // Shared by the lanes: each writer schema id is compiled once per process.
        AvroRowTranscoder.Builder orders = AvroRowTranscoder.confluent(mapping, registry);
        return ctx -> Chains.from(ctx, Deserializer.payload()) // the raw bytes, no decoding
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
    void theChainWritesTheRowsOfBothSchemaVersionsAndSkipsTombstones() throws Exception {
        try (StubSchemaRegistry stub = StubSchemaRegistry.start()) {
            int v1 = stub.register("orders-value", ORDER_V1);
            int v2 = stub.register("orders-value", ORDER_V2);
            SchemaRegistryClient registry =
                    SchemaRegistryClient.builder(stub.url()).build();
            AvroRowMapping mapping = ordersMapping(ORDER_V2);
            runtime = Pipeline.builder(PipelineConfig.builder("guide")
                            .checkpointInterval(Duration.ofMillis(50))
                            .pollTimeout(Duration.ofMillis(20))
                            .build())
                    .source(source)
                    .sink(sink.definition())
                    .chains(ordersChain(mapping, registry))
                    .build();
            runtime.start();
            handle.assign(0, 0);

            GenericData.Record first = v1Order(1, "Ada", "12.50", "NEW", List.of("gift"));
            GenericData.Record second = v2Order(2, "Bob", "3.07", "PAID", "SPRING");
            handle.push(0, null, AvroWireFormat.confluent(v1, ORDER_V1, first));
            handle.push(0, null, null);
            handle.push(0, null, AvroWireFormat.confluent(v2, ORDER_V2, second));
            assertThat(handle.awaitCommitted(0, 3, WAIT)).isTrue();

            ByteArrayOutputStream written = new ByteArrayOutputStream();
            sink.script().writes().forEach(w -> written.writeBytes(w.bytes()));
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            // What the transcoder writes for each body on its own (equal to the object path's rows:
            // AvroRowTranscoderTest and TranscoderPropertyTest check that).
            expected.writeBytes(row(mapping, ORDER_V1, AvroWireFormat.raw(ORDER_V1, first)));
            expected.writeBytes(row(mapping, ORDER_V2, AvroWireFormat.raw(ORDER_V2, second)));
            assertThat(written.toByteArray()).isEqualTo(expected.toByteArray());
            assertThat(sink.script().rows()).isEqualTo(2);
        }
    }

    @Test
    void theSinkIsValidatedAgainstTheMappingsColumns() {
        AvroRowMapping mapping = ordersMapping(ORDER_V2);
        ClickHouseSinkConfig config = ClickHouseSinkConfig.builder()
                .table("shop", "orders_local")
                .shard("http://127.0.0.1:1")
                .build();
        SinkDefinition definition = ordersSink(config, mapping, new SimpleMeterRegistry());
        assertThat(definition.name()).isEqualTo("orders");
        assertThat(mapping.columns())
                .extracting(Object::toString)
                .containsExactly(
                        "id UInt64",
                        "customer String",
                        "tier UInt8",
                        "amount Decimal(18, 2)",
                        "created_at DateTime64(3)",
                        "status Enum8('NEW' = 1, 'PAID' = 2)",
                        "coupon Nullable(String)");
    }

    @Test
    void mappingErrorsReadAsTheGuideShowsThem() {
        Schema withScore = new Schema.Parser()
                .parse(ORDER_V2.toString()
                        .replace(
                                "{\"name\":\"id\",\"type\":\"long\"}",
                                "{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"score\",\"type\":\"double\"}"));
        assertThatThrownBy(() -> AvroRowMapping.builder(ORDER_V2)
                        .column("coupon", "String")
                        .build())
                .hasMessage("field 'coupon' (Avro [null, string]) → column 'coupon' (String): the field may be null; "
                        + "declare the column Nullable(...)");
        assertThatThrownBy(() -> AvroRowMapping.builder(withScore)
                        .column("score", "Int64")
                        .build())
                .hasMessage("field 'score' (Avro double) → column 'score' (Int64): a double is written to Float64 "
                        + "columns only");
        assertThatThrownBy(() -> AvroRowMapping.builder(ORDER_V2)
                        .column("nick", "String", "customer.nick")
                        .build())
                .hasMessage("field 'customer.nick' (Avro missing) → column 'nick' (String): the reader schema "
                        + "shop.Order has no field 'customer.nick'");
    }

    private static byte[] row(AvroRowMapping mapping, Schema writer, byte[] body) {
        RowBuffer out = new RowBuffer(64);
        AvroRowTranscoder.raw(mapping, writer).build().transcode(body, 0, body.length, out);
        return out.toByteArray();
    }

    private static GenericData.Record v1Order(long id, String name, String amount, String status, List<String> tags) {
        GenericData.Record r = new GenericData.Record(ORDER_V1);
        fill(r, ORDER_V1, id, name, amount, status);
        r.put("tags", tags);
        return r;
    }

    private static GenericData.Record v2Order(long id, String name, String amount, String status, String coupon) {
        GenericData.Record r = new GenericData.Record(ORDER_V2);
        fill(r, ORDER_V2, id, name, amount, status);
        r.put("coupon", coupon);
        return r;
    }

    private static void fill(GenericData.Record r, Schema schema, long id, String name, String amount, String status) {
        GenericData.Record customer =
                new GenericData.Record(schema.getField("customer").schema());
        customer.put("name", name);
        customer.put("tier", 2);
        r.put("id", id);
        r.put("customer", customer);
        r.put("amount", ByteBuffer.wrap(new BigDecimal(amount).unscaledValue().toByteArray()));
        r.put("created_at", 1_767_225_600_000L + id);
        r.put("status", new GenericData.EnumSymbol(schema.getField("status").schema(), status));
    }
}
