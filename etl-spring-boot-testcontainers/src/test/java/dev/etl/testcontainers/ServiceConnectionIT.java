package dev.etl.testcontainers;

import dev.etl.autoconfigure.avro.SchemaRegistryConnectionDetails;
import dev.etl.autoconfigure.clickhouse.ClickHouseConnectionDetails;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.kafka.KafkaSourceConfig;
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
 * The factories against real containers of the official images: ClickHouse, an Apicurio registry and
 * Kafka, each with {@code @ServiceConnection} and nothing else. Runs where a Docker API answers and the
 * images can be had; elsewhere JUnit skips it, saying which image is missing (this repository's CI has
 * a Docker API, podman's, but no registry: there {@link LocalImagesServiceConnectionIT} runs the same
 * checks on the local images).
 */
@RequiresImages({
    "clickhouse/clickhouse-server:24.8",
    "apicurio/apicurio-registry-mem:2.6.13.Final",
    "apache/kafka:4.1.0"
})
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
        ServiceConnectionChecks.clickHouse(clickHouse, this.clickHouseDetails, this.sinkConfig);
    }

    @Test
    void theRegistryClientTalksToTheContainersConfluentApi() {
        ServiceConnectionChecks.registry(registry, this.registryDetails, this.registryClient);
    }

    @Test
    void theKafkaSourceUsesTheContainerThroughBootsOwnFactory() throws Exception {
        ServiceConnectionChecks.kafka(kafka, this.sourceConfig);
    }
}
// end::service-connection[]
