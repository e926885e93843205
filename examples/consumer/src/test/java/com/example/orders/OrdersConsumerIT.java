package com.example.orders;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.avro.AvroWireFormat;
import dev.etl.avro.SchemaRegistryClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.apache.avro.generic.GenericData;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.util.ClassUtils;

/**
 * The application, built from the released artifacts, against a real Kafka broker, schema registry and
 * ClickHouse server: Avro orders produced to a new topic are all in the table after {@code FINAL}, every
 * offset is committed, and the probes and the scrape endpoint answer. The servers' addresses are the
 * system properties {@code kafka.bootstrap}, {@code registry.url} and {@code clickhouse.url}.
 */
class OrdersConsumerIT {

    private static final String KAFKA = System.getProperty("kafka.bootstrap", "127.0.0.1:19092");

    private static final String REGISTRY =
            System.getProperty("registry.url", "http://127.0.0.1:18081/apis/ccompat/v7");

    private static final String CLICKHOUSE = System.getProperty("clickhouse.url", "http://127.0.0.1:18123");

    private static final int PARTITIONS = 2;

    private static final int ORDERS = 10_000;

    private static final HttpClient HTTP = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    @Test
    void theStarterBringsTheCoreAndNotTheOptInConnectors() {
        ClassLoader loader = getClass().getClassLoader();
        assertThat(ClassUtils.isPresent("dev.etl.kafka.KafkaSource", loader)).isTrue();
        assertThat(ClassUtils.isPresent("dev.etl.clickhouse.ClickHouseSink", loader)).isTrue();
        assertThat(ClassUtils.isPresent("dev.etl.avro.clickhouse.AvroRowTranscoder", loader)).isTrue();
        assertThat(ClassUtils.isPresent("org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration", loader))
                .isTrue();
        assertThat(ClassUtils.isPresent("dev.etl.datagen.DatagenSource", loader)).isFalse();
        assertThat(ClassUtils.isPresent("dev.etl.s3.S3BackfillSource", loader)).isFalse();
        assertThat(ClassUtils.isPresent("software.amazon.awssdk.services.s3.S3Client", loader)).isFalse();
        assertThat(ClassUtils.isPresent("dev.etl.json.JsonDeserializer", loader)).isFalse();
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void ordersFlowFromKafkaIntoClickHouseWithProbesAndMetrics() throws Exception {
        String run = "consumer_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        String topic = "orders-" + run;
        clickhouse("CREATE DATABASE " + run);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA))) {
            clickhouse("CREATE TABLE " + run + ".orders (id UInt64, customer String, amount_cents Int64) "
                    + "ENGINE = ReplacingMergeTree() ORDER BY id");
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            int schemaId = SchemaRegistryClient.builder(REGISTRY)
                    .build()
                    .register(topic + "-value", OrdersConsumerApplication.ORDER);
            produce(topic, schemaId);
            Map<TopicPartition, Long> end = endOffsets(admin, topic);
            assertThat(end.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(ORDERS);

            try (ConfigurableApplicationContext app = new SpringApplicationBuilder(OrdersConsumerApplication.class)
                    .run(
                            "--server.port=0",
                            "--spring.kafka.bootstrap-servers=" + KAFKA,
                            "--spring.kafka.consumer.group-id=" + run,
                            "--etl.source.kafka.topics=" + topic,
                            "--etl.avro.registry.url=" + REGISTRY,
                            "--etl.sink.clickhouse.database=" + run,
                            "--etl.sink.clickhouse.shards[0].replicas=" + CLICKHOUSE,
                            // this JVM is the test runner: keep its signals and never exit it
                            "--etl.pipeline.handle-signals=false",
                            "--etl.pipeline.exit-on-failure=false")) {
                int port = app.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
                await("every order in ClickHouse after FINAL", () -> finalCount(run) == ORDERS);
                await("every end offset committed " + end, () -> committed(admin, run).equals(end));
                await("/readyz 200", () -> get(port, "/readyz").statusCode() == 200);
                assertThat(get(port, "/healthz").statusCode()).as("/healthz").isEqualTo(200);
                HttpResponse<String> scrape = get(port, "/actuator/prometheus");
                assertThat(scrape.statusCode()).isEqualTo(200);
                assertThat(scrape.body()).contains("etl_sink_rows_total{", "pipeline=\"orders-consumer\"");
            }
            assertThat(finalCount(run)).as("orders after FINAL, the application stopped").isEqualTo(ORDERS);
        } finally {
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA))) {
                admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
            } catch (Exception ex) {
                System.err.println("could not delete topic " + topic + ": " + ex);
            }
            clickhouse("DROP DATABASE IF EXISTS " + run);
        }
    }

    /** Orders 0..ORDERS-1, order {@code i} to partition {@code i % PARTITIONS}, in Confluent wire format. */
    private static void produce(String topic, int schemaId) throws Exception {
        Map<String, Object> config = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
            GenericData.Record order = new GenericData.Record(OrdersConsumerApplication.ORDER);
            for (long i = 0; i < ORDERS; i++) {
                order.put("id", i);
                order.put("customer", "customer-" + (i % 100));
                order.put("amount_cents", i * 7 % 100_000);
                byte[] value = AvroWireFormat.confluent(schemaId, OrdersConsumerApplication.ORDER, order);
                producer.send(new ProducerRecord<>(topic, (int) (i % PARTITIONS), null, value));
            }
            producer.flush();
        }
    }

    private static Map<TopicPartition, Long> endOffsets(Admin admin, String topic) throws Exception {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            request.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> offsets =
                admin.listOffsets(request).all().get(30, TimeUnit.SECONDS);
        return offsets.entrySet().stream()
                .collect(Collectors.toMap(Map.Entry::getKey, (e) -> e.getValue().offset()));
    }

    private static Map<TopicPartition, Long> committed(Admin admin, String group) {
        try {
            Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS);
            return offsets.entrySet().stream()
                    .filter((e) -> e.getValue() != null)
                    .collect(Collectors.toMap(Map.Entry::getKey, (e) -> e.getValue().offset()));
        } catch (Exception ex) {
            throw new IllegalStateException("committed offsets of group " + group, ex);
        }
    }

    private static long finalCount(String database) {
        return Long.parseLong(clickhouse("SELECT count() FROM " + database + ".orders FINAL FORMAT TabSeparated")
                .strip());
    }

    /** Runs one statement over ClickHouse's HTTP interface; answers the body. */
    private static String clickhouse(String sql) {
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create(CLICKHOUSE + "/"))
                    .timeout(Duration.ofSeconds(30))
                    .POST(HttpRequest.BodyPublishers.ofString(sql))
                    .build();
            HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException(
                        "ClickHouse answered " + response.statusCode() + " to " + sql + ": " + response.body());
            }
            return response.body();
        } catch (Exception ex) {
            throw new IllegalStateException("ClickHouse at " + CLICKHOUSE + ": " + sql, ex);
        }
    }

    private static HttpResponse<String> get(int port, String path) {
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .timeout(Duration.ofSeconds(10))
                    .build();
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (Exception ex) {
            throw new IllegalStateException("GET " + path, ex);
        }
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 60 s: " + what);
            }
            Thread.sleep(200);
        }
    }
}
