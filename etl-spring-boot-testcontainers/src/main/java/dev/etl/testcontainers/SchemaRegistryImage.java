package dev.etl.testcontainers;

import java.net.URI;
import java.util.Arrays;
import java.util.List;
import org.testcontainers.containers.Container;

/**
 * The schema-registry images a {@code @ServiceConnection} is recognised by, each with the port and base
 * path of its Confluent-compatible API. The name is the image's repository without registry host or tag
 * ({@code docker.io/confluentinc/cp-schema-registry:7.7.1} → {@code confluentinc/cp-schema-registry}),
 * or the annotation's {@code name} when it has one (for a mirrored image under another name).
 */
enum SchemaRegistryImage {

    /** Confluent's registry: the API is at the root, on 8081. */
    CONFLUENT("confluentinc/cp-schema-registry", 8081, ""),

    /** Apicurio Registry (the 3.x image): the Confluent API v7 under {@code /apis/ccompat/v7}, on 8080. */
    APICURIO("apicurio/apicurio-registry", 8080, SchemaRegistryImage.APICURIO_CCOMPAT),

    /** Apicurio Registry 2.x, in-memory storage. */
    APICURIO_MEM("apicurio/apicurio-registry-mem", 8080, SchemaRegistryImage.APICURIO_CCOMPAT),

    /** Apicurio Registry 2.x, SQL storage. */
    APICURIO_SQL("apicurio/apicurio-registry-sql", 8080, SchemaRegistryImage.APICURIO_CCOMPAT),

    /** Apicurio Registry 2.x, Kafka storage. */
    APICURIO_KAFKASQL("apicurio/apicurio-registry-kafkasql", 8080, SchemaRegistryImage.APICURIO_CCOMPAT);

    private static final String APICURIO_CCOMPAT = "/apis/ccompat/v7";

    private final String connectionName;

    private final int port;

    private final String basePath;

    SchemaRegistryImage(String connectionName, int port, String basePath) {
        this.connectionName = connectionName;
        this.port = port;
        this.basePath = basePath;
    }

    /** @return the connection name ({@code owner/repository}) this image is recognised by */
    String connectionName() {
        return this.connectionName;
    }

    /** @return the port of the registry's API inside the container */
    int port() {
        return this.port;
    }

    /** @return the names of all images, for the factory's constructor */
    static List<String> connectionNames() {
        return Arrays.stream(values()).map(SchemaRegistryImage::connectionName).toList();
    }

    /**
     * The registry API's base URL on a started container.
     * @param container the container
     * @param https     whether the registry serves TLS (the connection has an SSL bundle)
     * @return e.g. {@code http://localhost:32771/apis/ccompat/v7}
     */
    String url(Container<?> container, boolean https) {
        return url(container.getHost(), container.getMappedPort(this.port), https);
    }

    /**
     * The registry API's base URL at {@code host:mappedPort}.
     * @param host       the container's host
     * @param mappedPort the host port mapped to {@link #port()}
     * @param https      whether the registry serves TLS
     * @return the URL, without a trailing slash
     */
    String url(String host, int mappedPort, boolean https) {
        URI uri = ContainerUri.of(https ? "https" : "http", host, mappedPort, this.basePath);
        return uri.toString();
    }
}
