package dev.etl.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.avro.AvroWireFormat;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.test.infra.ClickHouseHttp;
import dev.etl.test.infra.ClickHouseTestDatabase;
import dev.etl.test.infra.InfraEndpoints;
import dev.etl.test.infra.KafkaTestTopics;
import dev.etl.test.infra.LocalInfra;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The executable jar ({@code target/etl-app.jar}, as a container runs it) in a child JVM against the
 * local servers, configured by environment variables only, plus a YAML file named by
 * {@code SPRING_CONFIG_ADDITIONAL_LOCATION} for the column overrides (a name with an underscore, such as
 * {@code order_id}, cannot be a map key in an environment variable): the sample's orders, one row per
 * order line, cancelled orders dropped, reach the sample's {@code orders} table; SIGTERM drains and the
 * process exits 0. A mapping mistake ends the process non-zero with one message naming the {@code from}
 * group, the column and the missing field.
 */
@LocalInfra
class EtlApplicationIT {

    private static final Path JAR = Path.of("target", "etl-app.jar");

    private static final int PARTITIONS = 4;

    private static final int ORDERS = 2_000;

    /** The sample's orders table (sample-service/src/main/resources/sql/orders.sql), in a test database. */
    private static final String ORDERS_TABLE = """
            CREATE TABLE %1$s.%3$s ON CLUSTER %2$s (
                order_id    UInt64,
                line_no     UInt16,
                customer    String,
                status      Enum8('NEW' = 0, 'PAID' = 1, 'SHIPPED' = 2, 'CANCELLED' = 3),
                sku         String,
                quantity    UInt32,
                price       Decimal64(2),
                coupon      Nullable(String),
                updated_ms  Int64
            ) ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/%1$s/%3$s', '{replica}', updated_ms)
            ORDER BY (order_id, line_no)""";

    /** What the sample's OrdersTranscodingConfiguration says in code, as configuration. */
    private static final String MAPPING = """
            etl:
              sink:
                clickhouse:
                  table: orders
                  from:
                    explode: lines
                    index: line_no
                    shard-key: id
                    drop-when:
                      status: [CANCELLED]
                    columns:
                      order_id: id
                      price: lines.price_cents
            """;

    private Process child;

