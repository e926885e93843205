package dev.etl.it.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.clickhouse.ClickHouseSchemaException;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.clickhouse.sharding.DistributedPlacement;
import dev.etl.clickhouse.sharding.DistributedRouter;
import dev.etl.clickhouse.sharding.ShardPlacementException;
import dev.etl.deser.Deserializer;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.ops.FlatMapper;
import dev.etl.sink.KeyHashRouter;
import dev.etl.test.infra.ClickHouseHttp;
import dev.etl.test.infra.ClickHouseTestDatabase;
import dev.etl.test.infra.InfraEndpoints;
import dev.etl.test.infra.InfraServer;
import dev.etl.test.infra.LocalInfra;
import dev.etl.test.memory.MemorySource;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * Named tables against the local 2 × 2 cluster: one application, three tables from
 * {@code etl.sink.clickhouse.tables.*} over one connection, each validated (FULL) against the encoder
 * qualified with its name. Orders are split into a header row ({@code orders}) and line rows
 * ({@code lines}), refunds routed to {@code refunds}; every row arrives once, the lines of an order sit on
 * its header's shard, and every offset is committed. A table whose columns do not match its encoder
 * fails the start naming that table; a misconfigured table fails it naming the property. A named
 * table's {@code placement.*} is checked against its Distributed table at start (a wrong key refuses to
 * start) and, routed with its qualified {@code DistributedPlacement}, its rows land where the Distributed
 * table puts them.
 */
@LocalInfra(InfraServer.CLICKHOUSE)
class SeveralTablesIT {

    private static final int ORDERS = 600;

    private static final int LINES_PER_ORDER = 3;

    private static final int REFUNDS = 150;

    private static ClickHouseTestDatabase db;

    private static InfraEndpoints infra;

    @BeforeAll
    static void createTables(ClickHouseTestDatabase database) {
        db = database;
        infra = database.endpoints();
        replicated("orders_local", "order_id UInt64, customer_id UInt64", "order_id");
        replicated("order_lines_local", "order_id UInt64, line_no UInt16, sku String", "(order_id, line_no)");
        replicated("refunds_local", "refund_id UInt64, order_id UInt64", "refund_id");
        replicated("placed_orders_local", "order_id UInt64, customer_id UInt64", "order_id");
        replicated("placed_lines_local", "order_id UInt64, line_no UInt16, sku String", "(order_id, line_no)");
        db.execute("CREATE TABLE " + db.table("placed_orders") + " ON CLUSTER " + db.cluster() + " AS "
                + db.table("placed_orders_local") + " ENGINE = Distributed(" + db.cluster() + ", " + db.name()
                + ", placed_orders_local, cityHash64(order_id))");
    }

