package dev.etl.it.spring;

import static dev.etl.it.spring.StarterItSupport.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.clickhouse.sharding.DistributedPlacement;
import dev.etl.clickhouse.sharding.DistributedRouter;
import dev.etl.clickhouse.sharding.ShardPlacementException;
import dev.etl.deser.Deserializer;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.test.infra.ClickHouseHttp;
import dev.etl.test.infra.ClickHouseTestDatabase;
import dev.etl.test.infra.InfraEndpoints;
import dev.etl.test.infra.InfraServer;
import dev.etl.test.infra.LocalInfra;
import dev.etl.test.memory.MemorySource;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Spring half of shard placement against the local 2-shard cluster: {@code etl.sink.clickhouse.placement.*}
 * gives the application a {@code DistributedPlacement} bean; a chain routing with
 * {@code DistributedRouter.byLong(placement, ...)} writes every row to the shard the Distributed table
 * {@code orders} ({@code cityHash64(id)}) puts it on; the startup check passes under FAIL, refuses a
 * declared key the table does not have, and under WARN starts anyway; and {@code /actuator/etlplacement}
 * answers the check over HTTP (MATCH with per-shard counts, or MISMATCH with the disagreeing keys).
 */
@LocalInfra(InfraServer.CLICKHOUSE)
class PlacementEndpointIT {

    private static final int ROWS = 2_000;

    private static ClickHouseTestDatabase db;

    private static InfraEndpoints infra;

