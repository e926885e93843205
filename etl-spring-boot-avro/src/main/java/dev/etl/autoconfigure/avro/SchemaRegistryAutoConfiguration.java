package dev.etl.autoconfigure.avro;

import dev.etl.autoconfigure.EtlAutoConfiguration;
import dev.etl.avro.SchemaRegistryClient;
import java.io.IOException;
import java.io.InputStream;
import org.apache.avro.Schema;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.core.io.Resource;

/**
 * The schema-registry client, when {@code etl.avro.registry.url} is set (or a
 * {@link SchemaRegistryConnectionDetails} bean exists), for the application's chains to build their
 * {@code AvroDeserializer}s with, checked at startup to answer the Confluent API
 * ({@code etl.avro.registry.check-on-startup}); and the reader schema from {@code etl.avro.reader-schema}, as a
 * bean named {@code etlAvroReaderSchema}.
 */
@AutoConfiguration(
        before = EtlAutoConfiguration.class,
        afterName = "org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration")
@ConditionalOnClass({SchemaRegistryClient.class, Schema.class})
@EnableConfigurationProperties(EtlAvroProperties.class)
public final class SchemaRegistryAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(SchemaRegistryConnectionDetails.class)
    @ConditionalOnProperty("etl.avro.registry.url")
    PropertiesSchemaRegistryConnectionDetails schemaRegistryConnectionDetails(
            EtlAvroProperties properties, ObjectProvider<SslBundles> sslBundles) {
        return new PropertiesSchemaRegistryConnectionDetails(properties.getRegistry(), sslBundles.getIfAvailable());
    }

    @Bean
    @ConditionalOnMissingBean
    @org.springframework.boot.autoconfigure.condition.ConditionalOnBean(SchemaRegistryConnectionDetails.class)
    SchemaRegistryClient etlSchemaRegistryClient(
            SchemaRegistryConnectionDetails connection, EtlAvroProperties properties) {
        EtlAvroProperties.Registry registry = properties.getRegistry();
        SchemaRegistryClient.Builder builder = SchemaRegistryClient.builder(connection.getUrl())
                .connectTimeout(registry.getConnectTimeout())
                .requestTimeout(registry.getRequestTimeout());
        if (connection.getUsername() != null) {
            builder.basicAuth(connection.getUsername(), connection.getPassword());
        }
        SslBundle ssl = connection.getSslBundle();
        if (ssl != null) {
            builder.sslContext(ssl.createSslContext());
        }
        SchemaRegistryClient client = builder.build();
        if (registry.isCheckOnStartup()) {
            // Fail fast: a wrong base path would otherwise make every record "unknown schema id".
            client.checkApi();
        }
        return client;
    }

    @Bean
    @ConditionalOnMissingBean(name = "etlAvroReaderSchema")
    @ConditionalOnProperty("etl.avro.reader-schema")
    Schema etlAvroReaderSchema(EtlAvroProperties properties) throws IOException {
        Resource resource = properties.getReaderSchema();
        try (InputStream in = resource.getInputStream()) {
            return new Schema.Parser().parse(in);
        }
    }
}
