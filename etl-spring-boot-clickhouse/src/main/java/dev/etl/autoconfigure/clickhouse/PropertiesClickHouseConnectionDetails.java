package dev.etl.autoconfigure.clickhouse;

import dev.etl.autoconfigure.InvalidEtlConfigurationException;
import dev.etl.error.Suggestion;
import java.net.URI;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;

/** {@link ClickHouseConnectionDetails} from {@code etl.sink.clickhouse.*}. */
class PropertiesClickHouseConnectionDetails implements ClickHouseConnectionDetails {

    private final EtlClickHouseProperties properties;

    private final SslBundles sslBundles;

    PropertiesClickHouseConnectionDetails(EtlClickHouseProperties properties, SslBundles sslBundles) {
        this.properties = properties;
        this.sslBundles = sslBundles;
    }

    @Override
    public List<List<URI>> getShards() {
        return this.properties.getShards().stream()
                .map((shard) -> List.copyOf(shard.getReplicas()))
                .toList();
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
        return sslBundle(this.sslBundles, this.properties.getSsl().getBundle(), "etl.sink.clickhouse.ssl.bundle");
    }

    /**
     * The bundle {@code name} names, null when {@code name} is null.
     * @throws InvalidEtlConfigurationException naming {@code property} when there is no such bundle
     */
    static SslBundle sslBundle(SslBundles bundles, String name, String property) {
        if (name == null || name.isBlank()) {
            return null;
        }
        List<String> names = (bundles != null) ? bundles.getBundleNames() : List.of();
        try {
            if (bundles != null) {
                return bundles.getBundle(name);
            }
        } catch (NoSuchSslBundleException ex) {
            // reported below with the names there are
        }
        String closest = Suggestion.closest(name, names);
        throw new InvalidEtlConfigurationException(
                property + "=" + name + " names no SSL bundle; the configured " + "bundles are " + names
                        + ((closest != null) ? " (did you mean '" + closest + "'?)" : ""),
                "Define the bundle under spring.ssl.bundle.jks." + name + ".* or spring.ssl.bundle.pem." + name
                        + ".* (its truststore is what verifies the server's certificate), or fix the name in "
                        + property + ".");
    }
}
