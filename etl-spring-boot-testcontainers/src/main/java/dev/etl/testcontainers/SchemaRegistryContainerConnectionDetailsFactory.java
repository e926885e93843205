package dev.etl.testcontainers;

import dev.etl.autoconfigure.avro.SchemaRegistryConnectionDetails;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionDetailsFactory;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionSource;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.testcontainers.containers.Container;

/**
 * {@link SchemaRegistryConnectionDetails} from a {@link ServiceConnection @ServiceConnection}-annotated
 * container (a {@code GenericContainer}, say) running a Confluent-compatible schema registry, recognised
 * by its image name, or by the annotation's {@code name} for an image mirrored under another name:
 * <ul>
 *   <li>{@code confluentinc/cp-schema-registry} → {@code http://host:mappedPort(8081)};</li>
 *   <li>{@code apicurio/apicurio-registry}, {@code apicurio/apicurio-registry-mem}, {@code -sql},
 *       {@code -kafkasql} → {@code http://host:mappedPort(8080)/apis/ccompat/v7}.</li>
 * </ul>
 * The scheme is {@code https} when the connection has an SSL bundle ({@code @PemKeyStore},
 * {@code @JksTrustStore}, … on the container), which is then the details' bundle too. There are no
 * credentials. A container of another image is not this factory's (Boot then reports that no factory
 * matched, and suggests a {@code name}).
 */
public final class SchemaRegistryContainerConnectionDetailsFactory
        extends ContainerConnectionDetailsFactory<Container<?>, SchemaRegistryConnectionDetails> {

    /** Called by Spring's factories loader. */
    public SchemaRegistryContainerConnectionDetailsFactory() {
        super(SchemaRegistryImage.connectionNames());
    }

    @Override
    protected @Nullable SchemaRegistryConnectionDetails getContainerConnectionDetails(
            ContainerConnectionSource<Container<?>> source) {
        SchemaRegistryImage image = imageOf(source);
        return (image != null) ? new SchemaRegistryContainerConnectionDetails(source, image) : null;
    }

    /** The image whose name the source answers to; null if none (the factory was not asked for it). */
    private static @Nullable SchemaRegistryImage imageOf(ContainerConnectionSource<Container<?>> source) {
        for (SchemaRegistryImage image : SchemaRegistryImage.values()) {
            if (source.accepts(image.connectionName(), Container.class, SchemaRegistryConnectionDetails.class)) {
                return image;
            }
        }
        return null;
    }

    /** {@link SchemaRegistryConnectionDetails} read from the source's container. */
    private static final class SchemaRegistryContainerConnectionDetails extends ContainerConnectionDetails<Container<?>>
            implements SchemaRegistryConnectionDetails {

        private final SchemaRegistryImage image;

        private SchemaRegistryContainerConnectionDetails(
                ContainerConnectionSource<Container<?>> source, SchemaRegistryImage image) {
            super(source);
            this.image = image;
        }

        @Override
        public String getUrl() {
            return this.image.url(getContainer(), getSslBundle() != null);
        }

        @Override
        public @Nullable SslBundle getSslBundle() {
            return super.getSslBundle();
        }
    }
}
