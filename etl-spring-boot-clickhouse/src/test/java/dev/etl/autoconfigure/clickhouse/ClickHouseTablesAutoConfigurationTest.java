package dev.etl.autoconfigure.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.autoconfigure.EtlAutoConfiguration;
import dev.etl.autoconfigure.EtlPipelineLifecycle;
import dev.etl.autoconfigure.InvalidEtlConfigurationException;
import dev.etl.autoconfigure.PipelineAssemblyException;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.clickhouse.ValidationMode;
import dev.etl.clickhouse.sharding.DistributedPlacement;
import dev.etl.clickhouse.sharding.KeyType;
import dev.etl.clickhouse.sharding.ShardingKey;
import dev.etl.deser.Deserializer;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.sink.SinkDefinition;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.memory.MemorySource;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * Named tables, {@code etl.sink.clickhouse.tables.<name>.*}: a sink each over the shared connection,
 * written with the {@code RowBinaryEncoder} bean qualified with the table's name; inheritance of the
 * shared settings; the {@code table} sink next to them; binding, validation and unknown keys. Nothing
 * is started (no server is needed).
 */
class ClickHouseTablesAutoConfigurationTest {

    private static final String[] CONNECTION = {
        "etl.sink.clickhouse.database=shop",
        "etl.sink.clickhouse.shards[0].replicas=http://127.0.0.1:1",
        "etl.sink.clickhouse.shards[1].replicas=http://127.0.0.1:2",
        "etl.sink.clickhouse.username=etl",
        "etl.sink.clickhouse.password=s3cret-pw"
    };

