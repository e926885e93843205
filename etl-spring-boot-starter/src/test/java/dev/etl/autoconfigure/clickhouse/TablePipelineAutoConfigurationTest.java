package dev.etl.autoconfigure.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.autoconfigure.EtlAutoConfiguration;
import dev.etl.autoconfigure.EtlPipelineLifecycle;
import dev.etl.autoconfigure.InvalidEtlConfigurationException;
import dev.etl.autoconfigure.avro.SchemaRegistryAutoConfiguration;
import dev.etl.autoconfigure.avro.clickhouse.AvroTablePipelineAutoConfiguration;
import dev.etl.autoconfigure.json.clickhouse.JsonTablePipelineAutoConfiguration;
import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.ClickHouseTableSchema;
import dev.etl.ops.ChainFactory;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.sink.SinkDefinition;
import dev.etl.test.avro.StubSchemaRegistry;
import dev.etl.test.memory.MemorySource;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.mock.env.MockEnvironment;

/**
 * A pipeline from YAML alone ({@code etl.sink.clickhouse[.tables.<name>].from.*}), without a server: the
 * table's columns come from a fixed {@link ClickHouseTablePipelines.SchemaReader}, the reader schema from a
 * stub registry. The properties bind, each table's sink is validated against the derived columns and has no
 * encoder of its own, tables sharing a topic share one chain factory, and every mistake fails startup once,
 * naming the property.
 */
class TablePipelineAutoConfigurationTest {