    private static void replicated(String table, String columns, String orderBy) {
        db.execute("CREATE TABLE " + db.table(table) + " ON CLUSTER " + db.cluster() + " (" + columns
                + ") ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/" + db.name() + "/" + table
                + "', '{replica}') ORDER BY " + orderBy);
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void ordersAreSplitIntoTwoTablesAndRefundsRoutedToAThirdWithEveryOffsetCommitted() throws Exception {
        try (ConfigurableApplicationContext context = start("order_lines_local")) {
            MemorySource source = context.getBean(MemorySource.class);
            source.handle().assign(0, 0, 1);
            long[] last = {-1, -1};
            for (int i = 1; i <= ORDERS; i++) {
                last[i % 2] = source.handle().push(i % 2, null, bytes("order," + i));
            }
            for (int i = 1; i <= REFUNDS; i++) {
                last[i % 2] = source.handle().push(i % 2, null, bytes("refund," + (10_000 + i) + "," + i));
            }
            for (int p = 0; p < 2; p++) {
                assertThat(source.handle().awaitCommitted(p, last[p] + 1, Duration.ofSeconds(60)))
                        .as("partition %d committed", p)
                        .isTrue();
            }
        }
        long orders = 0;
        long lines = 0;
        long refunds = 0;
        long orderIds = 0;
        long distinctLines = 0;
        long refundIds = 0;
        for (int shard = 1; shard <= 2; shard++) {
            String replica = infra.clickhouseShard(shard).replicaUrl(1);
            for (String table : List.of("orders_local", "order_lines_local", "refunds_local")) {
                ClickHouseHttp.query(replica, "SYSTEM SYNC REPLICA " + db.table(table));
            }
            long o = count(replica, "SELECT count() FROM " + db.table("orders_local"));
            long l = count(replica, "SELECT count() FROM " + db.table("order_lines_local"));
            assertThat(o).as("orders on shard %d", shard).isPositive();
            // routed by order id in both tables: an order's lines are on its header's shard
            assertThat(count(
                            replica,
                            "SELECT count() FROM " + db.table("order_lines_local") + " WHERE order_id NOT IN "
                                    + "(SELECT order_id FROM " + db.table("orders_local") + ")"))
                    .as("lines without a header on shard %d", shard)
                    .isZero();
            // each table holds its own rows, written with its own encoder
            assertThat(count(
                            replica,
                            "SELECT count() FROM " + db.table("orders_local") + " WHERE customer_id != order_id % 97"))
                    .as("orders rows on shard %d", shard)
                    .isZero();
            assertThat(count(
                            replica,
                            "SELECT count() FROM " + db.table("order_lines_local") + " WHERE line_no >= "
                                    + LINES_PER_ORDER + " OR sku != concat('sku-', toString(order_id * 7 + line_no))"))
                    .as("lines rows on shard %d", shard)
                    .isZero();
            assertThat(count(
                            replica,
                            "SELECT count() FROM " + db.table("refunds_local")
                                    + " WHERE refund_id != 10000 + order_id"))
                    .as("refund rows on shard %d", shard)
                    .isZero();
            orders += o;
            lines += l;
            refunds += count(replica, "SELECT count() FROM " + db.table("refunds_local"));
            orderIds += count(replica, "SELECT sum(order_id) FROM " + db.table("orders_local"));
            distinctLines +=
                    count(replica, "SELECT uniqExact(order_id, line_no) FROM " + db.table("order_lines_local"));
            refundIds += count(replica, "SELECT sum(refund_id) FROM " + db.table("refunds_local"));
        }
        assertThat(orders).isEqualTo(ORDERS);
        assertThat(lines).isEqualTo((long) ORDERS * LINES_PER_ORDER);
        assertThat(refunds).isEqualTo(REFUNDS);
        // every order, line and refund exactly once (1..ORDERS, 10001..10000+REFUNDS)
        assertThat(orderIds).isEqualTo((long) ORDERS * (ORDERS + 1) / 2);
        assertThat(distinctLines).isEqualTo((long) ORDERS * LINES_PER_ORDER);
        assertThat(refundIds).isEqualTo(10_000L * REFUNDS + (long) REFUNDS * (REFUNDS + 1) / 2);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aMisconfiguredTableFailsTheStartNamingItsProperty() {
        assertThatThrownBy(() -> start("order_lines_local", "etl.sink.clickhouse.tables.lines.batch.max-rows=0")
                        .close())
                .hasStackTraceContaining("etl.sink.clickhouse.tables.lines.batch.max-rows must be >= 1, got 0");
        assertThatThrownBy(() -> start("order_lines_local", "etl.sink.clickhouse.tables.refunds.tabel=refunds")
                        .close())
                .hasStackTraceContaining("etl.sink.clickhouse.tables.refunds.tabel")
                .hasStackTraceContaining("did you mean etl.sink.clickhouse.tables.refunds.table?");
        assertThatThrownBy(() -> start("order_lines_local", "etl.sink.clickhouse.tables.refunds.table=")
                        .close())
                .hasStackTraceContaining("etl.sink.clickhouse.tables.refunds.table must be set");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aTableThatDoesNotMatchItsEncoderFailsTheStartNamingIt() {
        replicated("wrong_lines_local", "order_id UInt64, line_no UInt32, sku String", "order_id");
        assertThatThrownBy(() -> start("wrong_lines_local").close())
                .hasRootCauseInstanceOf(ClickHouseSchemaException.class)
                .rootCause()
                .hasMessageContaining("table " + db.name() + ".wrong_lines_local")
                .hasMessageContaining("line_no");
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aNamedTablesPlacementIsCheckedAtStartAndItsRowsLandWhereDistributedPutsThem() throws Exception {
        assertThatThrownBy(() -> startPlaced("murmurHash3_64(order_id)").close())
                .hasRootCauseInstanceOf(ShardPlacementException.class)
                .rootCause()
                .hasMessageContaining("does not match Distributed table " + db.name() + ".placed_orders");

        try (ConfigurableApplicationContext context = startPlaced("cityHash64(order_id)")) {
            MemorySource source = context.getBean(MemorySource.class);
            source.handle().assign(0, 0);
            long last = -1;
            for (int i = 1; i <= ORDERS; i++) {
                last = source.handle().push(0, null, bytes(Long.toString(i * 7919L)));
            }
            assertThat(source.handle().awaitCommitted(0, last + 1, Duration.ofSeconds(60)))
                    .isTrue();
        }
        long orders = 0;
        long lines = 0;
        for (int shard = 0; shard < 2; shard++) {
            String replica = infra.clickhouseShard(shard + 1).replicaUrl(1);
            for (String table : List.of("placed_orders_local", "placed_lines_local")) {
                ClickHouseHttp.query(replica, "SYSTEM SYNC REPLICA " + db.table(table));
                // the server's own placement of each row: cityHash64(order_id) % 2 names this shard, in the
                // table the placement is declared for and in the lines routed with the same placement
                assertThat(count(
                                replica,
                                "SELECT countIf(cityHash64(order_id) % 2 != " + shard + ") FROM " + db.table(table)))
                        .as("%s rows on shard %d that Distributed puts elsewhere", table, shard)
                        .isZero();
            }
            long o = count(replica, "SELECT count() FROM " + db.table("placed_orders_local"));
            assertThat(o).as("orders on shard %d", shard).isPositive();
            orders += o;
            lines += count(replica, "SELECT count() FROM " + db.table("placed_lines_local"));
        }
        assertThat(orders).isEqualTo(ORDERS);
        assertThat(lines).isEqualTo((long) ORDERS * LINES_PER_ORDER);
    }

    private static ConfigurableApplicationContext startPlaced(String shardingKey) {
        List<String> properties = new ArrayList<>(List.of(
                "spring.application.name=placed-tables-it",
                "spring.main.web-application-type=none",
                "etl.pipeline.handle-signals=false",
                "etl.pipeline.exit-on-failure=false",
                "etl.pipeline.close-on-failure=false",
                "etl.checkpoint.interval=100ms",
                "etl.pipeline.poll-timeout=20ms",
                "etl.checkpoint.drain-timeout=10s",
                "etl.sink.clickhouse.database=" + db.name(),
                "etl.sink.clickhouse.batch.linger=100ms",
                "etl.sink.clickhouse.tables.orders.table=placed_orders_local",
                "etl.sink.clickhouse.tables.orders.placement.distributed-table=placed_orders",
                "etl.sink.clickhouse.tables.orders.placement.sharding-key=" + shardingKey,
                "etl.sink.clickhouse.tables.orders.placement.sample-size=200",
                "etl.sink.clickhouse.tables.lines.table=placed_lines_local"));
        for (int s = 0; s < infra.clickhouseShards().size(); s++) {
            properties.add("etl.sink.clickhouse.shards[" + s + "].replicas="
                    + String.join(",", infra.clickhouseShards().get(s).replicaUrls()));
        }
        return new SpringApplicationBuilder(PlacedApplication.class)
                .properties(properties.toArray(String[]::new))
                .run();
    }

    private static ConfigurableApplicationContext start(String linesTable, String... extra) {
        List<String> properties = new ArrayList<>(List.of(
                "spring.application.name=tables-it",
                "spring.main.web-application-type=none",
                "etl.pipeline.handle-signals=false",
                "etl.pipeline.exit-on-failure=false",
                "etl.pipeline.close-on-failure=false",
                "etl.pipeline.threads=2",
                "etl.checkpoint.interval=100ms",
                "etl.pipeline.poll-timeout=20ms",
                "etl.checkpoint.drain-timeout=10s",
                "etl.sink.clickhouse.database=" + db.name(),
                "etl.sink.clickhouse.batch.linger=100ms",
                "etl.sink.clickhouse.tables.orders.table=orders_local",
                "etl.sink.clickhouse.tables.lines.table=" + linesTable,
                "etl.sink.clickhouse.tables.lines.batch.max-rows=500",
                "etl.sink.clickhouse.tables.refunds.table=refunds_local"));
        for (int s = 0; s < infra.clickhouseShards().size(); s++) {
            properties.add("etl.sink.clickhouse.shards[" + s + "].replicas="
                    + String.join(",", infra.clickhouseShards().get(s).replicaUrls()));
        }
        properties.addAll(List.of(extra));
        return new SpringApplicationBuilder(TablesApplication.class)
                .properties(properties.toArray(String[]::new))
                .run();
    }

    private static long count(String replica, String sql) {
        return Long.parseLong(ClickHouseHttp.query(replica, sql).strip());
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * An order id per record into two named tables, both routed with the placement of
     * {@code tables.orders.placement.*} (the bean qualified "orders"), so an order and its lines sit
     * where the Distributed table {@code placed_orders} puts the order.
     */
    // not a @Configuration: StarterApplication's component scan of this package must not pick it up
    @EnableAutoConfiguration
    static class PlacedApplication {

        @Bean
        MemorySource memorySource() {
            return MemorySource.create();
        }

        @Bean
        @Qualifier("orders")
        RowBinaryEncoder<TablesApplication.OrderRow> orderRows() {
            return new TablesApplication().orderRows();
        }

        @Bean
        @Qualifier("lines")
        RowBinaryEncoder<TablesApplication.LineRow> lineRows() {
            return new TablesApplication().lineRows();
        }

        @Bean
        ChainFactory placedOrders(@Qualifier("orders") DistributedPlacement placement) {
            Deserializer<Long> parse = (key, value, meta, out) -> out.collect(Long.parseLong(value.toUtf8String()));
            FlatMapper<Long, TablesApplication.LineRow> lines = (id, out) -> {
                for (int i = 0; i < LINES_PER_ORDER; i++) {
                    out.collect(new TablesApplication.LineRow(id, i, "sku-" + (id * 7 + i)));
                }
            };
            return (ctx) -> Chains.from(ctx, parse)
                    .fanOut(
                            "order-rows",
                            (header) -> header.map("to-order", (id) -> new TablesApplication.OrderRow(id, id % 97))
                                    .sink(
                                            "orders",
                                            DistributedRouter.byLong(placement, TablesApplication.OrderRow::orderId)),
                            (rows) -> rows.flatMap("to-lines", lines)
                                    .sink(
                                            "lines",
                                            DistributedRouter.byLong(placement, TablesApplication.LineRow::orderId)));
        }
    }

    /** "order,&lt;id&gt;" (with three lines) or "refund,&lt;id&gt;,&lt;orderId&gt;" into three tables. */
    // not a @Configuration: StarterApplication's component scan of this package must not pick it up
    @EnableAutoConfiguration
    static class TablesApplication {

        record Event(boolean refund, long id, long orderId) {}

        record OrderRow(long orderId, long customerId) {}

        record LineRow(long orderId, int lineNo, String sku) {}

        record RefundRow(long refundId, long orderId) {}

        static final FlatMapper<Event, LineRow> LINES = (order, out) -> {
            for (int i = 0; i < LINES_PER_ORDER; i++) {
                out.collect(new LineRow(order.id(), i, "sku-" + (order.id() * 7 + i)));
            }
        };

        @Bean
        MemorySource memorySource() {
            return MemorySource.create();
        }

        @Bean
        @Qualifier("orders")
        RowBinaryEncoder<OrderRow> orderRows() {
            return RowBinaryEncoder.<OrderRow>builder()
                    .uint64("order_id", OrderRow::orderId)
                    .uint64("customer_id", OrderRow::customerId)
                    .build();
        }

        @Bean
        @Qualifier("lines")
        RowBinaryEncoder<LineRow> lineRows() {
            return RowBinaryEncoder.<LineRow>builder()
                    .uint64("order_id", LineRow::orderId)
                    .uint16("line_no", LineRow::lineNo)
                    .string("sku", LineRow::sku)
                    .build();
        }

        @Bean
        @Qualifier("refunds")
        RowBinaryEncoder<RefundRow> refundRows() {
            return RowBinaryEncoder.<RefundRow>builder()
                    .uint64("refund_id", RefundRow::refundId)
                    .uint64("order_id", RefundRow::orderId)
                    .build();
        }

        @Bean
        ChainFactory shop() {
            Deserializer<Event> parse = (key, value, meta, out) -> {
                String[] f = value.toUtf8String().split(",");
                boolean refund = f[0].equals("refund");
                long id = Long.parseLong(f[1]);
                out.collect(new Event(refund, id, refund ? Long.parseLong(f[2]) : id));
            };
            return (ctx) -> Chains.from(ctx, parse)
                    .fanOut(
                            "by-kind",
                            (orders) -> orders.filter("orders-only", (e) -> !e.refund())
                                    .fanOut(
                                            "order-rows",
                                            (header) -> header.map("to-order", (e) -> new OrderRow(e.id(), e.id() % 97))
                                                    .sink("orders", KeyHashRouter.byKey(OrderRow::orderId)),
                                            (lines) -> lines.flatMap("to-lines", LINES)
                                                    .sink("lines", KeyHashRouter.byKey(LineRow::orderId))),
                            (refunds) -> refunds.filter("refunds-only", Event::refund)
                                    .map("to-refund", (e) -> new RefundRow(e.id(), e.orderId()))
                                    .sink("refunds", KeyHashRouter.byKey(RefundRow::orderId)));
        }
    }
}
