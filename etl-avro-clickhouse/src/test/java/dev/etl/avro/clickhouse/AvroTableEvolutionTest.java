package dev.etl.avro.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.etl.avro.AvroWireFormat;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.avro.clickhouse.AvroColumnTypes.Server;
import dev.etl.avro.clickhouse.AvroTableEvolution.Reason;
import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.ClickHouseTableAlter.NewColumn;
import dev.etl.clickhouse.ClickHouseTableSchema;
import dev.etl.sink.RowBuffer;
import dev.etl.test.avro.StubSchemaRegistry;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.junit.jupiter.api.Test;

class AvroTableEvolutionTest {

    private static Schema field(String json) {
        return new Schema.Parser()
                .parse("{\"type\": \"record\", \"name\": \"R\", \"fields\": [{\"name\": \"f\", \"type\": " + json
                        + "}]}")
                .getField("f")
                .schema();
    }

    private static String type(String json, Server server) throws AvroColumnTypes.Unmappable {
        return AvroColumnTypes.type(field(json), server);
    }

    @Test
    void avroTypesMapToTheDocumentedColumnTypesOn1816() throws Exception {
        Server old = Server.LEGACY;
        assertThat(type("\"boolean\"", old)).isEqualTo("UInt8");
        assertThat(type("\"int\"", old)).isEqualTo("Int32");
        assertThat(type("\"long\"", old)).isEqualTo("Int64");
        assertThat(type("\"float\"", old)).isEqualTo("Float32");
        assertThat(type("\"double\"", old)).isEqualTo("Float64");
        assertThat(type("\"string\"", old)).isEqualTo("String");
        assertThat(type("\"bytes\"", old)).isEqualTo("String");
        assertThat(type("{\"type\": \"enum\", \"name\": \"E\", \"symbols\": [\"A\", \"B\"]}", old))
                .isEqualTo("String");
        assertThat(type("{\"type\": \"fixed\", \"name\": \"F\", \"size\": 4}", old))
                .isEqualTo("FixedString(4)");
        assertThat(type("{\"type\": \"int\", \"logicalType\": \"date\"}", old)).isEqualTo("Date");
        assertThat(type("{\"type\": \"long\", \"logicalType\": \"timestamp-millis\"}", old))
                .isEqualTo("DateTime");
        assertThat(type("{\"type\": \"string\", \"logicalType\": \"uuid\"}", old))
                .isEqualTo("UUID");
        assertThat(type("{\"type\": \"bytes\", \"logicalType\": \"decimal\", \"precision\": 12, \"scale\": 2}", old))
                .isEqualTo("Decimal(12, 2)");
        assertThat(type("[\"null\", \"string\"]", old)).isEqualTo("Nullable(String)");
        assertThat(type("{\"type\": \"array\", \"items\": \"long\"}", old)).isEqualTo("Array(Int64)");
        assertThat(type("{\"type\": \"array\", \"items\": [\"null\", \"int\"]}", old))
                .isEqualTo("Array(Nullable(Int32))");
    }

    @Test
    void newerServersGetBoolDateTime64AndMap() throws Exception {
        Server current = Server.of("24.3.2.23");
        assertThat(current).isEqualTo(new Server(true, true, true));
        assertThat(Server.of("18.16.1")).isEqualTo(Server.LEGACY);
        assertThat(type("\"boolean\"", current)).isEqualTo("Bool");
        assertThat(type("{\"type\": \"long\", \"logicalType\": \"timestamp-millis\"}", current))
                .isEqualTo("DateTime64(3)");
        assertThat(type("{\"type\": \"long\", \"logicalType\": \"timestamp-micros\"}", current))
                .isEqualTo("DateTime64(6)");
        assertThat(type("{\"type\": \"map\", \"values\": \"long\"}", current)).isEqualTo("Map(String, Int64)");
    }

    @Test
    void typesWithoutAColumnTypeAreRefusedSayingWhy() {
        for (String json : List.of(
                "{\"type\": \"map\", \"values\": \"long\"}",
                "[\"null\", \"string\", \"long\"]",
                "[\"null\", {\"type\": \"array\", \"items\": \"long\"}]",
                "{\"type\": \"array\", \"items\": {\"type\": \"record\", \"name\": \"I\", \"fields\": []}}",
                "\"null\"")) {
            assertThatCode(() -> type(json, Server.LEGACY)).as(json).isInstanceOf(AvroColumnTypes.Unmappable.class);
        }
    }

