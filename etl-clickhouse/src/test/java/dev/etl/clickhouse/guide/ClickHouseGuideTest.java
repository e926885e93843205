package dev.etl.clickhouse.guide;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.clickhouse.ClickHouseHttpTransport;
import dev.etl.clickhouse.ClickHouseRequestException;
import dev.etl.clickhouse.ClickHouseSink;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.ClickHouseSinkConfig.Transport;
import dev.etl.clickhouse.ClickHouseTransport;
import dev.etl.clickhouse.ClickHouseTypes;
import dev.etl.clickhouse.InsertFormat;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.clickhouse.ValidationMode;
import dev.etl.clickhouse.sharding.DistributedPlacement;
import dev.etl.clickhouse.sharding.DistributedPlacementCheck;
import dev.etl.clickhouse.sharding.DistributedRouter;
import dev.etl.clickhouse.sharding.DistributedTable;
import dev.etl.clickhouse.sharding.KeyType;
import dev.etl.clickhouse.sharding.PlacementCheck;
import dev.etl.clickhouse.sharding.PlacementCheckMode;
import dev.etl.clickhouse.sharding.PlacementReport;
import dev.etl.clickhouse.sharding.ShardWeights;
import dev.etl.clickhouse.sharding.ShardingKey;
import dev.etl.sink.BatchConfig;
import dev.etl.sink.Router;
import dev.etl.sink.SinkDefinition;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The code of {@code docs/connectors/clickhouse.md} (its snippets are these regions): what builds without a
 * server is run here; what reads from a server (the placement reads and checks) is compiled only (the
 * integration tests run the same calls against the local cluster).
 */
class ClickHouseGuideTest {

    /** The record the snippets write. */
    record Order(
            long id,
            String customer,
            long amountCents,
            long tsMillis,
            @Nullable String coupon,
            List<String> tags) {}

    static SinkDefinition configuring(MeterRegistry meterRegistry) {
        // tag::configuring[]
        RowBinaryEncoder<Order> encoder = RowBinaryEncoder.<Order>builder() // column order = wire order
                .uint64("id", Order::id)
                .string("customer", Order::customer)
                .decimal64("amount", 2, Order::amountCents) // Decimal(18, 2) from the unscaled long
                .dateTime64("ts", 3, Order::tsMillis) // DateTime64(3) from epoch millis
                .nullableString("coupon", Order::coupon)
                .array("tags", ClickHouseTypes.string(), Order::tags)
                .build();

        ClickHouseSinkConfig config = ClickHouseSinkConfig.builder()
                .table("shop", "orders_local") // the shard-local table
                .shard("http://ch-1a:8123", "http://ch-1b:8123") // shard 0: its replicas
                .shard("http://ch-2a:8123", "http://ch-2b:8123") // shard 1
                .credentials("etl", System.getenv("CH_PASSWORD")) // Basic auth; never logged
                .connectTimeout(Duration.ofSeconds(2))
                .socketTimeout(Duration.ofSeconds(60)) // until the server answers the insert
                .transport(Transport.CLIENT_V2) // the default; Transport.HTTP = raw HTTP
                .compression(true) // compressed request bodies
                .breaker(3, Duration.ofSeconds(10)) // per-replica circuit breaker
                .validation(ValidationMode.FULL)
                .requireDedup(true) // refuse tables that cannot dedup retries
                .setting("insert_quorum", "2") // extra settings pass through
                .batch(new BatchConfig(100_000, 32L << 20, Duration.ofSeconds(1)))
                .build();

        SinkDefinition sink = ClickHouseSink.definition("orders", "orders-pipeline", config, encoder, meterRegistry);
        // in the chain: .sink(KeyHashRouter.byKey(Order::id)) — written with the encoder the sink validated
        // end::configuring[]
        return sink;
    }

    @Test
    void theConfiguredSinkHasTheEncodersColumns() {
        SinkDefinition sink = configuring(new SimpleMeterRegistry());

        assertThat(sink.name()).isEqualTo("orders");
        assertThat(sink.encoder()).isNotNull();
    }

    @Test
    void theNativeFormatIsOneBuilderCall() {
        // tag::native[]
        ClickHouseSinkConfig config = ClickHouseSinkConfig.builder()
                .table("shop", "orders_local")
                .shard("http://ch-1a:8123", "http://ch-1b:8123")
                .format(InsertFormat.NATIVE)
                .build();
        // end::native[]

        assertThat(config.format()).isEqualTo(InsertFormat.NATIVE);
    }

    static Router<Order> placement(RowBinaryEncoder<Order> encoder, MeterRegistry meterRegistry) {
        // tag::placement[]
        // shop.orders = Distributed(prod, shop, orders_local, cityHash64(id)) over shop.orders_local
        DistributedPlacement placement =
                new DistributedPlacement(ShardingKey.cityHash64("id", KeyType.UINT64), ShardWeights.uniform(2));

        ClickHouseSinkConfig config = ClickHouseSinkConfig.builder()
                .table("shop", "orders_local") // the shard-local table
                .shard("http://ch-1a:8123", "http://ch-1b:8123") // shard_num 1
                .shard("http://ch-2a:8123", "http://ch-2b:8123") // shard_num 2
                .placementCheck(PlacementCheck.of("shop", "orders", placement, PlacementCheckMode.FAIL))
                .build();
        SinkDefinition sink = ClickHouseSink.definition("orders", "orders-pipeline", config, encoder, meterRegistry);
        Router<Order> router = DistributedRouter.byLong(placement, Order::id);
        // in the chain: .sink(router) — the sink writes with the encoder it validated
        // end::placement[]
        assertThat(sink.name()).isEqualTo("orders");
        return router;
    }

    @Test
    void thePlacementGivesTheRouterAndTheSinksCheck() {
        RowBinaryEncoder<Order> encoder =
                RowBinaryEncoder.<Order>builder().uint64("id", Order::id).build();

        assertThat(placement(encoder, new SimpleMeterRegistry())).isInstanceOf(DistributedRouter.class);
    }

    static DistributedPlacement readPlacement() throws ClickHouseRequestException {
        // tag::read-placement[]
        ClickHouseTransport reads = new ClickHouseHttpTransport(
                Duration.ofSeconds(2), Duration.ofSeconds(10), "etl", System.getenv("CH_PASSWORD"), false);
        DistributedPlacement placement =
                DistributedPlacement.read(reads, URI.create("http://ch-1a:8123"), "shop", "orders");
        // end::read-placement[]
        return placement;
    }

    static PlacementReport checkRouter(ClickHouseTransport transport, Router<Order> router, List<Order> sampleOrders)
            throws ClickHouseRequestException {
        // tag::check-router[]
        URI replica = URI.create("http://ch-1a:8123");
        DistributedTable table = DistributedTable.read(transport, replica, "shop", "orders");
        PlacementReport report = new DistributedPlacementCheck(transport, replica)
                .check(table, null, router, 2, sampleOrders, Order::id); // null: the key column from the expression
        DistributedPlacementCheck.enforce(report, PlacementCheckMode.WARN);
        // end::check-router[]
        return report;
    }
}
