package dev.etl.autoconfigure.avro;

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
    public String getUsername() {
        return this.properties.getUsername();
    }

    @Override
    public String getPassword() {
        return this.properties.getPassword();
    }

    @Override
    public SslBundle getSslBundle() {
        String name = this.properties.getSslBundle();
        if (name == null) {
            return null;
        }
        if (this.sslBundles == null) {
            throw new IllegalStateException("etl.avro.registry.ssl-bundle=" + name + " is set but there are no SSL "
                    + "bundles (spring.ssl.bundle.*)");
        }
        return this.sslBundles.getBundle(name);
    }

}