    @Test
    void everyMappedTypeIsOneTheTranscoderWrites() throws Exception {
        for (Server server : List.of(Server.LEGACY, Server.of("24.3"))) {
            for (String json : List.of(
                    "\"boolean\"",
                    "\"int\"",
                    "\"long\"",
                    "\"float\"",
                    "\"double\"",
                    "\"string\"",
                    "\"bytes\"",
                    "{\"type\": \"enum\", \"name\": \"E\", \"symbols\": [\"A\", \"B\"]}",
                    "{\"type\": \"fixed\", \"name\": \"F\", \"size\": 4}",
                    "{\"type\": \"int\", \"logicalType\": \"date\"}",
                    "{\"type\": \"long\", \"logicalType\": \"timestamp-millis\"}",
                    "{\"type\": \"long\", \"logicalType\": \"timestamp-micros\"}",
                    "{\"type\": \"string\", \"logicalType\": \"uuid\"}",
                    "{\"type\": \"bytes\", \"logicalType\": \"decimal\", \"precision\": 12, \"scale\": 2}",
                    "[\"null\", \"string\"]",
                    "{\"type\": \"array\", \"items\": \"long\"}")) {
                Schema record = new Schema.Parser()
                        .parse("{\"type\": \"record\", \"name\": \"R\", \"fields\": [{\"name\": \"f\", \"type\": "
                                + json + "}]}");
                String type = AvroColumnTypes.type(record.getField("f").schema(), server);
                assertThatCode(() ->
                                AvroRowMapping.builder(record).column("f", type).build())
                        .as("%s → %s", json, type)
                        .doesNotThrowAnyException();
            }
        }
    }

    @Test
    void defaultsAreTheAvroDefaultsAsSql() {
        Server old = Server.LEGACY;
        assertThat(AvroColumnTypes.defaultExpression(field("\"string\""), "it's", old))
                .isEqualTo("'it\\'s'");
        assertThat(AvroColumnTypes.defaultExpression(field("\"int\""), 3, old)).isEqualTo("3");
        assertThat(AvroColumnTypes.defaultExpression(field("\"boolean\""), true, old))
                .isEqualTo("1");
        assertThat(AvroColumnTypes.defaultExpression(
                        field("[\"null\", \"string\"]"), org.apache.avro.JsonProperties.NULL_VALUE, old))
                .isEqualTo("NULL");
        assertThat(AvroColumnTypes.defaultExpression(field("{\"type\": \"int\", \"logicalType\": \"date\"}"), 1, old))
                .isEqualTo("'1970-01-02'");
        assertThat(AvroColumnTypes.defaultExpression(
                        field("{\"type\": \"long\", \"logicalType\": \"timestamp-millis\"}"), 5_000L, old))
                .isEqualTo("toDateTime(5)");
        assertThat(AvroColumnTypes.defaultExpression(
                        field("{\"type\": \"long\", \"logicalType\": \"timestamp-millis\"}"),
                        5_000L,
                        Server.of("24.3")))
                .isEqualTo("fromUnixTimestamp64Milli(toInt64(5000))");
        assertThat(AvroColumnTypes.defaultExpression(
                        field("{\"type\": \"array\", \"items\": \"long\"}"), List.of(1L, 2L), old))
                .isEqualTo("[1, 2]");
        assertThat(AvroColumnTypes.defaultExpression(field("\"bytes\""), new byte[] {'a', 0, (byte) 0xFF}, old))
                .isEqualTo("'a\\x00\\xFF'");
        assertThat(AvroColumnTypes.defaultExpression(field("\"string\""), null, old))
                .as("no default: the type's")
                .isEmpty();
    }