    @AfterEach
    void stopChild() {
        if (this.child != null && this.child.isAlive()) {
            this.child.destroyForcibly();
        }
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void runsTheOrdersPipelineFromEnvironmentVariablesAndAMountedYamlAlone(
            InfraEndpoints infra, ClickHouseTestDatabase db, KafkaTestTopics topics, @TempDir Path dir)
            throws Exception {
        db.execute(ORDERS_TABLE.formatted(db.name(), db.cluster(), "orders"));
        String topic = topics.create("etl-app", PARTITIONS);
        Expected expected = produceOrders(infra, topic);
        Path mapping = Files.writeString(dir.resolve("mapping.yaml"), MAPPING);
        Path log = dir.resolve("child.log");
        int port = freePort();

        this.child = start(environment(infra, db, topic, mapping, port), log);
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        Counts counts = new Counts(0, 0);
        while (System.nanoTime() < deadline) {
            assertThat(this.child.isAlive())
                    .as("the application is running:%n%s", Files.readString(log))
                    .isTrue();
            counts = counts(infra, db);
            if (counts.equals(expected.counts())) {
                break;
            }
            Thread.sleep(1_000);
        }
        assertThat(counts)
                .as("orders and lines after FINAL; the application's log:%n%s", Files.readString(log))
                .isEqualTo(expected.counts());

        this.child.destroy(); // SIGTERM: drain, final commit
        assertThat(this.child.waitFor(60, TimeUnit.SECONDS))
                .as("exited after SIGTERM")
                .isTrue();
        String output = Files.readString(log);
        assertThat(this.child.exitValue()).as(output).isIn(0, 143);
        assertThat(output).contains("Started EtlApplication");
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aMappingMistakeEndsTheProcessNonZeroWithOneMessageNamingTheProperty(
            InfraEndpoints infra, ClickHouseTestDatabase db, KafkaTestTopics topics, @TempDir Path dir)
            throws Exception {
        // The class shares one database: this test's own copy of the table
        db.execute(ORDERS_TABLE.formatted(db.name(), db.cluster(), "orders_mistake"));
        String topic = topics.create("etl-app-mistake", 1);
        register(infra, topic);
        // "lines.price_cent": no such field of the order lines
        Path mapping = Files.writeString(
                dir.resolve("mapping.yaml"), MAPPING.replace("lines.price_cents", "lines.price_cent"));
        Path log = dir.resolve("child.log");

        Map<String, String> env = environment(infra, db, topic, mapping, freePort());
        env.put("ETL_SINK_CLICKHOUSE_TABLE", "orders_mistake");
        this.child = start(env, log);
        assertThat(this.child.waitFor(150, TimeUnit.SECONDS))
                .as("the process ended by itself")
                .isTrue();
        String output = Files.readString(log);
        assertThat(this.child.exitValue()).as(output).isNotZero();
        assertThat(output)
                .contains("APPLICATION FAILED TO START")
                .contains("etl.sink.clickhouse.from:")
                .contains("column 'price'")
                .contains("no field 'price_cent'")
                .contains("etl.sink.clickhouse.from.columns.price=lines.price_cent: ")
                .contains("did you mean 'lines.price_cents'?");
        assertThat(output.split("APPLICATION FAILED TO START", -1))
                .as("one failure report")
                .hasSize(2);
    }

    /** The process environment: the servers, the topic and the table; the overrides' file. */
    private static Map<String, String> environment(
            InfraEndpoints infra, ClickHouseTestDatabase db, String topic, Path mapping, int port) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("SPRING_APPLICATION_NAME", "etl-app-it");
        env.put("SPRING_KAFKA_BOOTSTRAP_SERVERS", infra.kafkaBootstrap());
        env.put("SPRING_KAFKA_CONSUMER_GROUP_ID", "it-" + topic);
        env.put("ETL_AVRO_REGISTRY_URL", infra.registryUrl());
        env.put("ETL_SINK_CLICKHOUSE_DATABASE", db.name());
        List<InfraEndpoints.ClickHouseShard> shards = infra.clickhouseShards();
        for (int i = 0; i < shards.size(); i++) {
            env.put(
                    "ETL_SINK_CLICKHOUSE_SHARDS_" + i + "_REPLICAS",
                    String.join(",", shards.get(i).replicaUrls()));
        }
        env.put("ETL_SINK_CLICKHOUSE_FROM_TOPIC", topic);
        env.put("ETL_PIPELINE_THREADS", "2");
        env.put("ETL_CHECKPOINT_INTERVAL", "500ms");
        env.put("ETL_SINK_CLICKHOUSE_BATCH_LINGER", "200ms");
        env.put("SERVER_PORT", Integer.toString(port));
        env.put("SERVER_ADDRESS", "127.0.0.1");
        env.put("SPRING_CONFIG_ADDITIONAL_LOCATION", mapping.toAbsolutePath().toString());
        return env;
    }

    /** {@code java -jar target/etl-app.jar} with no argument: the environment above and nothing inherited of ours. */
    private static Process start(Map<String, String> env, Path log) throws IOException {
        assertThat(JAR).as("the executable jar (package the module first)").isRegularFile();
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m",
                "-jar",
                JAR.toString()));
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().keySet().removeIf((k) -> k.startsWith("ETL_") || k.startsWith("SPRING_"));
        builder.environment().putAll(env);
        return builder.start();
    }

    private static Schema orderSchema() throws IOException {
        try (InputStream in = EtlApplicationIT.class.getResourceAsStream("/order.avsc")) {
            return new Schema.Parser().parse(in);
        }
    }

    private static int register(InfraEndpoints infra, String topic) throws IOException {
        return SchemaRegistryClient.builder(infra.registryUrl()).build().register(topic + "-value", orderSchema());
    }

    record Counts(long orders, long lines) {}

    record Expected(Counts counts) {}

    /**
     * Orders {@code 0..ORDERS-1}: order {@code i} has {@code 1 + i % 3} lines and is cancelled when
     * {@code i % 10 == 7}; the expected rows are the lines of the orders not cancelled.
     */
    private static Expected produceOrders(InfraEndpoints infra, String topic) throws Exception {
        Schema schema = orderSchema();
        int schemaId = register(infra, topic);
        Schema lineSchema = schema.getField("lines").schema().getElementType();
        Schema statusSchema = schema.getField("status").schema();
        String[] statuses = {"NEW", "PAID", "SHIPPED"};
        long orders = 0;
        long lines = 0;
        Map<String, Object> props = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                infra.kafkaBootstrap(),
                ProducerConfig.ACKS_CONFIG,
                "all",
                ProducerConfig.LINGER_MS_CONFIG,
                10);
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < ORDERS; i++) {
                boolean cancelled = i % 10 == 7;
                int n = 1 + i % 3;
                List<GenericData.Record> items = new ArrayList<>();
                for (int j = 0; j < n; j++) {
                    GenericData.Record line = new GenericData.Record(lineSchema);
                    line.put("sku", "sku-" + (i + j) % 50);
                    line.put("quantity", 1 + j);
                    line.put("price_cents", 100L * (j + 1) + i % 100);
                    items.add(line);
                }
                GenericData.Record order = new GenericData.Record(schema);
                order.put("id", (long) i);
                order.put("customer", "customer-" + i % 100);
                order.put(
                        "status", new GenericData.EnumSymbol(statusSchema, cancelled ? "CANCELLED" : statuses[i % 3]));
                order.put("updated_ms", 1_700_000_000_000L + i);
                order.put("lines", items);
                order.put("coupon", i % 4 == 0 ? "SPRING" : null);
                byte[] value = AvroWireFormat.confluent(schemaId, schema, order);
                producer.send(new ProducerRecord<>(topic, i % PARTITIONS, null, value));
                if (!cancelled) {
                    orders++;
                    lines += n;
                }
            }
            producer.flush();
        }
        return new Expected(new Counts(orders, lines));
    }

    /** Orders and lines after FINAL, summed over the shards (each on its first replica). */
    private static Counts counts(InfraEndpoints infra, ClickHouseTestDatabase db) {
        long orders = 0;
        long lines = 0;
        for (InfraEndpoints.ClickHouseShard shard : infra.clickhouseShards()) {
            String answer = ClickHouseHttp.query(
                    shard.replicaUrl(1),
                    "SELECT uniqExact(order_id), count() FROM " + db.table("orders") + " FINAL FORMAT TabSeparated");
            String[] f = answer.strip().split("\t");
            orders += Long.parseLong(f[0]);
            lines += Long.parseLong(f[1]);
        }
        return new Counts(orders, lines);
    }

    private static int freePort() throws IOException {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