    private static final String[] TWO_TABLES = {
        "etl.sink.clickhouse.tables.orders.table=orders_local", "etl.sink.clickhouse.tables.refunds.table=refunds_local"
    };

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    ClickHouseSinkAutoConfiguration.class,
                    ClickHousePlacementEndpointAutoConfiguration.class,
                    EtlAutoConfiguration.class,
                    EndpointAutoConfiguration.class))
            .withPropertyValues("etl.pipeline.exit-on-failure=false", "etl.pipeline.handle-signals=false")
            .withPropertyValues(CONNECTION)
            .withUserConfiguration(Pipeline.class);

    @Test
    void eachNamedTableIsASinkOfItsNameWrittenWithTheEncoderQualifiedByIt() {
        this.runner
                .withUserConfiguration(TableEncoders.class)
                .withPropertyValues(TWO_TABLES)
                .withPropertyValues(
                        "etl.sink.clickhouse.queue-capacity=128",
                        "etl.sink.clickhouse.writers-per-shard=3",
                        "etl.sink.clickhouse.batch.linger=2s",
                        "etl.sink.clickhouse.tables.orders.batch.max-rows=500")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    SinkDefinition orders = context.getBean("etlClickHouseSink.orders", SinkDefinition.class);
                    SinkDefinition refunds = context.getBean("etlClickHouseSink.refunds", SinkDefinition.class);
                    assertThat(orders.name()).isEqualTo("orders");
                    assertThat(refunds.name()).isEqualTo("refunds");
                    assertThat(orders.encoder()).isSameAs(context.getBean("orderRows"));
                    assertThat(refunds.encoder()).isSameAs(context.getBean("refundRows"));
                    assertThat(orders.shardCount()).isEqualTo(2);
                    assertThat(orders.queueCapacity()).isEqualTo(128);
                    assertThat(refunds.queueCapacity()).isEqualTo(128);
                    assertThat(orders.writersPerShard()).isEqualTo(3);
                    assertThat(refunds.writersPerShard()).isEqualTo(3);
                    // a table's own batch setting, the rest inherited from etl.sink.clickhouse.batch
                    assertThat(orders.batch().maxRows()).isEqualTo(500);
                    assertThat(orders.batch().linger()).isEqualTo(Duration.ofSeconds(2));
                    assertThat(refunds.batch().maxRows()).isEqualTo(1_000_000);
                    assertThat(refunds.batch().linger()).isEqualTo(Duration.ofSeconds(2));
                    // no etl.sink.clickhouse.table: no sink of that name
                    assertThat(context)
                            .doesNotHaveBean("etlClickHouseSink")
                            .doesNotHaveBean(ClickHouseSinkConfig.class);
                    // declaration order is sink order: orders is the default sink of .sink(router)
                    assertThat(context.getBeanProvider(SinkDefinition.class)
                                    .orderedStream()
                                    .map(SinkDefinition::name))
                            .containsExactly("orders", "refunds");
                    assertThat(context.getBean(PipelineRuntime.class)).isNotNull();
                });
    }

    @Test
    void aTableTakesTheSharedConnectionAndOverridesDatabaseValidationAndDedup() {
        this.runner
                .withUserConfiguration(TableEncoders.class)
                .withPropertyValues(TWO_TABLES)
                .withPropertyValues(
                        "etl.sink.clickhouse.validation=names",
                        "etl.sink.clickhouse.transport=http",
                        "etl.sink.clickhouse.settings.insert_quorum=2",
                        "etl.sink.clickhouse.tables.refunds.database=billing",
                        "etl.sink.clickhouse.tables.refunds.validation=full",
                        "etl.sink.clickhouse.tables.refunds.require-dedup=true")
                .run((context) -> {
                    ClickHouseTables tables = context.getBean(ClickHouseTables.class);
                    ClickHouseSinkConfig orders = tables.config("orders");
                    ClickHouseSinkConfig refunds = tables.config("refunds");
                    assertThat(orders.qualifiedTable()).isEqualTo("shop.orders_local");
                    assertThat(orders.validation()).isEqualTo(ValidationMode.NAMES);
                    assertThat(orders.requireDedup()).isFalse();
                    assertThat(refunds.qualifiedTable()).isEqualTo("billing.refunds_local");
                    assertThat(refunds.validation()).isEqualTo(ValidationMode.FULL);
                    assertThat(refunds.requireDedup()).isTrue();
                    for (ClickHouseSinkConfig config : List.of(orders, refunds)) {
                        assertThat(config.shards()).hasSize(2);
                        assertThat(config.user()).isEqualTo("etl");
                        assertThat(config.transport()).isEqualTo(ClickHouseSinkConfig.Transport.HTTP);
                        assertThat(config.settings()).containsEntry("insert_quorum", "2");
                    }
                });
    }

    @Test
    void namedTablesShareTheSslBundleOfTheConnection() {
        this.runner
                .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class))
                .withUserConfiguration(TableEncoders.class)
                .withPropertyValues(TWO_TABLES)
                .withPropertyValues(
                        "etl.sink.clickhouse.shards[0].replicas=https://ch-1a:8443",
                        "etl.sink.clickhouse.shards[1].replicas=https://ch-2a:8443",
                        "spring.ssl.bundle.pem.infra.truststore.certificate=classpath:tls/ca.crt",
                        "etl.sink.clickhouse.ssl.bundle=infra")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    ClickHouseTables tables = context.getBean(ClickHouseTables.class);
                    for (String name : List.of("orders", "refunds")) {
                        ClickHouseSinkConfig config = tables.config(name);
                        assertThat(config.tls()).as(name).isNotNull();
                        assertThat(config.tls().trustedCertificates())
                                .as(name)
                                .singleElement()
                                .satisfies((ca) -> assertThat(
                                                ca.getSubjectX500Principal().getName())
                                        .isEqualTo("CN=etl test CA"));
                    }
                });
    }

    @Test
    void aNamedTableOverPlainHttpWithABundleFailsNamingTheReplica() {
        this.runner
                .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class))
                .withUserConfiguration(TableEncoders.class)
                .withPropertyValues(TWO_TABLES)
                .withPropertyValues(
                        "spring.ssl.bundle.pem.infra.truststore.certificate=classpath:tls/ca.crt",
                        "etl.sink.clickhouse.ssl.bundle=infra")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining("replica http://127.0.0.1:1")
                        .hasStackTraceContaining("is plain HTTP"));
    }

    @Test
    void theTableSinkKeepsTheEncoderThatNoNamedTableClaims() {
        this.runner
                .withUserConfiguration(TableEncoders.class, SingleEncoder.class)
                .withPropertyValues("etl.sink.clickhouse.table=events_local", TWO_TABLES[0], TWO_TABLES[1])
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean("etlClickHouseSink", SinkDefinition.class)
                                    .encoder())
                            .isSameAs(context.getBean("eventRows"));
                    assertThat(context.getBean("etlClickHouseSink.orders", SinkDefinition.class)
                                    .encoder())
                            .isSameAs(context.getBean("orderRows"));
                    assertThat(context.getBeanProvider(SinkDefinition.class)
                                    .orderedStream()
                                    .map(SinkDefinition::name))
                            .containsExactly("clickhouse", "orders", "refunds");
                });
    }

    @Test
    void aBeanNamedLikeTheTableIsItsEncoderToo() {
        this.runner
                .withUserConfiguration(BeanNamedRefunds.class)
                .withPropertyValues("etl.sink.clickhouse.tables.refunds.table=refunds_local")
                .run((context) -> assertThat(context.getBean("etlClickHouseSink.refunds", SinkDefinition.class)
                                .encoder())
                        .isSameAs(context.getBean("refunds")));
    }

    @Test
    void aTableWithoutItsEncoderFailsNamingTheQualifierUnlessValidationIsOff() {
        this.runner
                .withUserConfiguration(SingleEncoder.class)
                .withPropertyValues("etl.sink.clickhouse.tables.orders.table=orders_local")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(PipelineAssemblyException.class)
                        .hasMessageContaining("The ClickHouse sink 'orders' (etl.sink.clickhouse.tables.orders, table "
                                + "shop.orders_local) validates the table against its encoder's columns (validation=FULL), but "
                                + "there is no RowBinaryEncoder bean qualified \"orders\""));
        this.runner
                .withPropertyValues(
                        "etl.sink.clickhouse.tables.orders.table=orders_local",
                        "etl.sink.clickhouse.tables.orders.validation=off")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean("etlClickHouseSink.orders", SinkDefinition.class)
                                    .encoder())
                            .isNull();
                });
    }

    @Test
    void theTableSinkIgnoresEncodersOfNamedTablesWhenChoosing() {
        // the only unqualified candidate is missing: the named table's encoder is not taken for the table sink
        this.runner
                .withUserConfiguration(TableEncoders.class)
                .withPropertyValues("etl.sink.clickhouse.table=events_local", TWO_TABLES[0], TWO_TABLES[1])
                .run((context) -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(PipelineAssemblyException.class)
                        .hasMessageContaining("there is no RowBinaryEncoder bean (not counting those qualified for "
                                + "etl.sink.clickhouse.tables:"));
        this.runner
                .withUserConfiguration(TableEncoders.class, TwoSingleEncoders.class)
                .withPropertyValues("etl.sink.clickhouse.table=events_local", TWO_TABLES[0], TWO_TABLES[1])
                .run((context) -> assertThat(context.getBean("etlClickHouseSink", SinkDefinition.class)
                                .encoder())
                        .isSameAs(context.getBean("primaryEvents")));
    }

    @Test
    void customizersAndConnectionDetailsApplyToNamedTables() {
        this.runner
                .withUserConfiguration(TableEncoders.class)
                .withPropertyValues(TWO_TABLES)
                .withBean(
                        ClickHouseSinkConfigCustomizer.class,
                        () -> (builder) -> builder.socketTimeout(Duration.ofSeconds(7)))
                .withBean(
                        ClickHouseConnectionDetails.class,
                        () -> () -> List.of(
                                List.of(URI.create("http://ch-a:8123")),
                                List.of(URI.create("http://ch-b:8123")),
                                List.of(URI.create("http://ch-c:8123"))))
                .run((context) -> {
                    ClickHouseSinkConfig refunds =
                            context.getBean(ClickHouseTables.class).config("refunds");
                    assertThat(refunds.socketTimeout()).isEqualTo(Duration.ofSeconds(7));
                    assertThat(refunds.shards()).hasSize(3);
                    assertThat(context.getBean("etlClickHouseSink.refunds", SinkDefinition.class)
                                    .shardCount())
                            .isEqualTo(3);
                });
    }

    @Test
    void aSinkBeanOfTheApplicationReplacesTheTables() {
        this.runner
                .withUserConfiguration(TableEncoders.class, OwnOrdersSink.class)
                .withPropertyValues(TWO_TABLES)
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean("etlClickHouseSink.orders", SinkDefinition.class)
                                    .name())
                            .isEqualTo("own-orders");
                    assertThat(context.getBean("etlClickHouseSink.refunds", SinkDefinition.class)
                                    .name())
                            .isEqualTo("refunds");
                });
    }

    @Test
    void aNamedTablesPlacementIsABeanQualifiedWithItsNameAndItsCheck() {
        this.runner
                .withUserConfiguration(TableEncoders.class, PlacementUser.class)
                .withPropertyValues(TWO_TABLES)
                .withPropertyValues(
                        "etl.sink.clickhouse.tables.orders.placement.distributed-table=orders",
                        "etl.sink.clickhouse.tables.orders.placement.sharding-key=cityHash64(id)",
                        "management.endpoints.web.exposure.include=etlplacement")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    DistributedPlacement placement = context.getBean(PlacementUser.class).placement;
                    assertThat(placement.key()).isEqualTo(ShardingKey.cityHash64("id", KeyType.UINT64));
                    assertThat(context.getBean("etlClickHousePlacement.orders")).isSameAs(placement);
                    ClickHouseTables tables = context.getBean(ClickHouseTables.class);
                    assertThat(tables.config("orders").placementCheck().qualifiedTable())
                            .isEqualTo("shop.orders");
                    assertThat(tables.config("orders").placementCheck().placement())
                            .isSameAs(placement);
                    assertThat(tables.config("refunds").placementCheck()).isNull();
                    assertThat(context.getBean(ClickHouseSinkConfigs.class).withPlacementCheck())
                            .containsOnlyKeys("orders");
                    assertThat(context.getBean(ClickHousePlacementEndpoint.class)
                                    .placement("refunds"))
                            .isNull();
                });
    }

    @Test
    void anUnqualifiedPlacementIsStillTheTableSinksNextToANamedTablesPlacement() {
        this.runner
                .withUserConfiguration(TableEncoders.class, SingleEncoder.class, UnqualifiedPlacementUser.class)
                .withPropertyValues("etl.sink.clickhouse.table=events_local", TWO_TABLES[0], TWO_TABLES[1])
                .withPropertyValues(
                        "etl.sink.clickhouse.placement.distributed-table=events",
                        "etl.sink.clickhouse.placement.sharding-key=murmurHash3_64(event)",
                        "etl.sink.clickhouse.tables.orders.placement.distributed-table=orders",
                        "etl.sink.clickhouse.tables.orders.placement.sharding-key=cityHash64(id)")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    UnqualifiedPlacementUser user = context.getBean(UnqualifiedPlacementUser.class);
                    assertThat(user.placement).isSameAs(context.getBean("etlClickHousePlacement"));
                    assertThat(user.placement.key()).isEqualTo(ShardingKey.murmurHash3_64("event", KeyType.STRING));
                    assertThat(user.orders).isSameAs(context.getBean("etlClickHousePlacement.orders"));
                    assertThat(context.getBean(ClickHouseSinkConfigs.class).withPlacementCheck())
                            .containsOnlyKeys("clickhouse", "orders");
                });
    }

    // validation and names

    @Test
    void invalidTablesFailWhenBoundNamingTheProperty() {
        this.runner
                .withPropertyValues(
                        "etl.sink.clickhouse.tables.orders.batch.max-rows=0",
                        "etl.sink.clickhouse.tables.orders.database=x")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining(
                                "etl.sink.clickhouse.tables.orders.table must be set: the shard-local table")
                        .hasStackTraceContaining(
                                "etl.sink.clickhouse.tables.orders.batch.max-rows must be >= 1, got 0"));
        this.runner
                .withPropertyValues(
                        "etl.sink.clickhouse.table=events_local", "etl.sink.clickhouse.tables.clickhouse.table=x")
                .run(
                        (context) -> assertThat(context)
                                .getFailure()
                                .hasStackTraceContaining(
                                        "etl.sink.clickhouse.tables.clickhouse is named like the "
                                                + "etl.sink.clickhouse.table sink (etl.sink.clickhouse.name=clickhouse); sink names must be unique"));
        this.runner
                .withPropertyValues("etl.sink.clickhouse.tables[a b].table=x")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining("etl.sink.clickhouse.tables.a b: a table's name is its sink's name"));
        this.runner
                .withPropertyValues(TWO_TABLES)
                .withPropertyValues("etl.sink.clickhouse.tables.orders.placement.distributed-table=orders")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining(
                                "etl.sink.clickhouse.tables.orders.placement.sharding-key must be set with "
                                        + "etl.sink.clickhouse.tables.orders.placement.distributed-table"));
        this.runner
                .withPropertyValues(TWO_TABLES)
                .withPropertyValues(
                        "etl.sink.clickhouse.placement.distributed-table=orders",
                        "etl.sink.clickhouse.placement.sharding-key=cityHash64(id)")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining(
                                "etl.sink.clickhouse.placement is the placement of the etl.sink.clickhouse.table "
                                        + "sink, which is not set; a named table has its own"));
    }

    @Test
    void tableKeysAreKnownAndATypoUnderATableIsRefusedWithTheClosestName() {
        this.runner
                .withUserConfiguration(TableEncoders.class)
                .withPropertyValues(TWO_TABLES)
                .withPropertyValues(
                        "etl.sink.clickhouse.tables.orders.batch.max-bytes=8MB",
                        "etl.sink.clickhouse.tables.orders.require-dedup=true",
                        "etl.sink.clickhouse.tables.refunds.placement.mode=warn",
                        "etl.sink.clickhouse.tables.refunds.placement.distributed-table=refunds",
                        "etl.sink.clickhouse.tables.refunds.placement.sharding-key=intHash64(id)")
                .run((context) -> assertThat(context).hasNotFailed());
        this.runner
                .withUserConfiguration(TableEncoders.class)
                .withPropertyValues(TWO_TABLES)
                .withPropertyValues("etl.sink.clickhouse.tables.orders.tabel=orders_local")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .isInstanceOf(InvalidEtlConfigurationException.class)
                        .hasMessageContaining("etl.sink.clickhouse.tables.orders.tabel")
                        .hasMessageContaining("did you mean etl.sink.clickhouse.tables.orders.table?"));
        this.runner
                .withUserConfiguration(TableEncoders.class)
                .withPropertyValues(TWO_TABLES)
                .withPropertyValues("etl.sink.clickhouse.tables.refunds.batch.max-rowz=5")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .isInstanceOf(InvalidEtlConfigurationException.class)
                        .hasMessageContaining("did you mean etl.sink.clickhouse.tables.refunds.batch.max-rows?"));
    }

    @Test
    void namedTablesCanComeFromEnvironmentVariables() {
        Map<String, Object> variables = new HashMap<>(System.getenv());
        variables.put("ETL_SINK_CLICKHOUSE_TABLES_ORDERS_TABLE", "orders_local");
        variables.put("ETL_SINK_CLICKHOUSE_TABLES_ORDERS_BATCH_MAXROWS", "700");
        variables.put("ETL_SINK_CLICKHOUSE_TABLES_REFUNDS_TABLE", "refunds_local");
        this.runner
                .withUserConfiguration(TableEncoders.class)
                .withInitializer((context) -> context.getEnvironment()
                        .getPropertySources()
                        .replace(
                                StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                                new SystemEnvironmentPropertySource(
                                        StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, variables)))
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean("etlClickHouseSink.orders", SinkDefinition.class)
                                    .batch()
                                    .maxRows())
                            .isEqualTo(700);
                    assertThat(context.getBean(ClickHouseTables.class)
                                    .config("refunds")
                                    .qualifiedTable())
                            .isEqualTo("shop.refunds_local");
                });
    }

    @Test
    void withoutTableOrTablesThereIsNoClickHouseSink() {
        this.runner
                .withUserConfiguration(CaptureOnly.class)
                .run((context) -> assertThat(context)
                        .hasNotFailed()
                        .doesNotHaveBean(ClickHouseTables.class)
                        .doesNotHaveBean(ClickHouseConnectionDetails.class));
    }

    record Order(long id, String customer) {}

    record Refund(long id, long orderId) {}

    @Configuration(proxyBeanMethods = false)
    static class TableEncoders {

        @Bean
        @Qualifier("orders")
        RowBinaryEncoder<Order> orderRows() {
            return RowBinaryEncoder.<Order>builder()
                    .uint64("id", Order::id)
                    .string("customer", Order::customer)
                    .build();
        }

        @Bean
        @Qualifier("refunds")
        RowBinaryEncoder<Refund> refundRows() {
            return RowBinaryEncoder.<Refund>builder()
                    .uint64("id", Refund::id)
                    .uint64("order_id", Refund::orderId)
                    .build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class SingleEncoder {

        @Bean
        RowBinaryEncoder<String> eventRows() {
            return RowBinaryEncoder.<String>builder().string("event", (s) -> s).build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoSingleEncoders {

        @Bean
        @Primary
        RowBinaryEncoder<String> primaryEvents() {
            return RowBinaryEncoder.<String>builder().string("event", (s) -> s).build();
        }

        @Bean
        RowBinaryEncoder<String> otherEvents() {
            return RowBinaryEncoder.<String>builder().string("other", (s) -> s).build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class BeanNamedRefunds {

        @Bean
        RowBinaryEncoder<Refund> refunds() {
            return RowBinaryEncoder.<Refund>builder().uint64("id", Refund::id).build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnOrdersSink {

        @Bean("etlClickHouseSink.orders")
        SinkDefinition ownOrders() {
            return CaptureSink.create("own-orders", 2).definition();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class CaptureOnly {

        @Bean
        SinkDefinition capture() {
            return CaptureSink.create("capture", 1).definition();
        }
    }

    static class PlacementUser {

        final DistributedPlacement placement;

        PlacementUser(@Qualifier("orders") DistributedPlacement placement) {
            this.placement = placement;
        }
    }

    static class UnqualifiedPlacementUser {

        final DistributedPlacement placement;

        final DistributedPlacement orders;

        UnqualifiedPlacementUser(DistributedPlacement placement, @Qualifier("orders") DistributedPlacement orders) {
            this.placement = placement;
            this.orders = orders;
        }
    }

    /** A source, a chain and a lifecycle that does not start: nothing is written. */
    @Configuration(proxyBeanMethods = false)
    static class Pipeline {

        @Bean
        MemorySource memorySource() {
            return MemorySource.create();
        }

        @Bean
        ChainFactory chain() {
            Deserializer<String> utf8 = (key, value, meta, out) -> out.collect(value.toUtf8String());
            return (ctx) -> Chains.from(ctx, utf8)
                    .filter((s) -> false)
                    .sink(dev.etl.test.capture.TestEncoders.string(), (value, meta, shards) -> 0);
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
