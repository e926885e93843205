package dev.etl.autoconfigure.clickhouse;

import org.jspecify.annotations.Nullable;

/** TLS towards https:// replicas ({@code etl.sink.clickhouse.ssl.*}). */
public class ClickHouseSslProperties {

    /**
     * Name of the SSL bundle ("spring.ssl.bundle.*") whose trust material verifies the replicas'
     * certificates (every replica must then be https://). Without it, https:// replicas are verified
     * against the JVM's default trust store. A bundle with key material (a client certificate, mutual
     * TLS) needs transport=http.
     */
    private String bundle;

    public @Nullable String getBundle() {
        return this.bundle;
    }

    public void setBundle(@Nullable String bundle) {
        this.bundle = bundle;
    }
}
