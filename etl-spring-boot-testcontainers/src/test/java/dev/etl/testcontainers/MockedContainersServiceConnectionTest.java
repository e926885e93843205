package dev.etl.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

import dev.etl.autoconfigure.avro.SchemaRegistryConnectionDetails;
import dev.etl.autoconfigure.clickhouse.ClickHouseConnectionDetails;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.kafka.KafkaSourceConfig;
import java.net.URI;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.testcontainers.clickhouse.ClickHouseContainer;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.kafka.KafkaContainer;

/**
 * The whole {@code @ServiceConnection} path without Docker: Boot's test-context customizer reads the
 * annotated fields (mocked containers that answer host, port, image name and credentials), loads the
 * factories from {@code spring.factories}, matches them, registers the details beans, and the etl
 * connectors' auto-configurations build their configurations from those beans.
 */
@SpringBootTest(
        classes = EtlConnectors.class,
        properties = {
            "etl.sink.clickhouse.table=orders_local",
            "etl.sink.clickhouse.validation=off",
            "etl.avro.registry.check-on-startup=false",
            "etl.source.kafka.topics=orders"
        })
class MockedContainersServiceConnectionTest {

    @ServiceConnection
    static final ClickHouseContainer clickHouse = clickHouse("clickhouse/clickhouse-server:25.3", "localhost", 32768);

    @ServiceConnection
    static final GenericContainer<?> registry =
            registry("quay.io/apicurio/apicurio-registry-mem:2.6.13.Final", "localhost", 8080, 32769);

    @ServiceConnection
    static final KafkaContainer kafka = kafka("apache/kafka:4.1.0", "localhost:32770");

    @Autowired
    ClickHouseConnectionDetails clickHouseDetails;

    @Autowired
    SchemaRegistryConnectionDetails registryDetails;

    @Autowired
    ClickHouseSinkConfig sinkConfig;

    @Autowired
    SchemaRegistryClient registryClient;

    @Autowired
    KafkaSourceConfig sourceConfig;

    @Test
    void theClickHouseContainerIsTheSinksOnlyShardWithTheContainersCredentials() {
        assertThat(this.clickHouseDetails.getShards())
                .isEqualTo(List.of(List.of(URI.create("http://localhost:32768"))));
        assertThat(this.sinkConfig.shards()).isEqualTo(List.of(List.of(URI.create("http://localhost:32768"))));
        assertThat(this.sinkConfig.user()).isEqualTo("etl");
        assertThat(this.sinkConfig.password()).isEqualTo("secret");
    }

    @Test
    void theApicurioContainerIsTheRegistryClientsBaseUrl() {
        assertThat(this.registryDetails.getUrl()).isEqualTo("http://localhost:32769/apis/ccompat/v7");
        assertThat(this.registryDetails.getUsername()).isNull();
        assertThat(this.registryDetails.getSslBundle()).isNull();
        assertThat(this.registryClient.baseUrl()).isEqualTo("http://localhost:32769/apis/ccompat/v7");
    }

    @Test
    void theKafkaContainerReachesTheSourceThroughBootsOwnKafkaFactory() {
        assertThat(this.sourceConfig.consumerProperties())
                .containsEntry(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:32770");
    }

    static ClickHouseContainer clickHouse(String image, String host, int mappedHttpPort) {
        ClickHouseContainer container = mock(ClickHouseContainer.class);
        given(container.getDockerImageName()).willReturn(image);
        given(container.getHost()).willReturn(host);
        given(container.getMappedPort(ClickHouseContainerConnectionDetailsFactory.HTTP_PORT))
                .willReturn(mappedHttpPort);
        given(container.getUsername()).willReturn("etl");
        given(container.getPassword()).willReturn("secret");
        given(container.isRunning()).willReturn(true);
        return container;
    }

    static GenericContainer<?> registry(String image, String host, int port, int mappedPort) {
        GenericContainer<?> container = mock(GenericContainer.class);
        given(container.getDockerImageName()).willReturn(image);
        given(container.getHost()).willReturn(host);
        given(container.getMappedPort(port)).willReturn(mappedPort);
        given(container.isRunning()).willReturn(true);
        return container;
    }

    static KafkaContainer kafka(String image, String bootstrapServers) {
        KafkaContainer container = mock(KafkaContainer.class);
        given(container.getDockerImageName()).willReturn(image);
        given(container.getBootstrapServers()).willReturn(bootstrapServers);
        given(container.isRunning()).willReturn(true);
        return container;
    }
}
