package dev.etl.autoconfigure.clickhouse;

import java.net.URI;
import java.util.List;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.ssl.SslOptions;
import org.springframework.boot.ssl.SslStoreBundle;
import org.springframework.context.annotation.Bean;

import dev.etl.autoconfigure.EtlAutoConfiguration;
import dev.etl.autoconfigure.InvalidEtlConfigurationException;
import dev.etl.autoconfigure.PipelineAssemblyException;
import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.ClickHouseSink;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.ClickHouseTls;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.clickhouse.ValidationMode;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.sink.BatchConfig;
import dev.etl.sink.ChunkConfig;
import dev.etl.sink.RetryConfig;
import dev.etl.sink.SinkDefinition;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * The ClickHouse sink, when {@code etl.sink.clickhouse.table} is set: a {@link SinkDefinition} named
 * {@code etl.sink.clickhouse.name} writing to the shard-local table on every shard.
 *
 * <p>TLS: {@code https://} replicas are verified against the SSL bundle named by
 * {@code etl.sink.clickhouse.ssl.bundle} ({@code spring.ssl.bundle.*}, or the connection details' bundle),
 * for both transports, or against the JVM's trust store without one.
 *
 * <p>The application's {@link RowBinaryEncoder} bean is the sink's one encoder declaration: startup
 * validation compares its columns with the table, and the sink writes every row with it, so chains end
 * in {@code .sink(router)}. With {@code validation=off} and no encoder bean, chains pass their encoder.
 */
@AutoConfiguration(before = EtlAutoConfiguration.class,
        afterName = "org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration")
@ConditionalOnClass(ClickHouseSink.class)
@ConditionalOnBooleanProperty(name = "etl.pipeline.enabled", matchIfMissing = true)
@ConditionalOnProperty("etl.sink.clickhouse.table")
@EnableConfigurationProperties(EtlClickHouseProperties.class)
public final class ClickHouseSinkAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(ClickHouseConnectionDetails.class)
    PropertiesClickHouseConnectionDetails clickHouseConnectionDetails(EtlClickHouseProperties properties,
            ObjectProvider<SslBundles> sslBundles) {
        return new PropertiesClickHouseConnectionDetails(properties, sslBundles.getIfAvailable());
    }

    @Bean
    @ConditionalOnMissingBean
    ClickHouseSinkConfig etlClickHouseSinkConfig(EtlClickHouseProperties clickHouse,
            ClickHouseConnectionDetails connection, ObjectProvider<ClickHouseSinkConfigCustomizer> customizers) {
        EtlClickHouseProperties.Batch batch = clickHouse.getBatch();
        ClickHouseRetryProperties retry = clickHouse.getRetry();
        ClickHouseSinkConfig.Builder builder = ClickHouseSinkConfig.builder()
            .table(clickHouse.getDatabase(), clickHouse.getTable())
            .shards(connection.getShards())
            .credentials(connection.getUsername(), connection.getPassword())
            .tls(tls(connection.getSslBundle(), connection.getShards(), clickHouse))
            .connectTimeout(clickHouse.getConnectTimeout())
            .socketTimeout(clickHouse.getSocketTimeout())
            .compression(clickHouse.isCompression())
            .transport(ClickHouseSinkConfig.Transport.valueOf(clickHouse.getTransport().name()))
            .breaker(clickHouse.getBreaker().getThreshold(), clickHouse.getBreaker().getOpenTime())
            .validation(ValidationMode.valueOf(clickHouse.getValidation().name()))
            .requireDedup(clickHouse.isRequireDedup())
            .deterministicBlocks(clickHouse.isDeterministicBlocks())
            .batch(new BatchConfig(batch.getMaxRows(), batch.getMaxBytes().toBytes(), batch.getLinger()))
            .retry(new RetryConfig(retry.getMaxAttempts(), retry.getInitialBackoff(), retry.getMaxBackoff(),
                    retry.getMultiplier(), retry.getJitter()));
        clickHouse.getSettings().forEach(builder::setting);
        customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
        return builder.build();
    }

    @Bean
    @ConditionalOnMissingBean(name = "etlClickHouseSink")
    SinkDefinition etlClickHouseSink(ClickHouseSinkConfig config, EtlClickHouseProperties clickHouse,
            PipelineConfig pipeline, ObjectProvider<RowBinaryEncoder<?>> encoders,
            ObjectProvider<MeterRegistry> meterRegistries) {
        MeterRegistry registry = meterRegistries.getIfUnique();
        RowBinaryEncoder<?> encoder = encoder(config, encoders);
        List<ClickHouseColumn> columns = (encoder != null) ? encoder.columns() : List.of();
        SinkDefinition definition = ClickHouseSink
            .definition(clickHouse.getName(), pipeline.name(), config, columns,
                    (registry != null) ? registry : new SimpleMeterRegistry())
            .withChunks(new ChunkConfig(clickHouse.getChunk().getMaxRows(),
                    (int) clickHouse.getChunk().getMaxBytes().toBytes()))
            .withQueueCapacity(clickHouse.getQueueCapacity())
            .withPermanentFailure(clickHouse.getPermanentFailure());
        return (encoder != null) ? definition.withEncoder(encoder) : definition;
    }

    /**
     * The sink's TLS from an SSL bundle: the bundle's SSL context for the raw HTTP transport, its trust
     * store for client-v2; null without a bundle.
     */
    static ClickHouseTls tls(SslBundle bundle, List<List<URI>> shards, EtlClickHouseProperties clickHouse) {
        if (bundle == null) {
            return null;
        }
        SslStoreBundle stores = bundle.getStores();
        boolean clientCertificate = stores != null && stores.getKeyStore() != null;
        SslOptions options = bundle.getOptions();
        List<String> protocols = (options != null && options.getEnabledProtocols() != null)
                ? List.of(options.getEnabledProtocols()) : List.of();
        List<String> ciphers = (options != null && options.getCiphers() != null) ? List.of(options.getCiphers())
                : List.of();
        String name = (clickHouse.getSsl().getBundle() != null)
                ? "etl.sink.clickhouse.ssl.bundle=" + clickHouse.getSsl().getBundle() : "from its connection details";
        if (clickHouse.getTransport() == EtlClickHouseProperties.Transport.CLIENT_V2) {
            if (clientCertificate) {
                throw new InvalidEtlConfigurationException("The SSL bundle of the ClickHouse sink (" + name + ") has a "
                        + "key store (a client certificate for mutual TLS), but client-v2 inserts cannot present it.",
                        "Set etl.sink.clickhouse.transport=http (raw HTTP inserts present the bundle's client "
                                + "certificate), or use a bundle with a truststore only.");
            }
            if (!protocols.isEmpty() || !ciphers.isEmpty()) {
                throw new InvalidEtlConfigurationException("The SSL bundle of the ClickHouse sink (" + name
                        + ") restricts protocols " + protocols + " / ciphers " + ciphers + ", but client-v2 inserts "
                        + "cannot be restricted.", "Set etl.sink.clickhouse.transport=http, or drop the bundle's "
                                + "options.");
            }
        }
        for (List<URI> shard : shards) {
            for (URI replica : shard) {
                if (!"https".equals(replica.getScheme())) {
                    throw new InvalidEtlConfigurationException("The ClickHouse sink has an SSL bundle (" + name
                            + "), but replica " + replica.getScheme() + "://" + replica.getHost() + ":"
                            + replica.getPort() + " in etl.sink.clickhouse.shards is plain HTTP.",
                            "Use https:// URLs with the servers' https_port for every replica, or remove "
                                    + "etl.sink.clickhouse.ssl.bundle.");
                }
            }
        }
        return ClickHouseTls.of(bundle.createSslContext(), (stores != null) ? stores.getTrustStore() : null,
                clientCertificate, protocols, ciphers);
    }

    private static RowBinaryEncoder<?> encoder(ClickHouseSinkConfig config,
            ObjectProvider<RowBinaryEncoder<?>> encoders) {
        RowBinaryEncoder<?> encoder = encoders.getIfUnique();
        if (encoder != null || config.validation() == ValidationMode.OFF) {
            return encoder;
        }
        long found = encoders.stream().count();
        throw new PipelineAssemblyException("The ClickHouse sink for " + config.qualifiedTable() + " validates the "
                + "table against its encoder's columns (etl.sink.clickhouse.validation=" + config.validation()
                + "), but there " + ((found == 0) ? "is no RowBinaryEncoder bean" : "are " + found
                        + " RowBinaryEncoder beans and none is @Primary") + ".",
                "Declare the sink's RowBinaryEncoder as a @Bean (the sink validates the table against it and writes "
                        + "every row with it; mark one @Primary if there are several), or set "
                        + "etl.sink.clickhouse.validation=off and pass the encoder in the chain.");
    }

}
