package dev.etl.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.autoconfigure.avro.SchemaRegistryConnectionDetails;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.PemTrustStore;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.annotation.Configuration;
import org.testcontainers.containers.GenericContainer;

/**
 * An SSL bundle annotation on the registry container makes its URL {@code https} and is the details'
 * bundle, without Docker ({@code registry-ca.crt} is a self-signed test certificate).
 */
@SpringBootTest(classes = TlsRegistryServiceConnectionTest.Empty.class)
class TlsRegistryServiceConnectionTest {

    @ServiceConnection
    @PemTrustStore("classpath:registry-ca.crt")
    static final GenericContainer<?> registry = MockedContainersServiceConnectionTest.registry(
            "confluentinc/cp-schema-registry:7.7.1", "localhost", 8081, 40443);

    @Autowired
    SchemaRegistryConnectionDetails details;

    @Test
    void anSslBundleOnTheContainerMakesTheUrlHttpsAndIsTheDetailsBundle() {
        assertThat(this.details.getUrl()).isEqualTo("https://localhost:40443");
        assertThat(this.details.getSslBundle()).isNotNull();
        assertThat(this.details.getSslBundle().getStores().getTrustStore()).isNotNull();
    }

    @Configuration(proxyBeanMethods = false)
    static class Empty {}
}
