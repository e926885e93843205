package dev.etl.autoconfigure.clickhouse;

import java.net.URI;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;
import org.springframework.boot.ssl.SslBundle;

/**
 * Details to connect to a sharded ClickHouse cluster: per shard, the HTTP base URIs of its replicas,
 * the credentials and the TLS trust. Defined from {@code etl.sink.clickhouse.*} unless the application (or a
 * service-connection factory) provides a bean of this type.
 */
public interface ClickHouseConnectionDetails extends ConnectionDetails {

    /**
     * Shards in router order, each with the HTTP base URIs of its replicas (e.g. {@code http://ch-1a:8123}).
     * @return the shards, never empty
     */
    List<List<URI>> getShards();

    /**
     * User name, or null for the server's default user.
     * @return the user name
     */
    default @Nullable String getUsername() {
        return null;
    }

    /**
     * Password, or null.
     * @return the password
     */
    default @Nullable String getPassword() {
        return null;
    }

    /**
     * SSL bundle whose trust material verifies the replicas' certificates (and whose key material, if
     * any, is the client certificate), or null for the JVM's defaults.
     * @return the SSL bundle
     */
    default @Nullable SslBundle getSslBundle() {
        return null;
    }
}
