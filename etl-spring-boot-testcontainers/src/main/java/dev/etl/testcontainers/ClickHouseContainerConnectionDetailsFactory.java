package dev.etl.testcontainers;

import dev.etl.autoconfigure.clickhouse.ClickHouseConnectionDetails;
import java.net.URI;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionDetailsFactory;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionSource;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.testcontainers.clickhouse.ClickHouseContainer;

/**
 * {@link ClickHouseConnectionDetails} from a {@link ServiceConnection @ServiceConnection}-annotated
 * Testcontainers {@link ClickHouseContainer} ({@code org.testcontainers.clickhouse}), whatever its image
 * name: one shard with one replica, the container's HTTP interface
 * ({@code http://host:mappedPort(8123)}), and the container's user name and password. With an SSL bundle
 * on the service connection ({@code @Ssl…} annotations), the HTTPS interface
 * ({@code https://host:mappedPort(8443)}, which the container must expose and serve) and that bundle.
 *
 * <p>The container's database name is not part of the details: the sink writes to
 * {@code etl.sink.clickhouse.database}. The details read the container when they are asked, so the
 * container is started (by Boot, once) before the sink's configuration is built.
 */
public final class ClickHouseContainerConnectionDetailsFactory
        extends ContainerConnectionDetailsFactory<ClickHouseContainer, ClickHouseConnectionDetails> {

    /** The port of ClickHouse's HTTP interface inside the container. */
    static final int HTTP_PORT = 8123;

    /** The port of ClickHouse's HTTPS interface in the image's example configuration ({@code https_port}). */
    static final int HTTPS_PORT = 8443;

    /** Called by Spring's factories loader. */
    public ClickHouseContainerConnectionDetailsFactory() {
        super(ANY_CONNECTION_NAME);
    }

    @Override
    protected ClickHouseConnectionDetails getContainerConnectionDetails(
            ContainerConnectionSource<ClickHouseContainer> source) {
        return new ClickHouseContainerConnectionDetails(source);
    }

    /**
     * The container as a cluster: one shard with one replica, its HTTP interface.
     * @param container a started container
     * @return the shards
     */
    static List<List<URI>> shards(ClickHouseContainer container) {
        return shards(container, false);
    }

    /**
     * The container as a cluster, over its HTTPS interface when {@code https} (an SSL bundle on the
     * service connection: the container must expose and serve {@code https_port} 8443).
     * @param container a started container
     * @param https whether to connect to its HTTPS interface
     * @return the shards
     */
    static List<List<URI>> shards(ClickHouseContainer container, boolean https) {
        return List.of(List.of(
                https
                        ? ContainerUri.of("https", container.getHost(), container.getMappedPort(HTTPS_PORT), "")
                        : ContainerUri.of("http", container.getHost(), container.getMappedPort(HTTP_PORT), "")));
    }

    /** {@link ClickHouseConnectionDetails} read from the source's container. */
    private static final class ClickHouseContainerConnectionDetails
            extends ContainerConnectionDetails<ClickHouseContainer> implements ClickHouseConnectionDetails {

        private ClickHouseContainerConnectionDetails(ContainerConnectionSource<ClickHouseContainer> source) {
            super(source);
        }

        @Override
        public List<List<URI>> getShards() {
            return shards(getContainer(), getSslBundle() != null);
        }

        @Override
        public @Nullable SslBundle getSslBundle() {
            return super.getSslBundle();
        }

        @Override
        public String getUsername() {
            return getContainer().getUsername();
        }

        @Override
        public String getPassword() {
            return getContainer().getPassword();
        }
    }
}
