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
import java.util.List;
import org.apache.avro.Schema;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.testcontainers.clickhouse.ClickHouseContainer;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.kafka.KafkaContainer;

/**
 * The factories against real containers: ClickHouse, an Apicurio registry and Kafka, each with
 * {@code @ServiceConnection} and nothing else. Runs only where Docker answers; elsewhere (this
 * repository's CI has no Docker) JUnit skips it.
 */
// tag::service-connection[]
@SpringBootTest(
        classes = EtlConnectors.class,
        properties = {
            "etl.sink.clickhouse.table=orders_local",
            "etl.sink.clickhouse.validation=off",
            "etl.source.kafka.topics=orders"
        })
@Testcontainers(disabledWithoutDocker = true)
class ServiceConnectionIT {

    @Container
    @ServiceConnection
    static final ClickHouseContainer clickHouse = new ClickHouseContainer("clickhouse/clickhouse-server:24.8");

    @Container
    @ServiceConnection
    static final GenericContainer<?> registry = new GenericContainer<>("apicurio/apicurio-registry-mem:2.6.13.Final")
            .withExposedPorts(8080)
            .waitingFor(Wait.forHttp("/apis/ccompat/v7/subjects"));

    @Container
    @ServiceConnection
    static final KafkaContainer kafka = new KafkaContainer("apache/kafka:4.1.0");
    // end::service-connection[]

    private static final Schema ORDER = new Schema.Parser()
            .parse("{\"type\":\"record\",\"name\":\"Order\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"}]}");

    @Autowired
    ClickHouseConnectionDetails clickHouseDetails;

    @Autowired
    ClickHouseSinkConfig sinkConfig;

    @Autowired
    SchemaRegistryConnectionDetails registryDetails;

    @Autowired
    SchemaRegistryClient registryClient;

    @Autowired
    KafkaSourceConfig sourceConfig;

    @Test
    void theSinksOnlyShardIsTheContainerAndItAnswersWithTheContainersCredentials() throws Exception {
        URI replica = URI.create(clickHouse.getHttpUrl());
        assertThat(this.clickHouseDetails.getShards()).isEqualTo(List.of(List.of(replica)));
        assertThat(this.sinkConfig.shards()).isEqualTo(List.of(List.of(replica)));

        assertThat(selectOne(replica, this.sinkConfig.user(), this.sinkConfig.password()))
                .isEqualTo("1\n");
    }

    @Test
    void theRegistryClientTalksToTheContainersConfluentApi() {
        assertThat(this.registryDetails.getUrl())
                .isEqualTo("http://" + registry.getHost() + ":" + registry.getMappedPort(8080) + "/apis/ccompat/v7");

        // The client's startup check (etl.avro.registry.check-on-startup) passed; now a round trip.
        int id = this.registryClient.register("orders-value", ORDER);
        assertThat(this.registryClient.schemaById(id)).isEqualTo(ORDER);
    }

    @Test
    void theKafkaSourceUsesTheContainerThroughBootsOwnFactory() {
        assertThat(this.sourceConfig.consumerProperties())
                .containsEntry(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.getBootstrapServers());
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
