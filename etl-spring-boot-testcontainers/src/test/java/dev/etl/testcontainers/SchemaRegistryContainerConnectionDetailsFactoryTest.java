package dev.etl.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

import dev.etl.autoconfigure.avro.SchemaRegistryConnectionDetails;
import org.junit.jupiter.api.Test;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionDetailsFactory;
import org.springframework.core.ResolvableType;
import org.testcontainers.containers.Container;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/** The image → registry URL mapping, on mocked containers (no Docker). */
class SchemaRegistryContainerConnectionDetailsFactoryTest {

    @Test
    void confluentsRegistryServesTheApiAtTheRootOfItsMappedPort8081() {
        GenericContainer<?> container = container("localhost", 8081, 32770);

        assertThat(SchemaRegistryImage.CONFLUENT.url(container, false)).isEqualTo("http://localhost:32770");
    }

    @Test
    void apicurioServesTheConfluentApiUnderCcompatV7OnItsMappedPort8080() {
        GenericContainer<?> container = container("localhost", 8080, 32771);

        for (SchemaRegistryImage apicurio : new SchemaRegistryImage[] {
            SchemaRegistryImage.APICURIO,
            SchemaRegistryImage.APICURIO_MEM,
            SchemaRegistryImage.APICURIO_SQL,
            SchemaRegistryImage.APICURIO_KAFKASQL
        }) {
            assertThat(apicurio.url(container, false))
                    .as(apicurio.name())
                    .isEqualTo("http://localhost:32771/apis/ccompat/v7");
        }
    }

    @Test
    void anSslBundleMakesTheSchemeHttps() {
        assertThat(SchemaRegistryImage.CONFLUENT.url("localhost", 32770, true)).isEqualTo("https://localhost:32770");
        assertThat(SchemaRegistryImage.APICURIO_MEM.url("localhost", 32771, true))
                .isEqualTo("https://localhost:32771/apis/ccompat/v7");
    }

    @Test
    void anIpv6HostGetsTheBracketsAUrlNeeds() {
        assertThat(SchemaRegistryImage.CONFLUENT.url("::1", 32770, false)).isEqualTo("http://[::1]:32770");
        assertThat(SchemaRegistryImage.APICURIO.url("[fd00::2]", 32771, false))
                .isEqualTo("http://[fd00::2]:32771/apis/ccompat/v7");
    }

    @Test
    void theNamesAreWhatBootDeducesFromTheImagesWithRegistryHostsAndTags() {
        // Boot names a @ServiceConnection after DockerImageName.getRepository() unless the annotation has a name.
        assertThat(repository("confluentinc/cp-schema-registry:7.7.1"))
                .isEqualTo(SchemaRegistryImage.CONFLUENT.connectionName());
        assertThat(repository("docker.io/confluentinc/cp-schema-registry:7.7.1"))
                .isEqualTo(SchemaRegistryImage.CONFLUENT.connectionName());
        assertThat(repository("apicurio/apicurio-registry:3.0.6"))
                .isEqualTo(SchemaRegistryImage.APICURIO.connectionName());
        assertThat(repository("quay.io/apicurio/apicurio-registry-mem:2.6.13.Final"))
                .isEqualTo(SchemaRegistryImage.APICURIO_MEM.connectionName());
        assertThat(repository("apicurio/apicurio-registry-sql:2.6.13.Final"))
                .isEqualTo(SchemaRegistryImage.APICURIO_SQL.connectionName());
        assertThat(repository("apicurio/apicurio-registry-kafkasql:2.6.13.Final"))
                .isEqualTo(SchemaRegistryImage.APICURIO_KAFKASQL.connectionName());
    }

    @Test
    void theFactoryAcceptsExactlyTheKnownImages() {
        assertThat(SchemaRegistryImage.connectionNames())
                .containsExactly(
                        "confluentinc/cp-schema-registry",
                        "apicurio/apicurio-registry",
                        "apicurio/apicurio-registry-mem",
                        "apicurio/apicurio-registry-sql",
                        "apicurio/apicurio-registry-kafkasql");
    }

    @Test
    void theFactoryTurnsAnyContainerIntoSchemaRegistryConnectionDetails() {
        Class<?>[] types = ResolvableType.forClass(
                        ContainerConnectionDetailsFactory.class, SchemaRegistryContainerConnectionDetailsFactory.class)
                .resolveGenerics();

        assertThat(types).containsExactly(Container.class, SchemaRegistryConnectionDetails.class);
    }

    private static String repository(String image) {
        return DockerImageName.parse(image).getRepository();
    }

    private static GenericContainer<?> container(String host, int port, int mappedPort) {
        GenericContainer<?> container = mock(GenericContainer.class);
        given(container.getHost()).willReturn(host);
        given(container.getMappedPort(port)).willReturn(mappedPort);
        return container;
    }
}
