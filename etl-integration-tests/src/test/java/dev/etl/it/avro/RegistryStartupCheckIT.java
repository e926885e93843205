package dev.etl.it.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.autoconfigure.avro.SchemaRegistryAutoConfiguration;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.avro.SchemaRegistryException;
import dev.etl.test.infra.InfraEndpoints;
import dev.etl.test.infra.InfraServer;
import dev.etl.test.infra.LocalInfra;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * The starter's registry check against the real registry (Apicurio, Confluent API at
 * {@code /apis/ccompat/v7}): the right base path starts, Apicurio's root fails the application at
 * once, naming the URL and not the password.
 */
@LocalInfra(InfraServer.REGISTRY)
class RegistryStartupCheckIT {

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(SchemaRegistryAutoConfiguration.class)
    static class RegistryOnly {}

    private static ConfigurableApplicationContext start(String url) {
        return new SpringApplicationBuilder(RegistryOnly.class)
                .web(WebApplicationType.NONE)
                .properties(
                        "etl.avro.registry.url=" + url,
                        "etl.avro.registry.username=etl",
                        "etl.avro.registry.password=s3cret-registry-password")
                .run();
    }

    @Test
    void theApiBaseStarts(InfraEndpoints infra) {
        try (ConfigurableApplicationContext context = start(infra.registryUrl())) {
            assertThat(context.getBean(SchemaRegistryClient.class).baseUrl()).isEqualTo(infra.registryUrl());
        }
    }

    @Test
    void aWrongBasePathFailsStartupNamingTheUrl(InfraEndpoints infra) {
        String root = infra.registryUrl().replace("/apis/ccompat/v7", "");
        assertThat(root).isNotEqualTo(infra.registryUrl());
        long started = System.nanoTime();
        assertThatThrownBy(() -> start(root).close())
                .rootCause()
                .isInstanceOf(SchemaRegistryException.class)
                .hasMessageContaining("schema registry " + root + " does not answer the Confluent Schema Registry API")
                .hasMessageContaining("HTTP 404")
                .hasMessageNotContaining("s3cret-registry-password");
        assertThat((System.nanoTime() - started) / 1_000_000)
                .as("fails fast (ms)")
                .isLessThan(30_000);
    }
}
