package dev.etl.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetailsFactory;
import org.springframework.core.io.support.SpringFactoriesLoader;

/** The module's {@code spring.factories} lists both factories under the key Boot loads them by, and they load. */
class SpringFactoriesTest {

    @Test
    void theModulesSpringFactoriesListsBothFactoriesUnderTheConnectionDetailsFactoryKey() throws IOException {
        Properties factories = new Properties();
        try (Reader in = Files.newBufferedReader(Path.of("src/main/resources/META-INF/spring.factories"))) {
            factories.load(in);
        }

        assertThat(factories.stringPropertyNames())
                .containsExactly("org.springframework.boot.autoconfigure.service.connection.ConnectionDetailsFactory")
                .containsExactly(ConnectionDetailsFactory.class.getName());
        assertThat(Arrays.stream(factories
                                .getProperty(ConnectionDetailsFactory.class.getName())
                                .split(","))
                        .map(String::trim))
                .containsExactlyInAnyOrder(
                        ClickHouseContainerConnectionDetailsFactory.class.getName(),
                        SchemaRegistryContainerConnectionDetailsFactory.class.getName());
    }

    @Test
    void springsFactoriesLoaderInstantiatesBoth() {
        List<ConnectionDetailsFactory> factories = SpringFactoriesLoader.forDefaultResourceLocation()
                .load(ConnectionDetailsFactory.class, SpringFactoriesLoader.FailureHandler.throwing());

        assertThat(factories)
                .hasAtLeastOneElementOfType(ClickHouseContainerConnectionDetailsFactory.class)
                .hasAtLeastOneElementOfType(SchemaRegistryContainerConnectionDetailsFactory.class);
    }
}
