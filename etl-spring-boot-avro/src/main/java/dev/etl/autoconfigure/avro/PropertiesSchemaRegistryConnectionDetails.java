package dev.etl.autoconfigure.avro;

import dev.etl.autoconfigure.InvalidEtlConfigurationException;
import dev.etl.error.Suggestion;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;

/** {@link SchemaRegistryConnectionDetails} from {@code etl.avro.registry.*}. */
class PropertiesSchemaRegistryConnectionDetails implements SchemaRegistryConnectionDetails {

    private final EtlAvroProperties.Registry properties;

    private final SslBundles sslBundles;

    PropertiesSchemaRegistryConnectionDetails(EtlAvroProperties.Registry properties, SslBundles sslBundles) {
        this.properties = properties;
        this.sslBundles = sslBundles;
    }

    @Override
    public String getUrl() {
        return this.properties.getUrl();
    }

    @Override
    public @Nullable String getUsername() {
        return this.properties.getUsername();
    }

    @Override
    public @Nullable String getPassword() {
        return this.properties.getPassword();
    }

    @Override
    public @Nullable SslBundle getSslBundle() {
        String name = this.properties.getSslBundle();
        if (name == null || name.isBlank()) {
            return null;
        }
        List<String> names = (this.sslBundles != null) ? this.sslBundles.getBundleNames() : List.of();
        try {
            if (this.sslBundles != null) {
                return this.sslBundles.getBundle(name);
            }
        } catch (NoSuchSslBundleException ex) {
            // reported below with the names there are
        }
        String closest = Suggestion.closest(name, names);
        throw new InvalidEtlConfigurationException(
                "etl.avro.registry.ssl-bundle=" + name + " names no SSL bundle; " + "the configured bundles are "
                        + names + ((closest != null) ? " (did you mean '" + closest + "'?)" : ""),
                "Define the bundle under spring.ssl.bundle.jks." + name + ".* or spring.ssl.bundle.pem." + name
                        + ".* (its truststore is what verifies the registry's certificate), or fix the name in "
                        + "etl.avro.registry.ssl-bundle.");
    }
}
