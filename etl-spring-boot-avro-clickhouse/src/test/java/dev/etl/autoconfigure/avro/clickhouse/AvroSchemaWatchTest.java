package dev.etl.autoconfigure.avro.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.autoconfigure.clickhouse.ClickHouseTableSourceProperties;
import dev.etl.avro.AvroWireFormat;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.avro.clickhouse.AvroRowTranscoder;
import dev.etl.avro.clickhouse.AvroTableMapping;
import dev.etl.clickhouse.ClickHouseAlterException;
import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.ClickHouseTableAlter.NewColumn;
import dev.etl.clickhouse.ClickHouseTableSchema;
import dev.etl.clickhouse.ColumnLayouts;
import dev.etl.record.Payload;
import dev.etl.sink.RowBuffer;
import dev.etl.test.avro.StubSchemaRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AvroSchemaWatchTest {

    static final Schema V1 = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "fields": [
              {"name": "id", "type": "long"}, {"name": "customer", "type": "string"}]}""");

    static final Schema V2 = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "fields": [
              {"name": "id", "type": "long"}, {"name": "customer", "type": "string"},
              {"name": "channel", "type": "string", "default": "web"},
              {"name": "tags", "type": {"type": "map", "values": "string"}, "default": {}}]}""");

    /** A table as a stub: its columns, and the ALTERs asked of it (failing while {@code refuse} is set). */
    static final class StubTable implements AvroSchemaWatch.Table {
        final List<ClickHouseColumn> columns = new ArrayList<>(
                List.of(new ClickHouseColumn("id", "Int64"), new ClickHouseColumn("customer", "String")));
        final Set<String> withDefault = new HashSet<>();
        final List<List<NewColumn>> added = new ArrayList<>();
        String refuse;

        @Override
        public ClickHouseTableSchema read() {
            return ClickHouseTableSchema.of(columns, withDefault);
        }

        @Override
        public String version() {
            return "18.16.1";
        }

        @Override
        public void add(List<NewColumn> newColumns) {
            if (refuse != null) {
                throw new ClickHouseAlterException("ALTER …", "http://a1:8123", refuse, null);
            }
            added.add(newColumns);
            for (NewColumn c : newColumns) {
                columns.add(c.column());
                withDefault.add(c.column().name());
            }
        }

        @Override
        public String name() {
            return "shop.orders";
        }
    }

    private StubSchemaRegistry stub;
    private SchemaRegistryClient registry;
    private final StubTable table = new StubTable();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private AvroRowTranscoder.Builder transcoders;
    private ColumnLayouts layouts;
    private AvroSchemaWatch watch;

    @BeforeEach
    void start() {
        stub = StubSchemaRegistry.start();
        registry = SchemaRegistryClient.builder(stub.url()).build();
        stub.register("orders-value", V1);
        ClickHouseTableSourceProperties from = new ClickHouseTableSourceProperties();
        from.setTopic("orders");
        AvroTableMapping mapping = AvroTableRowsFactory.mapping("p", from, V1, table.read());
        transcoders = AvroRowTranscoder.confluent(mapping.rowMapping(), registry);
        layouts = ColumnLayouts.of(mapping.rowMapping().columns());
        watch = new AvroSchemaWatch(
                "orders",
                "orders-value",
                null,
                registry.latest("orders-value"),
                mapping,
                registry,
                table,
                (reader, evolved) -> AvroTableRowsFactory.mapping("p", from, reader, evolved),
                layouts,
                transcoders,
                meters);
    }

    @AfterEach
    void stop() {
        watch.close();
        stub.close();
    }

    @Test
    void nothingHappensWhileTheLatestVersionIsTheOneSeen() {
        assertThat(watch.tick()).isFalse();
        assertThat(table.added).isEmpty();
        assertThat(transcoders.layout()).isZero();
    }

    @Test
    void aNewVersionAddsItsColumnsThenPublishesTheMappingAsANewLayout() {
        stub.register("orders-value", V2);
        assertThat(watch.tick()).isTrue();
        assertThat(table.added)
                .containsExactly(List.of(new NewColumn(new ClickHouseColumn("channel", "String"), "'web'")));
        assertThat(layouts.latest()).isEqualTo(1);
        assertThat(layouts.columns(1)).extracting(ClickHouseColumn::name).containsExactly("id", "customer", "channel");
        assertThat(transcoders.layout()).isEqualTo(1);
        assertThat(transcoders.mapping().readerSchema()).isEqualTo(V2);
        assertThat(watch.mapping().sources()).containsKey("channel");
        assertThat(meters.get("etl.sink.evolutions").counter().count()).isEqualTo(1);
        assertThat(meters.get("etl.sink.evolution.refused.fields")
                        .tag("reason", "unmappable")
                        .counter()
                        .count())
                .as("tags: no Map on 18.16")
                .isEqualTo(1);
        assertThat(watch.tick()).as("the version is handled").isFalse();
        assertThat(table.added).hasSize(1);
    }

    @Test
    void aLaneMeetingAWriterSchemaWithNewFieldsWakesTheWatchBeforeItsInterval() throws Exception {
        watch.start(java.time.Duration.ofHours(1));
        int v2 = stub.register("orders-value", V2);
        GenericData.Record order = new GenericData.Record(V2);
        order.put("id", 1L);
        order.put("customer", "c");
        order.put("channel", "app");
        order.put("tags", java.util.Map.of());
        RowBuffer row = new RowBuffer(64);
        transcoders.build().encode(new Payload().wrap(AvroWireFormat.confluent(v2, V2, order)), null, row);
        assertThat(row.length())
                .as("the v2 record is written through the v1 mapping meanwhile")
                .isPositive();
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        while (transcoders.layout() != 1 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(transcoders.layout())
                .as("evolved at once, not after the hour's interval")
                .isEqualTo(1);
        assertThat(table.added).hasSize(1);
    }

    @Test
    void aFailedAlterIsCountedAndRetriedWithTheOldMappingKept() {
        stub.register("orders-value", V2);
        table.refuse = "Code: 164, Cannot execute query in readonly mode";
        assertThat(watch.tick()).isFalse();
        assertThat(watch.tick()).isFalse();
        assertThat(meters.get("etl.sink.evolution.failures").counter().count()).isEqualTo(2);
        assertThat(transcoders.layout()).isZero();
        assertThat(transcoders.mapping().readerSchema()).isEqualTo(V1);

        table.refuse = null;
        assertThat(watch.tick()).isTrue();
        assertThat(transcoders.layout()).isEqualTo(1);
        assertThat(meters.get("etl.sink.evolution.refused.fields")
                        .tag("reason", "unmappable")
                        .counter()
                        .count())
                .as("refusals counted once per version, not per attempt")
                .isEqualTo(1);
    }

    @Test
    void anUnreachableRegistryIsAFailureNotACrash() {
        stub.close();
        assertThat(watch.tick()).isFalse();
        assertThat(meters.get("etl.sink.evolution.failures").counter().count()).isEqualTo(1);
    }
}
