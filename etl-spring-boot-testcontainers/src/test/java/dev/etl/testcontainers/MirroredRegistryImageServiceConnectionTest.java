package dev.etl.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.autoconfigure.avro.SchemaRegistryConnectionDetails;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.annotation.Configuration;
import org.testcontainers.containers.GenericContainer;

/**
 * An image mirrored under another name is recognised by the annotation's {@code name}, and mapped as
 * the image that name says (here Confluent's: the API at the root of port 8081), without Docker.
 */
@SpringBootTest(classes = MirroredRegistryImageServiceConnectionTest.Empty.class)
class MirroredRegistryImageServiceConnectionTest {

    @ServiceConnection(name = "confluentinc/cp-schema-registry")
    static final GenericContainer<?> registry = MockedContainersServiceConnectionTest.registry(
            "registry.example.com/mirror/schema-registry:7.7.1", "10.0.0.7", 8081, 40001);

    @Autowired
    SchemaRegistryConnectionDetails details;

    @Test
    void theAnnotationsNameDecidesTheImageAndSoThePortAndPath() {
        assertThat(this.details.getUrl()).isEqualTo("http://10.0.0.7:40001");
    }

    @Configuration(proxyBeanMethods = false)
    static class Empty {}
}
