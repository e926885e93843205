package dev.etl.autoconfigure.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.autoconfigure.EtlAutoConfiguration;
import dev.etl.autoconfigure.EtlPipelineLifecycle;
import dev.etl.autoconfigure.InvalidEtlConfigurationException;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.clickhouse.sharding.DistributedPlacement;
import dev.etl.clickhouse.sharding.DistributedRouter;
import dev.etl.clickhouse.sharding.KeyType;
import dev.etl.clickhouse.sharding.PlacementCheck;
import dev.etl.clickhouse.sharding.PlacementCheckMode;
import dev.etl.clickhouse.sharding.ShardWeights;
import dev.etl.clickhouse.sharding.ShardingKey;
import dev.etl.deser.Deserializer;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.test.memory.MemorySource;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code etl.sink.clickhouse.placement.*}: binding, validation, the {@link DistributedPlacement} bean,
 * the check on the sink's configuration, and the conditions of the {@code etlplacement} endpoint. No
 * server is needed (nothing is started; the endpoint is asked about replicas that refuse connections).
 */
class ClickHousePlacementAutoConfigurationTest {

    private static final String[] TABLE = {
        "etl.sink.clickhouse.database=shop",
        "etl.sink.clickhouse.table=orders_local",
        "etl.sink.clickhouse.shards[0].replicas=http://127.0.0.1:1",
        "etl.sink.clickhouse.shards[1].replicas=http://127.0.0.1:2",
        "etl.sink.clickhouse.username=etl",
        "etl.sink.clickhouse.password=s3cret-pw",
        "etl.sink.clickhouse.connect-timeout=500ms"
    };

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    ClickHouseSinkAutoConfiguration.class,
                    ClickHousePlacementEndpointAutoConfiguration.class,
                    EtlAutoConfiguration.class,
                    EndpointAutoConfiguration.class))
            .withPropertyValues("etl.pipeline.exit-on-failure=false", "etl.pipeline.handle-signals=false")
            .withPropertyValues(TABLE)
            .withUserConfiguration(Beans.class);

    @Test
    void placementPropertiesDefineThePlacementBeanAndTheSinksCheck() {
        this.runner
                .withPropertyValues(
                        "etl.sink.clickhouse.placement.distributed-table=orders",
                        "etl.sink.clickhouse.placement.sharding-key=cityHash64(id)",
                        "etl.sink.clickhouse.placement.weights=3,4",
                        "etl.sink.clickhouse.placement.mode=warn",
                        "etl.sink.clickhouse.placement.sample-size=200",
                        "etl.sink.clickhouse.placement.seed=7")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    DistributedPlacement placement =
                            context.getBean("etlClickHousePlacement", DistributedPlacement.class);
                    // the column's type comes from the encoder bean: id is UInt64 there
                    assertThat(placement)
                            .isEqualTo(new DistributedPlacement(
                                    ShardingKey.cityHash64("id", KeyType.UINT64), ShardWeights.of(3, 4)));
                    PlacementCheck check =
                            context.getBean(ClickHouseSinkConfig.class).placementCheck();
                    assertThat(check)
                            .isEqualTo(
                                    new PlacementCheck("shop", "orders", placement, PlacementCheckMode.WARN, 200, 7));
                    // a YAML user routes with it
                    assertThat(DistributedRouter.byLong(placement, (Long id) -> id)
                                    .placement())
                            .isSameAs(placement);
                });
    }

    @Test
    void defaultsAreOneWeightPerShardFailModeAndTheSinksDatabase() {
        this.runner
                .withPropertyValues(
                        "etl.sink.clickhouse.placement.distributed-table=orders",
                        "etl.sink.clickhouse.placement.sharding-key=murmurHash3_64(customer)")
                .run((context) -> {
                    PlacementCheck check =
                            context.getBean(ClickHouseSinkConfig.class).placementCheck();
                    assertThat(check.database()).isEqualTo("shop");
                    assertThat(check.mode()).isEqualTo(PlacementCheckMode.FAIL);
                    assertThat(check.sampleSize()).isEqualTo(PlacementCheck.DEFAULT_SAMPLE_SIZE);
                    assertThat(check.seed()).isEqualTo(PlacementCheck.DEFAULT_SEED);
                    assertThat(check.placement())
                            .isEqualTo(new DistributedPlacement(
                                    ShardingKey.murmurHash3_64("customer", KeyType.STRING), ShardWeights.uniform(2)));
                });
    }

    @Test
    void keyTypeAndDatabaseOverrideTheEncoderAndTheSink() {
        this.runner
                .withPropertyValues(
                        "etl.sink.clickhouse.placement.distributed-table=orders",
                        "etl.sink.clickhouse.placement.database=reports",
                        "etl.sink.clickhouse.placement.sharding-key=intHash64(id)",
                        "etl.sink.clickhouse.placement.key-type=Int32")
                .run((context) -> {
                    PlacementCheck check =
                            context.getBean(ClickHouseSinkConfig.class).placementCheck();
                    assertThat(check.qualifiedTable()).isEqualTo("reports.orders");
                    assertThat(check.placement().key()).isEqualTo(ShardingKey.intHash64("id", KeyType.INT32));
                });
    }

    @Test
    void withoutPlacementPropertiesThereIsNoPlacementAndNoCheck() {
        this.runner.run((context) -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(DistributedPlacement.class);
            assertThat(context.getBean(ClickHouseSinkConfig.class).placementCheck())
                    .isNull();
        });
    }

    @Test
    void aKeyColumnTheEncoderDoesNotWriteNeedsKeyType() {
        this.runner
                .withPropertyValues(
                        "etl.sink.clickhouse.placement.distributed-table=orders",
                        "etl.sink.clickhouse.placement.sharding-key=cityHash64(order_id)")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(InvalidEtlConfigurationException.class)
                        .hasMessageContaining(
                                "etl.sink.clickhouse.placement.sharding-key (cityHash64(order_id)) is over column "
                                        + "'order_id', which the sink's RowBinaryEncoder does not write (columns: [id UInt64, customer "
                                        + "String])"));
    }

    @Test
    void weightsMustMatchTheShardsOfTheConnection() {
        // two shards from the properties: caught when bound
        this.runner
                .withPropertyValues(
                        "etl.sink.clickhouse.placement.distributed-table=orders",
                        "etl.sink.clickhouse.placement.sharding-key=cityHash64(id)",
                        "etl.sink.clickhouse.placement.weights=1,1,1")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining(
                                "etl.sink.clickhouse.placement.weights must list one weight per shard (2 "
                                        + "shards), got [1, 1, 1]"));
    }

    @Test
    void invalidPlacementPropertiesFailWhenBoundNamingTheProperty() {
        this.runner
                .withPropertyValues(
                        "etl.sink.clickhouse.placement.distributed-table=orders",
                        "etl.sink.clickhouse.placement.sharding-key=sipHash64(id)")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining(
                                "etl.sink.clickhouse.placement.sharding-key sharding expression 'sipHash64(id)' "
                                        + "is not one this router reproduces"));
        this.runner
                .withPropertyValues("etl.sink.clickhouse.placement.distributed-table=orders")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining("etl.sink.clickhouse.placement.sharding-key must be set with "
                                + "etl.sink.clickhouse.placement.distributed-table"));
        this.runner
                .withPropertyValues("etl.sink.clickhouse.placement.sharding-key=cityHash64(id)")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining(
                                "etl.sink.clickhouse.placement.distributed-table must be set when other "
                                        + "etl.sink.clickhouse.placement.* properties are"));
        this.runner
                .withPropertyValues(
                        "etl.sink.clickhouse.placement.distributed-table=orders",
                        "etl.sink.clickhouse.placement.sharding-key=cityHash64(id)",
                        "etl.sink.clickhouse.placement.key-type=Float64",
                        "etl.sink.clickhouse.placement.weights=0,0",
                        "etl.sink.clickhouse.placement.sample-size=0")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining(
                                "etl.sink.clickhouse.placement.key-type: ClickHouse type 'Float64' is not a "
                                        + "supported sharding key column type")
                        .hasStackTraceContaining(
                                "etl.sink.clickhouse.placement.weights must be >= 0 each and not all 0, got "
                                        + "[0, 0]")
                        .hasStackTraceContaining("etl.sink.clickhouse.placement.sample-size must be >= 1, got 0"));
        this.runner
                .withPropertyValues(
                        "etl.sink.clickhouse.placement.distributed-table=orders",
                        "etl.sink.clickhouse.placement.sharding-key=intHash64(customer)",
                        "etl.sink.clickhouse.placement.key-type=String")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining(
                                "etl.sink.clickhouse.placement.sharding-key intHash64(customer) over a String "
                                        + "column is not a Distributed sharding key ClickHouse accepts"));
    }

    // the endpoint

    @Test
    void theEndpointIsRegisteredWhenExposedAndAClickHouseSinkIsConfigured() {
        this.runner
                .withPropertyValues("management.endpoints.web.exposure.include=etlplacement")
                .run((context) -> assertThat(context).hasSingleBean(ClickHousePlacementEndpoint.class));
        this.runner
                .withPropertyValues("management.endpoints.jmx.exposure.include=etlplacement", "spring.jmx.enabled=true")
                .run((context) -> assertThat(context).hasSingleBean(ClickHousePlacementEndpoint.class));
    }

    @Test
    void theEndpointIsNotRegisteredUnlessExposed() {
        this.runner.run(
                (context) -> assertThat(context).hasNotFailed().doesNotHaveBean(ClickHousePlacementEndpoint.class));
        this.runner
                .withPropertyValues(
                        "management.endpoints.web.exposure.include=*", "management.endpoint.etlplacement.access=NONE")
                .run((context) -> assertThat(context).doesNotHaveBean(ClickHousePlacementEndpoint.class));
    }

    @Test
    void theEndpointIsNotRegisteredWithoutActuatorOrWithoutAClickHouseSink() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        ClickHouseSinkAutoConfiguration.class,
                        ClickHousePlacementEndpointAutoConfiguration.class,
                        EtlAutoConfiguration.class))
                .withPropertyValues("etl.pipeline.exit-on-failure=false", "etl.pipeline.handle-signals=false")
                .withPropertyValues(TABLE)
                .withUserConfiguration(Beans.class)
                .withPropertyValues("management.endpoints.web.exposure.include=etlplacement")
                .withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate"))
                .run((context) -> assertThat(context)
                        .hasNotFailed()
                        .doesNotHaveBean(ClickHousePlacementEndpoint.class)
                        .hasSingleBean(ClickHouseSinkConfig.class));
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        ClickHouseSinkAutoConfiguration.class,
                        ClickHousePlacementEndpointAutoConfiguration.class,
                        EndpointAutoConfiguration.class))
                .withPropertyValues("management.endpoints.web.exposure.include=etlplacement")
                .run((context) -> assertThat(context)
                        .hasNotFailed()
                        .doesNotHaveBean(ClickHousePlacementEndpoint.class)
                        .doesNotHaveBean(ClickHouseSinkConfigs.class));
    }

    @Test
    void theEndpointReportsAnUnreachableServerAsUnverifiedWithoutSecrets() {
        this.runner
                .withPropertyValues(
                        "management.endpoints.web.exposure.include=etlplacement",
                        "etl.sink.clickhouse.placement.distributed-table=orders",
                        "etl.sink.clickhouse.placement.sharding-key=cityHash64(id)",
                        "etl.sink.clickhouse.placement.mode=off")
                .run((context) -> {
                    ClickHousePlacementEndpoint endpoint = context.getBean(ClickHousePlacementEndpoint.class);
                    ClickHousePlacementEndpoint.Placements all = endpoint.placements();
                    assertThat(all.sinks()).containsOnlyKeys("clickhouse");
                    ClickHousePlacementEndpoint.SinkPlacement result =
                            all.sinks().get("clickhouse");
                    assertThat(result.verdict()).isEqualTo(ClickHousePlacementEndpoint.Verdict.UNVERIFIED);
                    assertThat(result.table()).isEqualTo("shop.orders_local");
                    assertThat(result.distributedTable()).isEqualTo("shop.orders");
                    assertThat(result.mode()).isEqualTo("OFF");
                    assertThat(result.pipeline()).isEqualTo("cityHash64(id) [id UInt64] % 2 over weights [1, 1]");
                    assertThat(result.problems())
                            .singleElement()
                            .asString()
                            .startsWith("placement could not be checked: no replica of the sink answered")
                            .contains("http://127.0.0.1:1", "http://127.0.0.1:2");
                    assertThat(result.toString()).doesNotContain("s3cret-pw");
                    assertThat(endpoint.placement("clickhouse")).isEqualTo(result);
                    assertThat(endpoint.placement("orders")).isNull();
                });
    }

    @Test
    void theEndpointListsNoSinkWithoutAPlacementCheck() {
        this.runner
                .withPropertyValues("management.endpoints.web.exposure.include=etlplacement")
                .run((context) -> {
                    ClickHousePlacementEndpoint endpoint = context.getBean(ClickHousePlacementEndpoint.class);
                    assertThat(endpoint.placements().sinks()).isEmpty();
                    assertThat(endpoint.placement("clickhouse")).isNull();
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class Beans {

        record Order(long id, String customer) {}

        @Bean
        RowBinaryEncoder<Order> orderRows() {
            return RowBinaryEncoder.<Order>builder()
                    .uint64("id", Order::id)
                    .string("customer", Order::customer)
                    .build();
        }

        @Bean
        MemorySource memorySource() {
            return MemorySource.create();
        }

        @Bean
        ChainFactory chain() {
            Deserializer<Order> orders = (key, value, meta, out) -> out.collect(new Order(1, value.toUtf8String()));
            return (ctx) -> Chains.from(ctx, orders).sink((order, meta, shards) -> 0);
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