    static final Schema ORDER = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "namespace": "com.acme", "fields": [
              {"name": "id", "type": "long"},
              {"name": "customer", "type": "string"},
              {"name": "status", "type": {"type": "enum", "name": "OrderStatus",
                "symbols": ["NEW", "PAID", "SHIPPED", "CANCELLED"]}},
              {"name": "updated_ms", "type": "long"},
              {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "OrderLine",
                "fields": [{"name": "sku", "type": "string"}, {"name": "quantity", "type": "int"},
                           {"name": "price_cents", "type": "long"}]}}},
              {"name": "coupon", "type": ["null", "string"], "default": null}]}""");

    /** The sample's orders table: one row per line. */
    static final ClickHouseTableSchema ORDERS = ClickHouseTableSchema.of(
            List.of(
                    new ClickHouseColumn("order_id", "UInt64"),
                    new ClickHouseColumn("line_no", "UInt16"),
                    new ClickHouseColumn("customer", "String"),
                    new ClickHouseColumn("status", "Enum8('NEW' = 0, 'PAID' = 1, 'SHIPPED' = 2, 'CANCELLED' = 3)"),
                    new ClickHouseColumn("sku", "String"),
                    new ClickHouseColumn("quantity", "UInt32"),
                    new ClickHouseColumn("price", "Decimal(18, 2)"),
                    new ClickHouseColumn("coupon", "Nullable(String)"),
                    new ClickHouseColumn("updated_ms", "Int64")),
            Set.of());

    /** One row per order, with a column left to its DEFAULT. */
    static final ClickHouseTableSchema TOTALS = ClickHouseTableSchema.of(
            List.of(
                    new ClickHouseColumn("id", "UInt64"),
                    new ClickHouseColumn("customer", "String"),
                    new ClickHouseColumn("total", "Int64"),
                    new ClickHouseColumn("inserted_at", "DateTime")),
            Set.of("inserted_at"));

    private final StubSchemaRegistry registry = StubSchemaRegistry.start();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    SchemaRegistryAutoConfiguration.class,
                    AvroTablePipelineAutoConfiguration.class,
                    ClickHouseSinkAutoConfiguration.class,
                    EtlAutoConfiguration.class))
            .withPropertyValues(
                    "etl.pipeline.exit-on-failure=false",
                    "etl.avro.registry.url=" + registry.url(),
                    "etl.sink.clickhouse.shards[0].replicas=http://127.0.0.1:18123",
                    "etl.sink.clickhouse.table=orders_local",
                    "etl.sink.clickhouse.from.topic=orders",
                    "etl.sink.clickhouse.from.explode=lines",
                    "etl.sink.clickhouse.from.index=line_no",
                    "etl.sink.clickhouse.from.shard-key=id",
                    "etl.sink.clickhouse.from.drop-when.status=CANCELLED",
                    "etl.sink.clickhouse.from.columns.order_id=id",
                    "etl.sink.clickhouse.from.columns.price=lines.price_cents")
            .withUserConfiguration(Tables.class, MemorySourceNotStarted.class);

    TablePipelineAutoConfigurationTest() {
        registry.register("orders-value", ORDER);
    }

    @AfterEach
    void stopRegistry() {
        registry.close();
    }

    @Test
    void aTableWithATopicGetsItsSinkAndChainFromTheDerivedMapping() {
        this.runner.run((context) -> {
            assertThat(context).hasNotFailed();
            ClickHouseTableSourceProperties from =
                    context.getBean(EtlClickHouseProperties.class).getFrom();
            assertThat(from.getTopic()).isEqualTo("orders");
            assertThat(from.getFormat()).isEqualTo(ClickHouseTableSourceProperties.Format.AVRO);
            assertThat(from.getDropWhen()).containsEntry("status", List.of("CANCELLED"));
            assertThat(from.getColumns()).containsEntry("order_id", "id").containsEntry("price", "lines.price_cents");

            SinkDefinition sink = context.getBean("etlClickHouseSink", SinkDefinition.class);
            assertThat(sink.encoder())
                    .as("each lane's chain passes its transcoder")
                    .isNull();
            ClickHouseTableRows rows =
                    context.getBean(ClickHouseTablePipelines.class).rows("clickhouse");
            assertThat(rows.columns()).isEqualTo(ORDERS.insertable());
            assertThat(rows.sources())
                    .containsEntry("order_id", "id")
                    .containsEntry("price", "lines.price_cents")
                    .containsEntry("sku", "lines.sku");
            assertThat(rows.unstoredFields()).isEmpty();

            Map<String, ChainFactory> factories = context.getBeansOfType(ChainFactory.class);
            assertThat(factories).containsOnlyKeys("etlClickHouseTablePipeline.orders");
            assertThat(factories.get("etlClickHouseTablePipeline.orders").topics())
                    .containsExactly("orders");
            assertThat(context).hasSingleBean(PipelineRuntime.class);
        });
    }

    @Test
    void tablesSharingATopicShareOneChainFactoryAndEachHasItsOwnColumns() {
        this.runner
                .withPropertyValues(
                        "etl.sink.clickhouse.tables.totals.table=order_totals",
                        "etl.sink.clickhouse.tables.totals.from.topic=orders",
                        "etl.sink.clickhouse.tables.totals.from.columns.total=updated_ms")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBeansOfType(ChainFactory.class))
                            .containsOnlyKeys("etlClickHouseTablePipeline.orders");
                    ClickHouseTableRows totals =
                            context.getBean(ClickHouseTablePipelines.class).rows("totals");
                    assertThat(totals.columns())
                            .as("inserted_at is left to its DEFAULT")
                            .extracting(ClickHouseColumn::name)
                            .containsExactly("id", "customer", "total");
                    assertThat(totals.unstoredFields()).containsExactly("status", "lines", "coupon");
                    assertThat(context.getBean("etlClickHouseSink.totals", SinkDefinition.class)
                                    .encoder())
                            .isNull();
                });
    }

    @Test
    void aMappingMistakeFailsStartupOnceNamingEveryProperty() {
        this.runner
                .withPropertyValues(
                        "etl.sink.clickhouse.tables.totals.table=order_totals",
                        "etl.sink.clickhouse.tables.totals.from.topic=orders",
                        "etl.sink.clickhouse.tables.totals.from.columns.totl=updated_ms")
                .run((context) -> {
                    InvalidEtlConfigurationException failure = invalid(context.getStartupFailure());
                    assertThat(failure.getMessage())
                            .startsWith("etl.sink.clickhouse.tables.totals.from: the columns of the table cannot be"
                                    + " derived from topic orders's reader schema com.acme.Order (2 problems):")
                            .contains("column 'total' (Int64): no field of that name or path, and no DEFAULT")
                            .contains("etl.sink.clickhouse.tables.totals.from.columns.totl=updated_ms: the table has"
                                    + " no insertable column 'totl'")
                            .contains("did you mean 'total'");
                    assertThat(failure.getAction()).contains("etl.sink.clickhouse.tables.totals.from.columns.<column>");
                });
    }

    @Test
    void theUnknownNameCheckKnowsTheFromGroupAndItsFreeKeys() {
        this.runner
                .withPropertyValues(
                        "etl.sink.clickhouse.from.keep-when.customer[0]=customer-1",
                        "etl.sink.clickhouse.from.colums.price=lines.price_cents")
                .run((context) -> assertThat(invalid(context.getStartupFailure()))
                        .hasMessageContaining("etl.sink.clickhouse.from.colums.price")
                        .hasMessageContaining("did you mean etl.sink.clickhouse.from.columns")
                        .hasMessageNotContaining("keep-when"));
    }

    @Test
    void anApplicationChainFactoryOnTheTablesTopicFailsStartupNamingBothBeans() {
        this.runner
                .withBean(
                        "ordersChain",
                        ChainFactory.class,
                        () -> ChainFactory.forTopics(Set.of("orders"), (ctx) -> {
                            throw new AssertionError("never built");
                        }))
                .run((context) -> {
                    Throwable failure = context.getStartupFailure();
                    assertThat(failure).isNotNull();
                    Throwable root = failure;
                    while (root.getCause() != null) {
                        root = root.getCause();
                    }
                    assertThat(root)
                            .isInstanceOf(dev.etl.autoconfigure.PipelineAssemblyException.class)
                            .hasMessageContaining("topic 'orders' is claimed by ChainFactory")
                            .hasMessageContaining("bean 'ordersChain'")
                            .hasMessageContaining("bean 'etlClickHouseTablePipeline.orders'");
                    assertThat(((dev.etl.autoconfigure.PipelineAssemblyException) root).getAction())
                            .contains("from.topic", "not to both");
                });
    }

    @Test
    void aTopicTheSourceDoesNotSubscribeToFailsStartup() {
        this.runner.withPropertyValues("etl.source.kafka.topics=payments").run((context) -> {
            assertThat(invalid(context.getStartupFailure()))
                    .hasMessageContaining("etl.sink.clickhouse.from.topic names topic orders, but "
                            + "etl.source.kafka.topics [payments] does not subscribe to it.");
        });
    }

    @Test
    void aSubjectTheRegistryDoesNotHaveFailsStartupNamingIt() {
        this.runner
                .withPropertyValues("etl.sink.clickhouse.from.subject=orders-v9")
                .run((context) -> {
                    assertThat(invalid(context.getStartupFailure()))
                            .hasMessageContaining(
                                    "The Avro reader schema of etl.sink.clickhouse.from is the latest schema of "
                                            + "subject orders-v9 (etl.sink.clickhouse.from.subject)");
                });
    }

    @Test
    void aFormatWithoutItsModuleFailsStartupSayingWhatToAdd() {
        this.runner
                .withPropertyValues(
                        "etl.sink.clickhouse.from.format=json",
                        "etl.sink.clickhouse.from.explode=",
                        "etl.sink.clickhouse.from.index=")
                .run((context) -> assertThat(invalid(context.getStartupFailure()))
                        .hasMessageContaining("etl.sink.clickhouse.from.format=json (topic orders, table "
                                + "default.orders_local) has nothing to read it with."));
    }

    @Test
    void aJsonTopicIsReadByColumnNameWithTheJsonModule() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        JsonTablePipelineAutoConfiguration.class,
                        ClickHouseSinkAutoConfiguration.class,
                        EtlAutoConfiguration.class))
                .withPropertyValues(
                        "etl.pipeline.exit-on-failure=false",
                        "etl.sink.clickhouse.shards[0].replicas=http://127.0.0.1:18123",
                        "etl.sink.clickhouse.table=order_totals",
                        "etl.sink.clickhouse.from.topic=totals",
                        "etl.sink.clickhouse.from.format=json",
                        "etl.sink.clickhouse.from.columns.total=amount.cents")
                .withUserConfiguration(Tables.class, MemorySourceNotStarted.class)
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    ClickHouseTableRows rows =
                            context.getBean(ClickHouseTablePipelines.class).rows("clickhouse");
                    assertThat(rows.columns())
                            .extracting(ClickHouseColumn::name)
                            .containsExactly("id", "customer", "total");
                    assertThat(rows.sources()).containsEntry("total", "amount.cents");
                    assertThat(context.getBeansOfType(ChainFactory.class))
                            .containsOnlyKeys("etlClickHouseTablePipeline.totals");
                });
    }

    @Test
    void fromWithoutATopicIsRefusedWhenBound() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ClickHouseSinkAutoConfiguration.class))
                .withPropertyValues(
                        "etl.sink.clickhouse.shards[0].replicas=http://127.0.0.1:18123",
                        "etl.sink.clickhouse.tables.totals.table=order_totals",
                        "etl.sink.clickhouse.tables.totals.from.columns.total=updated_ms",
                        "etl.sink.clickhouse.tables.totals.validation=off")
                .run((context) -> assertThat(context.getStartupFailure())
                        .rootCause()
                        .hasMessageContaining("etl.sink.clickhouse.tables.totals.from.topic must be set"));
    }

    @Test
    void theTablesTopicsBecomeTheSourcesWhenItHasNone() {
        MockEnvironment environment = new MockEnvironment()
                .withProperty("etl.sink.clickhouse.table", "orders_local")
                .withProperty("etl.sink.clickhouse.from.topic", "orders")
                .withProperty("etl.sink.clickhouse.tables.refunds.table", "refunds_local")
                .withProperty("etl.sink.clickhouse.tables.refunds.from.topic", "refunds")
                .withProperty("etl.sink.clickhouse.tables.totals.from.topic", "orders");
        new ClickHouseTableTopicsPostProcessor().postProcessEnvironment(environment, null);
        assertThat(environment.getProperty("etl.source.kafka.topics")).isEqualTo("orders,refunds");

        StandardEnvironment subscribed = new StandardEnvironment();
        subscribed
                .getPropertySources()
                .addFirst(new org.springframework.core.env.MapPropertySource(
                        "app",
                        Map.of("etl.source.kafka.topics", "orders", "etl.sink.clickhouse.tables.r.from.topic", "r")));
        new ClickHouseTableTopicsPostProcessor().postProcessEnvironment(subscribed, null);
        assertThat(subscribed.getProperty("etl.source.kafka.topics")).isEqualTo("orders");
    }

    static InvalidEtlConfigurationException invalid(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof InvalidEtlConfigurationException invalid) {
                return invalid;
            }
        }
        throw new AssertionError("no InvalidEtlConfigurationException in " + failure, failure);
    }

    /** The tables' columns as if read from system.columns. */
    @Configuration(proxyBeanMethods = false)
    static class Tables {

        @Bean
        ClickHouseTablePipelines.SchemaReader fixedTables() {
            return (config) -> switch (config.table()) {
                case "orders_local" -> ORDERS;
                case "order_totals" -> TOTALS;
                default -> throw new IllegalArgumentException("no table " + config.qualifiedTable());
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class MemorySourceNotStarted {

        @Bean
        MemorySource memorySource() {
            return MemorySource.create();
        }

        @Bean
        EtlPipelineLifecycle notStartedLifecycle(PipelineRuntime runtime, ApplicationContext context) {
            return new EtlPipelineLifecycle(runtime, context, false, false, Duration.ofSeconds(30)) {
                @Override
                public boolean isAutoStartup() {
                    return false;
                }
            };
        }
    }
}