    @BeforeAll
    static void createTables(ClickHouseTestDatabase database) {
        db = database;
        infra = database.endpoints();
        db.execute("CREATE TABLE " + db.table("orders_local") + " ON CLUSTER " + db.cluster()
                + " (id UInt64, customer String) ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/" + db.name()
                + "/orders_local', '{replica}') ORDER BY id");
        db.execute("CREATE TABLE " + db.table("orders") + " ON CLUSTER " + db.cluster() + " AS "
                + db.table("orders_local") + " ENGINE = Distributed(" + db.cluster() + ", " + db.name()
                + ", orders_local, cityHash64(id))");
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void rowsLandWhereTheDistributedTablePutsThemAndTheEndpointSaysMatch() throws Exception {
        try (ConfigurableApplicationContext context = start("cityHash64(id)", "fail")) {
            DistributedPlacement placement = context.getBean(DistributedPlacement.class);
            MemorySource source = context.getBean(MemorySource.class);
            source.handle().assign(0, 0);
            long last = -1;
            for (long id = 1; id <= ROWS; id++) {
                last = source.handle().push(0, null, Long.toString(id * 7919).getBytes(StandardCharsets.UTF_8));
            }
            assertThat(source.handle().awaitCommitted(0, last + 1, Duration.ofSeconds(60)))
                    .isTrue();
            long total = 0;
            for (int shard = 0; shard < 2; shard++) {
                String replica = infra.clickhouseShard(shard + 1).replicaUrl(1);
                ClickHouseHttp.query(replica, "SYSTEM SYNC REPLICA " + db.table("orders_local"));
                long rows =
                        Long.parseLong(ClickHouseHttp.query(replica, "SELECT count() FROM " + db.table("orders_local"))
                                .strip());
                // the server's own placement of each row it holds: cityHash64(id) % 2 names this shard
                long elsewhere = Long.parseLong(ClickHouseHttp.query(
                                replica,
                                "SELECT countIf(cityHash64(id) % 2 != " + shard + ") FROM " + db.table("orders_local"))
                        .strip());
                assertThat(rows).as("rows on shard %d", shard).isPositive();
                assertThat(elsewhere)
                        .as("rows on shard %d that Distributed puts elsewhere", shard)
                        .isZero();
                total += rows;
            }
            assertThat(total).isEqualTo(ROWS);
            assertThat(placement.toString()).isEqualTo("cityHash64(id) [id UInt64] % 2 over weights [1, 1]");

            int port = port(context);
            HttpResponse<String> response = get(port, "/actuator/etlplacement");
            assertThat(response.statusCode()).isEqualTo(200);
            JsonNode sink = json(response).path("sinks").path("clickhouse");
            assertThat(sink.path("verdict").asString()).as(response.body()).isEqualTo("MATCH");
            assertThat(sink.path("distributedTable").asString()).isEqualTo(db.name() + ".orders");
            assertThat(sink.path("expression").asString()).isEqualTo("cityHash64(id)");
            assertThat(sink.path("checked").asInt()).isEqualTo(500);
            assertThat(sink.path("shards")).hasSize(2);
            int sampled = 0;
            for (JsonNode shard : sink.path("shards")) {
                assertThat(shard.path("disagreeing").asInt()).isZero();
                assertThat(shard.path("agreeing").asInt())
                        .isEqualTo(shard.path("serverKeys").asInt())
                        .isPositive();
                sampled += shard.path("serverKeys").asInt();
            }
            assertThat(sampled).isEqualTo(500);
            assertThat(get(port, "/actuator/etlplacement/clickhouse").body()).contains("\"verdict\":\"MATCH\"");
            assertThat(get(port, "/actuator/etlplacement/nope").statusCode()).isEqualTo(404);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aDeclaredKeyTheTableDoesNotHaveFailsStartupUnderFailAndIsReportedUnderWarn() throws Exception {
        assertThatThrownBy(() -> start("murmurHash3_64(id)", "fail").close())
                .hasRootCauseInstanceOf(ShardPlacementException.class)
                .rootCause()
                .hasMessageContaining("does not match Distributed table " + db.name() + ".orders")
                .hasMessageContaining("the pipeline computes murmurHash3_64(id) [id UInt64] but the table's key is "
                        + "cityHash64(id) [id UInt64]");

        try (ConfigurableApplicationContext context = start("murmurHash3_64(id)", "warn")) {
            HttpResponse<String> response = get(port(context), "/actuator/etlplacement/clickhouse");
            assertThat(response.statusCode()).isEqualTo(200);
            JsonNode sink = json(response);
            assertThat(sink.path("verdict").asString()).as(response.body()).isEqualTo("MISMATCH");
            assertThat(sink.path("mode").asString()).isEqualTo("WARN");
            assertThat(sink.path("mismatched").asInt()).isBetween(150, 350);
            int disagreeing = 0;
            for (JsonNode shard : sink.path("shards")) {
                disagreeing += shard.path("disagreeing").asInt();
                assertThat(shard.path("agreeing").asInt()
                                + shard.path("disagreeing").asInt())
                        .isEqualTo(shard.path("serverKeys").asInt());
            }
            assertThat(disagreeing).isEqualTo(sink.path("mismatched").asInt());
            JsonNode first = sink.path("mismatches").get(0);
            assertThat(first.path("pipelineShard").asInt())
                    .isNotEqualTo(first.path("serverShard").asInt());
            assertThat(sink.path("message").asString()).contains("route with a DistributedRouter for cityHash64(id)");
        }
    }

    private static ConfigurableApplicationContext start(String shardingKey, String mode) {
        List<String> properties = new ArrayList<>(List.of(
                "spring.application.name=placement-it",
                "server.port=0",
                "management.endpoints.web.exposure.include=health,etlplacement",
                "etl.pipeline.handle-signals=false",
                "etl.pipeline.exit-on-failure=false",
                "etl.pipeline.close-on-failure=false",
                "etl.checkpoint.interval=100ms",
                "etl.pipeline.poll-timeout=20ms",
                "etl.checkpoint.drain-timeout=10s",
                "etl.sink.clickhouse.database=" + db.name(),
                "etl.sink.clickhouse.table=orders_local",
                "etl.sink.clickhouse.batch.linger=100ms",
                "etl.sink.clickhouse.placement.distributed-table=orders",
                "etl.sink.clickhouse.placement.sharding-key=" + shardingKey,
                "etl.sink.clickhouse.placement.mode=" + mode,
                "etl.sink.clickhouse.placement.sample-size=500"));
        for (int s = 0; s < infra.clickhouseShards().size(); s++) {
            properties.add("etl.sink.clickhouse.shards[" + s + "].replicas="
                    + String.join(",", infra.clickhouseShards().get(s).replicaUrls()));
        }
        return new SpringApplicationBuilder(PlacementApplication.class)
                .properties(properties.toArray(String[]::new))
                .run();
    }

    private static int port(ConfigurableApplicationContext context) {
        return context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
    }

    private static JsonNode json(HttpResponse<String> response) {
        return JsonMapper.builder().build().readTree(response.body());
    }

    /** A user's application: the encoder, and a chain routing with the placement bean. */
    // not a @Configuration: StarterApplication's component scan of this package must not pick it up
    @EnableAutoConfiguration
    static class PlacementApplication {

        record Order(long id, String customer) {}

        @Bean
        MemorySource memorySource() {
            return MemorySource.create();
        }

        @Bean
        RowBinaryEncoder<Order> orderRows() {
            return RowBinaryEncoder.<Order>builder()
                    .uint64("id", Order::id)
                    .string("customer", Order::customer)
                    .build();
        }

        // tag::placement[]
        @Bean
        ChainFactory orders(DistributedPlacement placement) { // etl.sink.clickhouse.placement.* as a bean
            Deserializer<Order> parse = (key, value, meta, out) -> {
                long id = Long.parseLong(value.toUtf8String());
                out.collect(new Order(id, "customer-" + id));
            };
            return (ctx) -> Chains.from(ctx, parse)
                    .sink(DistributedRouter.byLong(placement, Order::id)); // id: the sharding key's column
        }
        // end::placement[]

    }
}
