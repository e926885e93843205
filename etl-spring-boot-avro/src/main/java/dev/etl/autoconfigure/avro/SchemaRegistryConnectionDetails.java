package dev.etl.autoconfigure.avro;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;
import org.springframework.boot.ssl.SslBundle;

/**
 * Details to connect to a Confluent-compatible schema registry. Defined from
 * {@code etl.avro.registry.*} unless the application (or a service-connection factory) provides a
 * bean of this type.
 */
public interface SchemaRegistryConnectionDetails extends ConnectionDetails {

    /**
     * Base URL of the registry API, e.g. {@code http://registry:8081}.
     * @return the URL
     */
    String getUrl();

    /**
     * User name for HTTP basic authentication, or null for none.
     * @return the user name
     */
    default @Nullable String getUsername() {
        return null;
    }

    /**
     * Password for HTTP basic authentication, or null.
     * @return the password
     */
    default @Nullable String getPassword() {
        return null;
    }

    /**
     * SSL bundle whose trust material verifies the registry's certificate, or null for the JVM's
     * defaults.
     * @return the SSL bundle
     */
    default @Nullable SslBundle getSslBundle() {
        return null;
    }
}
