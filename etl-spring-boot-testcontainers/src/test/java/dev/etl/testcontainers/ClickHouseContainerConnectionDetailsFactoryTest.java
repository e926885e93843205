package dev.etl.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

import dev.etl.autoconfigure.clickhouse.ClickHouseConnectionDetails;
import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionDetailsFactory;
import org.springframework.core.ResolvableType;
import org.testcontainers.clickhouse.ClickHouseContainer;

/** The container → shards mapping, on a mocked container (no Docker). */
class ClickHouseContainerConnectionDetailsFactoryTest {

    @Test
    void theContainerIsOneShardWithOneReplicaAtItsMappedHttpPort() {
        ClickHouseContainer container = container("localhost", 32768);

        assertThat(ClickHouseContainerConnectionDetailsFactory.shards(container))
                .isEqualTo(List.of(List.of(URI.create("http://localhost:32768"))));
    }

    @Test
    void anIpAddressHostIsUsedAsItIs() {
        assertThat(ClickHouseContainerConnectionDetailsFactory.shards(container("172.17.0.1", 49153)))
                .isEqualTo(List.of(List.of(URI.create("http://172.17.0.1:49153"))));
    }

    @Test
    void anIpv6HostGetsTheBracketsAUriNeeds() {
        assertThat(ClickHouseContainerConnectionDetailsFactory.shards(container("::1", 32768)))
                .isEqualTo(List.of(List.of(URI.create("http://[::1]:32768"))));
        assertThat(ClickHouseContainerConnectionDetailsFactory.shards(container("[::1]", 32768)))
                .isEqualTo(List.of(List.of(URI.create("http://[::1]:32768"))));
    }

    @Test
    void theShardUriHasNoPathSoTheSinkAppendsItsOwnQuery() {
        URI replica = ClickHouseContainerConnectionDetailsFactory.shards(container("localhost", 32768))
                .get(0)
                .get(0);

        assertThat(replica.getRawPath()).isEmpty();
        assertThat(replica.getHost()).isEqualTo("localhost");
        assertThat(replica.getPort()).isEqualTo(32768);
    }

    @Test
    void theFactoryTurnsClickHouseContainersIntoClickHouseConnectionDetails() {
        Class<?>[] types = ResolvableType.forClass(
                        ContainerConnectionDetailsFactory.class, ClickHouseContainerConnectionDetailsFactory.class)
                .resolveGenerics();

        assertThat(types).containsExactly(ClickHouseContainer.class, ClickHouseConnectionDetails.class);
    }

    private static ClickHouseContainer container(String host, int mappedHttpPort) {
        ClickHouseContainer container = mock(ClickHouseContainer.class);
        given(container.getHost()).willReturn(host);
        given(container.getMappedPort(ClickHouseContainerConnectionDetailsFactory.HTTP_PORT))
                .willReturn(mappedHttpPort);
        return container;
    }
}
