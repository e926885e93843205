package dev.etl.it.yaml;

import static dev.etl.it.support.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.avro.AvroWireFormat;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.avro.clickhouse.AvroRowMapping;
import dev.etl.avro.clickhouse.AvroRowTranscoder;
import dev.etl.deser.Deserializer;
import dev.etl.it.support.OrderedProducer;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.record.Payload;
import dev.etl.test.infra.ClickHouseHttp;
import dev.etl.test.infra.ClickHouseTestDatabase;
import dev.etl.test.infra.InfraEndpoints;
import dev.etl.test.infra.KafkaTestTopics;
import dev.etl.test.infra.LocalInfra;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * The sample's orders pipeline from YAML alone, against the real Kafka, registry and 2 × 2 cluster: Avro
 * orders written with the v1 schema (no coupon) and the v2 schema (the subject's latest, so the reader)
 * go through {@code etl.sink.clickhouse.from.*} only (no bean of the application) into the orders table,
 * and the rows equal those the code path (the sample's {@code OrdersTranscodingConfiguration}: a hand-written
 * mapping and chain factory) writes into a second table of the same shape from the same topic.
 */
// Not under dev.etl.it.spring: StarterApplication's component scan would pick up this class's nested
// @SpringBootConfiguration classes (a second 'orders' ChainFactory) and break every starter IT.
@LocalInfra
class YamlPipelineIT {

    static final Schema V2 = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "namespace": "dev.etl.sample.avro", "fields": [
              {"name": "id", "type": "long"},
              {"name": "customer", "type": "string"},
              {"name": "status", "type": {"type": "enum", "name": "OrderStatus",
                "symbols": ["NEW", "PAID", "SHIPPED", "CANCELLED"]}},
              {"name": "updated_ms", "type": "long"},
              {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "OrderLine",
                "fields": [{"name": "sku", "type": "string"}, {"name": "quantity", "type": "int"},
                           {"name": "price_cents", "type": "long"}]}}},
              {"name": "coupon", "type": ["null", "string"], "default": null}]}""");

    static final Schema V1 = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "namespace": "dev.etl.sample.avro", "fields": [
              {"name": "id", "type": "long"},
              {"name": "customer", "type": "string"},
              {"name": "status", "type": {"type": "enum", "name": "OrderStatus",
                "symbols": ["NEW", "PAID", "SHIPPED", "CANCELLED"]}},
              {"name": "updated_ms", "type": "long"},
              {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "OrderLine",
                "fields": [{"name": "sku", "type": "string"}, {"name": "quantity", "type": "int"},
                           {"name": "price_cents", "type": "long"}]}}}]}""");

    /** The sample's orders table (sample-service/src/main/resources/sql/orders.sql). */
    static final String COLUMNS = "order_id UInt64, line_no UInt16, customer String,"
            + " status Enum8('NEW' = 0, 'PAID' = 1, 'SHIPPED' = 2, 'CANCELLED' = 3), sku String, quantity UInt32,"
            + " price Decimal64(2), coupon Nullable(String), updated_ms Int64";

    private static final int PARTITIONS = 2;

    private static final int ORDERS = 2_000;

    private static final String[] STATUS = {"NEW", "PAID", "SHIPPED", "CANCELLED"};

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void theOrdersPipelineFromYamlAloneWritesTheRowsTheCodePathWrites(
            InfraEndpoints infra, ClickHouseTestDatabase db, KafkaTestTopics topics) throws Exception {
        String topic = topics.create("yaml-orders", PARTITIONS);
        for (String table : List.of("orders_yaml", "orders_code")) {
            db.execute("CREATE TABLE " + db.table(table) + " ON CLUSTER " + db.cluster() + " (" + COLUMNS
                    + ") ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/" + db.name() + "/"
                    + table + "', '{replica}', updated_ms) ORDER BY (order_id, line_no)");
        }
        SchemaRegistryClient registry =
                SchemaRegistryClient.builder(infra.registryUrl()).build();
        int v1 = registry.register(topic + "-value", V1);
        int v2 = registry.register(topic + "-value", V2); // the latest: the YAML pipeline's reader schema

        long expectedRows = produce(infra, topic, v1, v2);

        List<String> yaml = new ArrayList<>(common(infra, db, "yaml-" + topic));
        yaml.addAll(List.of(
                "etl.sink.clickhouse.table=orders_yaml",
                "etl.sink.clickhouse.from.topic=" + topic,
                "etl.sink.clickhouse.from.explode=lines",
                "etl.sink.clickhouse.from.index=line_no",
                "etl.sink.clickhouse.from.shard-key=id",
                "etl.sink.clickhouse.from.drop-when.status=CANCELLED",
                "etl.sink.clickhouse.from.columns.order_id=id",
                "etl.sink.clickhouse.from.columns.price=lines.price_cents"));
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(YamlOnlyApplication.class)
                .properties(yaml.toArray(String[]::new))
                .run()) {
            assertThat(context.getBeanNamesForType(AvroRowMapping.class)).isEmpty();
            assertThat(context.getEnvironment().getProperty("etl.source.kafka.topics"))
                    .as("the table's topic is the source's")
                    .isEqualTo(topic);
            awaitRows(infra, db, "orders_yaml", expectedRows);
        }

        List<String> code = new ArrayList<>(common(infra, db, "code-" + topic));
        code.addAll(List.of("etl.source.kafka.topics=" + topic, "etl.sink.clickhouse.table=orders_code"));
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(CodePathApplication.class)
                .properties(code.toArray(String[]::new))
                .run()) {
            awaitRows(infra, db, "orders_code", expectedRows);
        }

        List<String> fromYaml = rows(infra, db, "orders_yaml");
        assertThat(fromYaml).hasSize((int) expectedRows);
        assertThat(fromYaml).containsExactlyElementsOf(rows(infra, db, "orders_code"));
        assertThat(fromYaml).anyMatch((row) -> row.contains("\t\\N\t")); // v1 orders: no coupon
        assertThat(fromYaml).anyMatch((row) -> row.contains("\tcoupon-"));
        assertThat(fromYaml).noneMatch((row) -> row.contains("CANCELLED"));
        // each order's lines on the shard the code path puts them on (both route by the shard key id)
        for (InfraEndpoints.ClickHouseShard shard : infra.clickhouseShards()) {
            assertThat(shardRows(shard, db, "orders_yaml"))
                    .as("rows on %s", shard)
                    .isNotEmpty()
                    .isEqualTo(shardRows(shard, db, "orders_code"));
        }
    }

    private static String shardRows(InfraEndpoints.ClickHouseShard shard, ClickHouseTestDatabase db, String table) {
        return ClickHouseHttp.query(
                shard.replicaUrl(1),
                "SELECT order_id, line_no FROM " + db.table(table) + " FINAL ORDER BY order_id, line_no"
                        + " FORMAT TabSeparated");
    }

    /** Orders 0..ORDERS-1: even ids with v1 (no coupon), odd ids with v2; every fourth cancelled. */
    private static long produce(InfraEndpoints infra, String topic, int v1, int v2) {
        long rows = 0;
        try (OrderedProducer producer = new OrderedProducer(infra.kafkaBootstrap(), topic, PARTITIONS)) {
            for (long id = 0; id < ORDERS; id++) {
                boolean old = id % 2 == 0;
                Schema writer = old ? V1 : V2;
                GenericData.Record order = new GenericData.Record(writer);
                order.put("id", id);
                order.put("customer", "customer-" + (id % 97));
                String status = STATUS[(int) (id % 4)];
                order.put(
                        "status",
                        new GenericData.EnumSymbol(writer.getField("status").schema(), status));
                order.put("updated_ms", 1_700_000_000_000L + id);
                Schema lineSchema = writer.getField("lines").schema().getElementType();
                List<GenericData.Record> lines = new ArrayList<>();
                int count = 1 + (int) (id % 3);
                for (int l = 0; l < count; l++) {
                    GenericData.Record line = new GenericData.Record(lineSchema);
                    line.put("sku", "sku-" + (id * 7 + l) % 50);
                    line.put("quantity", l + 1);
                    line.put("price_cents", 100 * id + l);
                    lines.add(line);
                }
                order.put("lines", lines);
                if (!old) {
                    order.put("coupon", id % 3 == 0 ? "coupon-" + id : null);
                }
                if (!"CANCELLED".equals(status)) {
                    rows += count;
                }
                producer.send((int) (id % PARTITIONS), null, AvroWireFormat.confluent(old ? v1 : v2, writer, order));
            }
            producer.flush();
        }
        return rows;
    }

    /** The connection and pipeline properties the YAML-only ITs share (AutoEvolveIT too). */
    static List<String> common(InfraEndpoints infra, ClickHouseTestDatabase db, String group) {
        List<String> properties = new ArrayList<>(List.of(
                "spring.main.web-application-type=none",
                "spring.kafka.bootstrap-servers=" + infra.kafkaBootstrap(),
                "spring.kafka.consumer.group-id=" + group,
                "spring.kafka.consumer.auto-offset-reset=earliest",
                "etl.pipeline.threads=2",
                "etl.pipeline.handle-signals=false",
                "etl.pipeline.exit-on-failure=false",
                "etl.pipeline.poll-timeout=50ms",
                "etl.checkpoint.interval=200ms",
                "etl.checkpoint.drain-timeout=10s",
                "etl.avro.registry.url=" + infra.registryUrl(),
                "etl.sink.clickhouse.database=" + db.name(),
                "etl.sink.clickhouse.batch.linger=200ms"));
        for (int s = 0; s < infra.clickhouseShards().size(); s++) {
            properties.add("etl.sink.clickhouse.shards[" + s + "].replicas="
                    + String.join(",", infra.clickhouseShards().get(s).replicaUrls()));
        }
        return properties;
    }

    private static void awaitRows(InfraEndpoints infra, ClickHouseTestDatabase db, String table, long expected)
            throws Exception {
        await(Duration.ofSeconds(60), expected + " rows in " + table, () -> count(infra, db, table) >= expected);
    }

    private static long count(InfraEndpoints infra, ClickHouseTestDatabase db, String table) {
        long rows = 0;
        for (InfraEndpoints.ClickHouseShard shard : infra.clickhouseShards()) {
            rows += Long.parseLong(ClickHouseHttp.query(
                            shard.replicaUrl(1), "SELECT count() FROM " + db.table(table) + " FORMAT TabSeparated")
                    .strip());
        }
        return rows;
    }

    /** Every row of {@code table} (FINAL), over both shards, in key order. */
    private static List<String> rows(InfraEndpoints infra, ClickHouseTestDatabase db, String table) {
        List<String> rows = new ArrayList<>();
        for (InfraEndpoints.ClickHouseShard shard : infra.clickhouseShards()) {
            String url = shard.replicaUrl(1);
            ClickHouseHttp.query(url, "SYSTEM SYNC REPLICA " + db.table(table));
            String answer = ClickHouseHttp.query(
                    url, "SELECT * FROM " + db.table(table) + " FINAL ORDER BY order_id, line_no FORMAT TabSeparated");
            for (String line : answer.strip().split("\n")) {
                if (!line.isEmpty()) {
                    rows.add(line);
                }
            }
        }
        rows.sort((a, b) -> {
            String[] x = a.split("\t", 3);
            String[] y = b.split("\t", 3);
            int byOrder = Long.compare(Long.parseLong(x[0]), Long.parseLong(y[0]));
            return byOrder != 0 ? byOrder : Integer.compare(Integer.parseInt(x[1]), Integer.parseInt(y[1]));
        });
        return rows;
    }

    /** The starter and nothing else: the pipeline is {@code etl.sink.clickhouse.from.*}. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class YamlOnlyApplication {}

    /** The sample's code path ({@code OrdersTranscodingConfiguration}): a mapping bean and a chain factory. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class CodePathApplication {

        @Bean
        AvroRowMapping orderLines() {
            return AvroRowMapping.builder(V2)
                    .explode("lines")
                    .column("order_id", "UInt64", "id")
                    .index("line_no", "UInt16")
                    .column("customer", "String")
                    .column("status", "Enum8('NEW' = 0, 'PAID' = 1, 'SHIPPED' = 2, 'CANCELLED' = 3)")
                    .column("sku", "String", "lines.sku")
                    .column("quantity", "UInt32", "lines.quantity")
                    .column("price", "Decimal(18, 2)", "lines.price_cents")
                    .column("coupon", "Nullable(String)")
                    .column("updated_ms", "Int64")
                    .dropWhen("status", "CANCELLED")
                    .shardKey("id")
                    .build();
        }

        @Bean
        ChainFactory orders(AvroRowTranscoder.Builder lines) {
            return (ctx) -> {
                AvroRowTranscoder transcoder = lines.build();
                return Chains.from(ctx, Deserializer.payload())
                        .filter("not-tombstone", Payload::isPresent)
                        .sink(transcoder, transcoder.shardKeyRouter());
            };
        }
    }
}