    static final Schema V1 = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "fields": [
              {"name": "id", "type": "long"},
              {"name": "customer", "type": {"type": "record", "name": "Customer", "fields": [
                {"name": "name", "type": "string"}]}},
              {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line", "fields": [
                {"name": "sku", "type": "string"}]}}},
              {"name": "legacy", "type": "string", "default": ""},
              {"name": "amount", "type": "int"}]}""");

    static final Schema V2 = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "fields": [
              {"name": "id", "type": "long"},
              {"name": "customer", "type": {"type": "record", "name": "Customer", "fields": [
                {"name": "name", "type": "string"},
                {"name": "tier", "type": "string", "default": "basic"}]}},
              {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line", "fields": [
                {"name": "sku", "type": "string"},
                {"name": "discount", "type": "int", "default": 0}]}}},
              {"name": "amount", "type": "long"},
              {"name": "channel", "type": ["null", "string"], "default": null},
              {"name": "tags", "type": {"type": "map", "values": "string"}, "default": {}},
              {"name": "shipping", "type": {"type": "record", "name": "Shipping", "fields": [
                {"name": "city", "type": "string"}, {"name": "days", "type": "int"}]},
                "default": {"city": "Paris", "days": 2}}]}""");

    static final ClickHouseTableSchema TABLE = ClickHouseTableSchema.of(
            List.of(
                    new ClickHouseColumn("id", "Int64"),
                    new ClickHouseColumn("customer_name", "String"),
                    new ClickHouseColumn("sku", "String"),
                    new ClickHouseColumn("amount", "Int32")),
            Set.of());

    @Test
    void newLeafFieldsBecomeColumnsByThePathConventionWithTheirDefaults() {
        AvroTableEvolution plan = AvroTableEvolution.plan(V1, V2, TABLE, "lines", Server.LEGACY);
        assertThat(plan.columns())
                .containsExactly(
                        new NewColumn(new ClickHouseColumn("customer_tier", "String"), "'basic'"),
                        new NewColumn(new ClickHouseColumn("lines_discount", "Int32"), "0"),
                        new NewColumn(new ClickHouseColumn("channel", "Nullable(String)"), "NULL"),
                        new NewColumn(new ClickHouseColumn("shipping_city", "String"), "'Paris'"),
                        new NewColumn(new ClickHouseColumn("shipping_days", "Int32"), "2"));
        Map<String, Reason> refused = plan.refused().stream()
                .collect(Collectors.toMap(AvroTableEvolution.Refusal::field, AvroTableEvolution.Refusal::reason));
        assertThat(refused)
                .containsEntry("tags", Reason.UNMAPPABLE) // no Map on 18.16
                .containsEntry("amount", Reason.TYPE_CHANGED)
                .containsEntry("legacy", Reason.REMOVED)
                .hasSize(3);
        assertThat(plan.evolved(TABLE).insertable()).hasSize(TABLE.insertable().size() + 5);
        assertThat(plan.evolved(TABLE).hasDefault("customer_tier")).isTrue();
    }

    @Test
    void aNewFieldInAnArrayThatIsNotExplodedIsRefused() {
        AvroTableEvolution plan = AvroTableEvolution.plan(V1, V2, TABLE, null, Server.LEGACY);
        assertThat(plan.columns()).extracting((c) -> c.column().name()).doesNotContain("lines_discount");
        assertThat(plan.refused()).anyMatch((r) -> r.field().equals("lines.discount") && r.reason() == Reason.IN_ARRAY);
    }

    @Test
    void aColumnThatExistsAlreadyIsNotAddedAgain() {
        ClickHouseTableSchema table = ClickHouseTableSchema.of(
                List.of(new ClickHouseColumn("id", "Int64"), new ClickHouseColumn("channel", "Nullable(String)")),
                Set.of());
        Schema v1 = new Schema.Parser().parse("""
                {"type": "record", "name": "O", "fields": [{"name": "id", "type": "long"}]}""");
        Schema v2 = new Schema.Parser().parse("""
                {"type": "record", "name": "O", "fields": [{"name": "id", "type": "long"},
                  {"name": "channel", "type": ["null", "string"], "default": null}]}""");
        assertThat(AvroTableEvolution.plan(v1, v2, table, null, Server.LEGACY).addsColumns())
                .isFalse();
    }

    @Test
    void aNewFieldWithoutADefaultRefusesTheWholeSchema() {
        Schema v1 = new Schema.Parser().parse("""
                {"type": "record", "name": "O", "fields": [{"name": "id", "type": "long"}]}""");
        Schema v2 = new Schema.Parser().parse("""
                {"type": "record", "name": "O", "fields": [{"name": "id", "type": "long"},
                  {"name": "channel", "type": "string"}]}""");
        AvroTableEvolution plan = AvroTableEvolution.plan(v1, v2, TABLE, null, Server.LEGACY);
        assertThat(plan.addsColumns()).isFalse();
        assertThat(plan.refused())
                .singleElement()
                .extracting(AvroTableEvolution.Refusal::reason)
                .isEqualTo(Reason.INCOMPATIBLE);
    }

    static final Schema E1 = new Schema.Parser().parse("""
            {"type": "record", "name": "E", "fields": [
              {"name": "id", "type": "long"}, {"name": "kind", "type": "string"}]}""");

    static final Schema E2 = new Schema.Parser().parse("""
            {"type": "record", "name": "E", "fields": [
              {"name": "id", "type": "long"}, {"name": "kind", "type": "string"},
              {"name": "channel", "type": "string", "default": "web"}]}""");

    @Test
    void lanesSwitchToAnEvolvedMappingAndOldWriterSchemasGetTheReaderDefault() throws Exception {
        AvroRowMapping m1 = AvroRowMapping.builder(E1)
                .column("id", "Int64")
                .column("kind", "String")
                .shardKey("id")
                .dropWhen("kind", "skip")
                .build();
        AvroRowMapping m2 = AvroRowMapping.builder(E2)
                .column("id", "Int64")
                .column("kind", "String")
                .column("channel", "String")
                .shardKey("id")
                .dropWhen("kind", "skip")
                .build();
        try (StubSchemaRegistry stub = StubSchemaRegistry.start()) {
            stub.put(1, E1);
            stub.put(2, E2);
            SchemaRegistryClient registry =
                    SchemaRegistryClient.builder(stub.url()).build();
            AvroRowTranscoder.Builder shared = AvroRowTranscoder.confluent(m1, registry);
            AvroRowTranscoder lane = shared.build();
            byte[] old = AvroWireFormat.confluent(1, E1, event(E1, 7, "a", null));
            byte[] newer = AvroWireFormat.confluent(2, E2, event(E2, 8, "b", "app"));
            byte[] dropped = AvroWireFormat.confluent(1, E1, event(E1, 9, "skip", null));

            assertThat(lane.layout()).isZero();
            assertThat(lane.requestedLayout()).isZero();
            assertThat(rows(lane, old)).isEqualTo(row(7, "a", null));
            assertThat(rows(lane, newer)).as("the old mapping drops channel").isEqualTo(row(8, "b", null));
            assertThat(shared.unreadWriterFields()).containsExactly("channel");

            assertThat(shared.evolve(m2, 1)).isEqualTo(1);
            assertThat(lane.requestedLayout()).isEqualTo(1);
            assertThat(lane.layout()).as("until the lane adopts it").isZero();
            assertThat(rows(lane, old)).isEqualTo(row(7, "a", null));

            lane.adoptLayout(1);
            assertThat(lane.layout()).isEqualTo(1);
            assertThat(rows(lane, newer)).isEqualTo(row(8, "b", "app"));
            assertThat(rows(lane, old)).as("the reader default").isEqualTo(row(7, "a", "web"));
            assertThat(lane.shardKey(payload(newer))).isEqualTo(8);
            assertThat(rows(lane, dropped)).as("drop-when still applies").isEmpty();
            assertThat(shared.unreadWriterFields()).isEmpty();
            assertThat(shared.build().layout())
                    .as("a lane built later starts at the latest")
                    .isEqualTo(1);
        }
    }

    private static GenericData.Record event(Schema schema, long id, String kind, String channel) {
        GenericData.Record r = new GenericData.Record(schema);
        r.put("id", id);
        r.put("kind", kind);
        if (schema.getField("channel") != null) {
            r.put("channel", channel);
        }
        return r;
    }

    private static dev.etl.record.Payload payload(byte[] bytes) {
        return new dev.etl.record.Payload().wrap(bytes);
    }

    private static byte[] rows(AvroRowTranscoder lane, byte[] payload) {
        RowBuffer out = new RowBuffer(64);
        lane.transcode(payload, 0, payload.length, out);
        return out.toByteArray();
    }

    private static byte[] row(long id, String kind, String channel) {
        RowBuffer out = new RowBuffer(64);
        out.writeLongLE(id);
        out.writeString(kind);
        if (channel != null) {
            out.writeString(channel);
        }
        return out.toByteArray();
    }
}
