package dev.etl.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.autoconfigure.avro.SchemaRegistryConnectionDetails;
import dev.etl.autoconfigure.clickhouse.ClickHouseConnectionDetails;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.kafka.KafkaSourceConfig;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.avro.Schema;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.testcontainers.clickhouse.ClickHouseContainer;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.kafka.KafkaContainer;

/**
 * What a {@code @ServiceConnection} test checks against real containers, whatever their images
 * ({@link ServiceConnectionIT} on the official images, {@link LocalImagesServiceConnectionIT} on this
 * repository's local ones): the connectors' configurations point at the containers, and each answers.
 */
final class ServiceConnectionChecks {

    private static final Schema ORDER = new Schema.Parser()
            .parse("{\"type\":\"record\",\"name\":\"Order\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"}]}");

    private ServiceConnectionChecks() {}

    /** The sink's only shard is the container, and it answers with the container's credentials. */
    static void clickHouse(
            ClickHouseContainer clickHouse, ClickHouseConnectionDetails details, ClickHouseSinkConfig sinkConfig)
            throws IOException, InterruptedException {
        URI replica = URI.create(clickHouse.getHttpUrl());
        assertThat(details.getShards()).isEqualTo(List.of(List.of(replica)));
        assertThat(sinkConfig.shards()).isEqualTo(List.of(List.of(replica)));

        assertThat(selectOne(replica, sinkConfig.user(), sinkConfig.password())).isEqualTo("1\n");
    }

    /** The registry client talks to the container's Confluent-compatible API. */
    static void registry(
            GenericContainer<?> registry, SchemaRegistryConnectionDetails details, SchemaRegistryClient client) {
        assertThat(details.getUrl())
                .isEqualTo("http://" + registry.getHost() + ":" + registry.getMappedPort(8080) + "/apis/ccompat/v7");

        // The client's startup check (etl.avro.registry.check-on-startup) passed; now a round trip.
        int id = client.register("orders-value", ORDER);
        assertThat(client.schemaById(id)).isEqualTo(ORDER);
    }

    /**
     * The Kafka source uses the container, through Boot's own Kafka factory, and the broker it is told of
     * answers there: a topic is created and a record written to it is read back with the source's own
     * consumer properties (the advertised listener is the one a client outside the container reaches).
     */
    static void kafka(KafkaContainer kafka, KafkaSourceConfig sourceConfig) throws Exception {
        assertThat(sourceConfig.consumerProperties())
                .containsEntry(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.getBootstrapServers());

        String topic = "service-connection-check";
        Map<String, Object> client = Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, kafka.getBootstrapServers());
        try (Admin admin = Admin.create(client)) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        Map<String, Object> producer = new HashMap<>(client);
        producer.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        producer.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        try (KafkaProducer<String, String> out = new KafkaProducer<>(producer)) {
            out.send(new ProducerRecord<>(topic, "order-1", "placed")).get(60, TimeUnit.SECONDS);
        }
        Map<String, Object> consumer = new HashMap<>(sourceConfig.consumerProperties());
        consumer.put(ConsumerConfig.GROUP_ID_CONFIG, "service-connection-check");
        consumer.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumer.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        consumer.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        try (KafkaConsumer<String, String> in = new KafkaConsumer<>(consumer)) {
            in.subscribe(List.of(topic));
            List<String> values = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (values.isEmpty() && System.nanoTime() < deadline) {
                in.poll(Duration.ofMillis(500)).forEach((record) -> values.add(record.key() + "=" + record.value()));
            }
            assertThat(values).containsExactly("order-1=placed");
        }
    }

    private static String selectOne(URI replica, String user, String password)
            throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(replica.resolve("/?query=SELECT%201"))
                .header("X-ClickHouse-User", user)
                .header("X-ClickHouse-Key", password)
                .timeout(Duration.ofSeconds(10))
                .build();
        return HttpClient.newHttpClient()
                .send(request, HttpResponse.BodyHandlers.ofString())
                .body();
    }
}
