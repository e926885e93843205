package dev.etl.autoconfigure.avro;

import dev.etl.avro.SchemaRegistryClient;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.core.io.Resource;

/** Avro deserialization and the schema registry ({@code etl.avro.*}). */
@ConfigurationProperties("etl.avro")
public class EtlAvroProperties {

    private final Registry registry = new Registry();

    /**
     * Location of a reader schema (.avsc), parsed into the Schema bean "etlAvroReaderSchema" for
     * the application's AvroDeserializer.
     */
    private Resource readerSchema;

    public Registry getRegistry() {
        return this.registry;
    }

    public @Nullable Resource getReaderSchema() {
        return this.readerSchema;
    }

    public void setReaderSchema(@Nullable Resource readerSchema) {
        this.readerSchema = readerSchema;
    }

    /** Schema registry (Confluent-compatible REST API). */
    public static class Registry {

        /**
         * Base URL of the registry API, e.g. "http://registry:8081".
         */
        private String url;

        /**
         * User name for HTTP basic authentication.
         */
        private String username;

        /**
         * Password for HTTP basic authentication.
         */
        private String password;

        /**
         * Name of the SSL bundle ("spring.ssl.bundle.*") whose trust material verifies the
         * registry's certificate.
         */
        private String sslBundle;

        /**
         * TCP connect timeout of registry requests.
         */
        private Duration connectTimeout = SchemaRegistryClient.DEFAULT_CONNECT_TIMEOUT;

        /**
         * Timeout of one registry request.
         */
        private Duration requestTimeout = SchemaRegistryClient.DEFAULT_REQUEST_TIMEOUT;

        /**
         * Whether to check at startup that the URL answers the Confluent Schema Registry API
         * (GET /subjects returns a JSON array) and fail the application naming the URL when it
         * does not (wrong base path, a web page, refused credentials, unreachable).
         */
        private boolean checkOnStartup = true;

        public boolean isCheckOnStartup() {
            return this.checkOnStartup;
        }

        public void setCheckOnStartup(boolean checkOnStartup) {
            this.checkOnStartup = checkOnStartup;
        }

        public @Nullable String getUrl() {
            return this.url;
        }

        public void setUrl(@Nullable String url) {
            this.url = url;
        }

        public @Nullable String getUsername() {
            return this.username;
        }

        public void setUsername(@Nullable String username) {
            this.username = username;
        }

        public @Nullable String getPassword() {
            return this.password;
        }

        public void setPassword(@Nullable String password) {
            this.password = password;
        }

        public @Nullable String getSslBundle() {
            return this.sslBundle;
        }

        public void setSslBundle(@Nullable String sslBundle) {
            this.sslBundle = sslBundle;
        }

        public Duration getConnectTimeout() {
            return this.connectTimeout;
        }

        public void setConnectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
        }

        public Duration getRequestTimeout() {
            return this.requestTimeout;
        }

        public void setRequestTimeout(Duration requestTimeout) {
            this.requestTimeout = requestTimeout;
        }
    }
}
