package dev.etl.it.yaml;

import static dev.etl.it.support.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.avro.AvroWireFormat;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.it.support.OrderedProducer;
import dev.etl.test.infra.ClickHouseHttp;
import dev.etl.test.infra.ClickHouseTestDatabase;
import dev.etl.test.infra.InfraEndpoints;
import dev.etl.test.infra.KafkaTestTopics;
import dev.etl.test.infra.LocalInfra;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
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
 * Auto-evolve against the real registry, Kafka and 2 × 2 ClickHouse 18.16 cluster: a YAML-only pipeline
 * reads orders written with schema v1 into a ReplicatedReplacingMergeTree table on both shards; mid-run v2
 * (a new {@code channel} string with a default, a new {@code priority} int with a default) becomes the
 * subject's latest, and orders of both versions keep coming. The columns appear on all four replicas with
 * the mapped types, the rows written with v2 carry the values, the others the defaults, and after FINAL
 * every order is there once.
 */
// Not under dev.etl.it.spring: StarterApplication's component scan would pick up this class's nested
// @SpringBootConfiguration class.
@LocalInfra
class AutoEvolveIT {

    static final Schema V1 = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "namespace": "dev.etl.it.yaml.evolve", "fields": [
              {"name": "id", "type": "long"},
              {"name": "customer", "type": "string"},
              {"name": "amount", "type": "long"},
              {"name": "updated_ms", "type": "long"}]}""");

    static final Schema V2 = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "namespace": "dev.etl.it.yaml.evolve", "fields": [
              {"name": "id", "type": "long"},
              {"name": "customer", "type": "string"},
              {"name": "amount", "type": "long"},
              {"name": "updated_ms", "type": "long"},
              {"name": "channel", "type": "string", "default": "unknown"},
              {"name": "priority", "type": "int", "default": 3}]}""");

    private static final int PARTITIONS = 2;

    private static final int BEFORE = 600;

    private static final int AFTER = 600;

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aNewFieldMidRunBecomesAColumnOnEveryReplicaOnCluster(
            InfraEndpoints infra, ClickHouseTestDatabase db, KafkaTestTopics topics) throws Exception {
        evolve(infra, db, topics, "evolve-cluster", true);
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aNewFieldMidRunBecomesAColumnOnEveryReplicaShardByShard(
            InfraEndpoints infra, ClickHouseTestDatabase db, KafkaTestTopics topics) throws Exception {
        evolve(infra, db, topics, "evolve-shards", false);
    }

    private static void evolve(
            InfraEndpoints infra, ClickHouseTestDatabase db, KafkaTestTopics topics, String hint, boolean onCluster)
            throws Exception {
        String topic = topics.create(hint, PARTITIONS);
        String table = onCluster ? "orders_cluster" : "orders_shards";
        db.execute("CREATE TABLE " + db.table(table) + " ON CLUSTER " + db.cluster()
                + " (id UInt64, customer String, amount Int64, updated_ms Int64)"
                + " ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/" + db.name()
                + "/" + table + "', '{replica}', updated_ms) ORDER BY id");
        SchemaRegistryClient registry =
                SchemaRegistryClient.builder(infra.registryUrl()).build();
        int v1 = registry.register(topic + "-value", V1);

        List<String> properties = new ArrayList<>(YamlPipelineIT.common(infra, db, "group-" + topic));
        properties.addAll(List.of(
                "etl.sink.clickhouse.table=" + table,
                "etl.sink.clickhouse.from.topic=" + topic,
                "etl.sink.clickhouse.from.shard-key=id",
                "etl.sink.clickhouse.from.auto-evolve.enabled=true",
                "etl.sink.clickhouse.from.auto-evolve.interval=300ms",
                "etl.sink.clickhouse.from.auto-evolve.timeout=30s"));
        if (onCluster) {
            properties.add("etl.sink.clickhouse.from.auto-evolve.cluster=" + db.cluster());
        }
        try (OrderedProducer producer = new OrderedProducer(infra.kafkaBootstrap(), topic, PARTITIONS);
                ConfigurableApplicationContext context = new SpringApplicationBuilder(YamlOnlyApplication.class)
                        .properties(properties.toArray(String[]::new))
                        .run()) {
            // v1 orders 0..BEFORE-1, before the new schema exists
            for (long id = 0; id < BEFORE; id++) {
                producer.send((int) (id % PARTITIONS), null, AvroWireFormat.confluent(v1, V1, order(V1, id)));
            }
            producer.flush();
            await(Duration.ofSeconds(60), BEFORE + " rows", () -> count(infra, db, table) >= BEFORE);

            int v2 = registry.register(topic + "-value", V2);
            for (InfraEndpoints.ClickHouseShard shard : infra.clickhouseShards()) {
                for (String replica : shard.replicaUrls()) {
                    await(
                            Duration.ofSeconds(60),
                            "channel and priority on " + replica,
                            () -> columns(replica, db, table)
                                    .containsAll(List.of("channel\tString", "priority\tInt32")));
                }
            }
            // The mapping is published after every replica shows the columns; records of v2 read before the
            // lanes switch are stored with the column's default (the documented window), so produce after it.
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            await(
                    Duration.ofSeconds(60),
                    "the evolution published",
                    () -> meters.get("etl.sink.evolutions").counter().count() == 1.0);
            Thread.sleep(1_000); // the lanes switch between source batches (poll-timeout 50ms)
            // mid-run, both versions: ids BEFORE.. odd with v2, even with v1 (an old producer: the default)
            for (long id = BEFORE; id < BEFORE + AFTER; id++) {
                boolean newer = id % 2 == 1;
                Schema writer = newer ? V2 : V1;
                producer.send(
                        (int) (id % PARTITIONS),
                        null,
                        AvroWireFormat.confluent(newer ? v2 : v1, writer, order(writer, id)));
            }
            producer.flush();
            await(Duration.ofSeconds(60), (BEFORE + AFTER) + " rows", () -> count(infra, db, table) >= BEFORE + AFTER);

            assertThat(meters.get("etl.sink.evolutions").counter().count()).isEqualTo(1.0);
            await(
                    Duration.ofSeconds(30),
                    "no unstored field",
                    () -> meters.get("etl.sink.unstored.fields").gauge().value() == 0.0);
        }

        List<String> rows = rows(infra, db, table);
        assertThat(rows).hasSize(BEFORE + AFTER);
        for (int id = 0; id < BEFORE + AFTER; id++) {
            String row = rows.get(id);
            String[] f = row.split("\t");
            assertThat(Long.parseLong(f[0])).isEqualTo(id);
            assertThat(f[1]).isEqualTo("customer-" + (id % 13));
            boolean newer = id >= BEFORE && id % 2 == 1;
            assertThat(f[4]).as("channel of %s", row).isEqualTo(newer ? "ch-" + (id % 5) : "unknown");
            assertThat(f[5]).as("priority of %s", row).isEqualTo(newer ? Integer.toString(id % 7) : "3");
        }
        for (InfraEndpoints.ClickHouseShard shard : infra.clickhouseShards()) {
            String url = shard.replicaUrl(1);
            String counts = ClickHouseHttp.query(
                            url, "SELECT count(), uniqExact(id) FROM " + db.table(table) + " FINAL FORMAT TabSeparated")
                    .strip();
            String[] c = counts.split("\t");
            assertThat(c[0]).as("no duplicate on %s", url).isEqualTo(c[1]);
        }
    }

    private static GenericData.Record order(Schema writer, long id) {
        GenericData.Record order = new GenericData.Record(writer);
        order.put("id", id);
        order.put("customer", "customer-" + (id % 13));
        order.put("amount", 100 * id);
        order.put("updated_ms", 1_700_000_000_000L + id);
        if (writer.getField("channel") != null) {
            order.put("channel", "ch-" + (id % 5));
            order.put("priority", (int) (id % 7));
        }
        return order;
    }

    private static List<String> columns(String replica, ClickHouseTestDatabase db, String table) {
        String answer = ClickHouseHttp.query(
                replica,
                "SELECT name, type FROM system.columns WHERE database = '" + db.name() + "' AND table = '" + table
                        + "' FORMAT TabSeparated");
        return List.of(answer.strip().split("\n"));
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

    /** Every row (FINAL) of both shards, by id: id, customer, amount, updated_ms, channel, priority. */
    private static List<String> rows(InfraEndpoints infra, ClickHouseTestDatabase db, String table) {
        List<String> rows = new ArrayList<>();
        for (InfraEndpoints.ClickHouseShard shard : infra.clickhouseShards()) {
            String url = shard.replicaUrl(1);
            ClickHouseHttp.query(url, "SYSTEM SYNC REPLICA " + db.table(table));
            String answer = ClickHouseHttp.query(
                    url,
                    "SELECT id, customer, amount, updated_ms, channel, priority FROM " + db.table(table)
                            + " FINAL ORDER BY id FORMAT TabSeparated");
            for (String line : answer.strip().split("\n")) {
                if (!line.isEmpty()) {
                    rows.add(line);
                }
            }
        }
        rows.sort((a, b) -> Long.compare(Long.parseLong(a.split("\t", 2)[0]), Long.parseLong(b.split("\t", 2)[0])));
        return rows;
    }

    /** The starter and a meter registry: the pipeline is {@code etl.sink.clickhouse.from.*}. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class YamlOnlyApplication {

        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }
}
