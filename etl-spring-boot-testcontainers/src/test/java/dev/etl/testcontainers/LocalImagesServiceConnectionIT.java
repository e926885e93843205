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
 * {@link ServiceConnectionIT}'s checks on this repository's local images ({@link LocalImages}: ClickHouse
 * 18.16, Kafka 4.1 and Apicurio 2.6, built by {@code scripts/image.sh servers}), through the same
 * Testcontainers modules and {@code @ServiceConnection} factories. The registry's image is mirrored under
 * another name, so the annotation names the image it stands for. CI runs it through
 * {@code podman system service}; where the images were not built, JUnit skips it, naming the image.
 */
@RequiresImages({LocalImages.CLICKHOUSE, LocalImages.APICURIO, LocalImages.KAFKA})
@SpringBootTest(
        classes = EtlConnectors.class,
        properties = {
            "etl.sink.clickhouse.table=orders_local",
            "etl.sink.clickhouse.validation=off",
            "etl.source.kafka.topics=orders"
        })
@Testcontainers(disabledWithoutDocker = true)
class LocalImagesServiceConnectionIT {

    @Container
    @ServiceConnection
    static final ClickHouseContainer clickHouse = new ClickHouseContainer(LocalImages.clickHouse());

    @Container
    @ServiceConnection(name = "apicurio/apicurio-registry-mem")
    static final GenericContainer<?> registry = new GenericContainer<>(LocalImages.apicurio())
            .withExposedPorts(8080)
            .waitingFor(Wait.forHttp("/apis/ccompat/v7/subjects"));

    @Container
    @ServiceConnection
    static final KafkaContainer kafka = new KafkaContainer(LocalImages.kafka()).withEnv("KAFKA_HEAP_OPTS", "-Xmx512m");

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
