package dev.etl.autoconfigure.avro.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.autoconfigure.InvalidEtlConfigurationException;
import dev.etl.autoconfigure.clickhouse.ClickHouseTableRows;
import dev.etl.autoconfigure.clickhouse.ClickHouseTableSourceProperties;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.ClickHouseTableSchema;
import dev.etl.test.avro.StubSchemaRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.core.io.ByteArrayResource;

class AvroTableRowsFactoryTest {

    private static final ClickHouseTableSchema TABLE = ClickHouseTableSchema.of(
            List.of(new ClickHouseColumn("id", "Int64"), new ClickHouseColumn("customer", "String")), Set.of());

    private static final ClickHouseSinkConfig CONFIG = ClickHouseSinkConfig.builder()
            .table("shop", "orders")
            .shard("http://127.0.0.1:1")
            .build();

    @Test
    void autoEvolveWithAFixedReaderSchemaFailsStartupNamingTheProperties() {
        try (StubSchemaRegistry stub = StubSchemaRegistry.start()) {
            AvroTableRowsFactory factory = factory(stub);
            ClickHouseTableSourceProperties from = new ClickHouseTableSourceProperties();
            from.setTopic("orders");
            from.setSchema(
                    new ByteArrayResource(AvroSchemaWatchTest.V1.toString().getBytes()));
            from.getAutoEvolve().setEnabled(true);
            assertThatThrownBy(() -> factory.create("etl.sink.clickhouse.from", from, TABLE, CONFIG))
                    .isInstanceOf(InvalidEtlConfigurationException.class)
                    .hasMessageContaining("etl.sink.clickhouse.from.auto-evolve.enabled=true")
                    .hasMessageContaining("etl.sink.clickhouse.from.schema fixes the reader schema");
        }
    }

    @Test
    void autoEvolvingRowsHaveLayoutsAndStopTheirWatchOnClose() {
        try (StubSchemaRegistry stub = StubSchemaRegistry.start()) {
            stub.register("orders-value", AvroSchemaWatchTest.V1);
            ClickHouseTableSourceProperties from = new ClickHouseTableSourceProperties();
            from.setTopic("orders");
            from.getAutoEvolve().setEnabled(true);
            from.getAutoEvolve().setInterval(Duration.ofHours(1));
            ClickHouseTableRows rows =
                    factory(stub).create("etl.sink.clickhouse.tables.shop.from", from, TABLE, CONFIG);
            assertThat(rows.layouts()).isNotNull();
            assertThat(rows.layouts().columns(0)).isEqualTo(rows.columns());
            assertThat(Thread.getAllStackTraces().keySet())
                    .anyMatch((t) -> t.getName().equals("etl-auto-evolve-shop") && t.isDaemon());
            rows.close();
            from.getAutoEvolve().setEnabled(false);
            assertThat(factory(stub).create("p", from, TABLE, CONFIG).layouts()).isNull();
        }
    }

    private static AvroTableRowsFactory factory(StubSchemaRegistry stub) {
        SchemaRegistryClient registry = SchemaRegistryClient.builder(stub.url()).build();
        return new AvroTableRowsFactory(
                registry,
                AvroTableRowsFactoryTest.class.getClassLoader(),
                new DefaultListableBeanFactory().getBeanProvider(MeterRegistry.class));
    }
}
