package dev.etl.autoconfigure.clickhouse;

import dev.etl.autoconfigure.InvalidEtlConfigurationException;
import dev.etl.autoconfigure.PipelineAssemblyException;
import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.ClickHouseSink;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.ClickHouseTls;
import dev.etl.clickhouse.ColumnLayouts;
import dev.etl.clickhouse.InsertFormat;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.clickhouse.UnsupportedNativeTypeException;
import dev.etl.sink.BatchConfig;
import dev.etl.sink.ChunkConfig;
import dev.etl.sink.RetryConfig;
import dev.etl.sink.SinkDefinition;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.util.List;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslOptions;
import org.springframework.boot.ssl.SslStoreBundle;

/**
 * {@code etl.sink.clickhouse.*} to the connector's types, for the {@code table} sink and the named
 * tables alike: what every ClickHouse sink shares (the connection and the settings of
 * {@code etl.sink.clickhouse}), the batch settings, and the {@link SinkDefinition}.
 */
final class ClickHouseSinkMapping {

    private ClickHouseSinkMapping() {}

    /**
     * A builder with what every ClickHouse sink of the application shares: shards, credentials and TLS
     * (the connection details' SSL bundle, {@code etl.sink.clickhouse.ssl.bundle}) from the connection
     * details, timeouts, compression, transport, breaker, retries, deterministic blocks, rejection codes
     * and server settings. The table, validation, dedup requirement, batch and placement are the caller's.
     */
    static ClickHouseSinkConfig.Builder shared(
            EtlClickHouseProperties clickHouse, ClickHouseConnectionDetails connection) {
        ClickHouseRetryProperties retry = clickHouse.getRetry();
        ClickHouseSinkConfig.Builder builder = ClickHouseSinkConfig.builder()
                .shards(connection.getShards())
                .credentials(connection.getUsername(), connection.getPassword())
                .tls(tls(connection.getSslBundle(), connection.getShards(), clickHouse))
                .connectTimeout(clickHouse.getConnectTimeout())
                .socketTimeout(clickHouse.getSocketTimeout())
                .compression(clickHouse.isCompression())
                .transport(ClickHouseSinkConfig.Transport.valueOf(
                        clickHouse.getTransport().name()))
                .format(InsertFormat.valueOf(clickHouse.getFormat().name()))
                .breaker(
                        clickHouse.getBreaker().getThreshold(),
                        clickHouse.getBreaker().getOpenTime())
                .deterministicBlocks(clickHouse.isDeterministicBlocks())
                .writersPerShard(clickHouse.getWritersPerShard())
                .rejectionCodes(clickHouse.getRejectionCodes())
                .retry(new RetryConfig(
                        retry.getMaxAttempts(),
                        retry.getInitialBackoff(),
                        retry.getMaxBackoff(),
                        retry.getMultiplier(),
                        retry.getJitter()));
        clickHouse.getSettings().forEach(builder::setting);
        return builder;
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
                ? List.of(options.getEnabledProtocols())
                : List.of();
        List<String> ciphers =
                (options != null && options.getCiphers() != null) ? List.of(options.getCiphers()) : List.of();
        String name = (clickHouse.getSsl().getBundle() != null)
                ? "etl.sink.clickhouse.ssl.bundle=" + clickHouse.getSsl().getBundle()
                : "from its connection details";
        if (clickHouse.getTransport() == EtlClickHouseProperties.Transport.CLIENT_V2) {
            if (clientCertificate) {
                throw new InvalidEtlConfigurationException(
                        "The SSL bundle of the ClickHouse sink (" + name + ") has a "
                                + "key store (a client certificate for mutual TLS), but client-v2 inserts cannot present it.",
                        "Set etl.sink.clickhouse.transport=http (raw HTTP inserts present the bundle's client "
                                + "certificate), or use a bundle with a truststore only.");
            }
            if (!protocols.isEmpty() || !ciphers.isEmpty()) {
                throw new InvalidEtlConfigurationException(
                        "The SSL bundle of the ClickHouse sink (" + name
                                + ") restricts protocols " + protocols + " / ciphers " + ciphers
                                + ", but client-v2 inserts "
                                + "cannot be restricted.",
                        "Set etl.sink.clickhouse.transport=http, or drop the bundle's " + "options.");
            }
        }
        for (List<URI> shard : shards) {
            for (URI replica : shard) {
                if (!"https".equals(replica.getScheme())) {
                    throw new InvalidEtlConfigurationException(
                            "The ClickHouse sink has an SSL bundle (" + name
                                    + "), but replica " + replica.getScheme() + "://" + replica.getHost() + ":"
                                    + replica.getPort() + " in etl.sink.clickhouse.shards is plain HTTP.",
                            "Use https:// URLs with the servers' https_port for every replica, or remove "
                                    + "etl.sink.clickhouse.ssl.bundle.");
                }
            }
        }
        return ClickHouseTls.of(
                bundle.createSslContext(),
                (stores != null) ? stores.getTrustStore() : null,
                clientCertificate,
                protocols,
                ciphers);
    }

    /** {@code etl.sink.clickhouse.batch.*}. */
    static BatchConfig batch(ClickHouseBatchProperties batch) {
        return new BatchConfig(batch.getMaxRows(), batch.getMaxBytes().toBytes(), batch.getLinger());
    }

    /** A named table's {@code batch.*}, each unset value from {@code etl.sink.clickhouse.batch.*}. */
    static BatchConfig batch(ClickHouseTableProperties.Batch table, ClickHouseBatchProperties shared) {
        return new BatchConfig(
                (table.getMaxRows() != null) ? table.getMaxRows() : shared.getMaxRows(),
                ((table.getMaxBytes() != null) ? table.getMaxBytes() : shared.getMaxBytes()).toBytes(),
                (table.getLinger() != null) ? table.getLinger() : shared.getLinger());
    }

    /**
     * The sink {@code name} over {@code config}, validated against {@code encoder}'s columns and written
     * with it (none: chains pass their encoder), with the shared chunk size, queue capacity and
     * permanent-failure policy.
     */
    static SinkDefinition definition(
            String name,
            String pipeline,
            ClickHouseSinkConfig config,
            EtlClickHouseProperties clickHouse,
            RowBinaryEncoder<?> encoder,
            MeterRegistry registry) {
        List<ClickHouseColumn> columns = (encoder != null) ? encoder.columns() : List.of();
        return definition(name, pipeline, config, clickHouse, columns, encoder, registry);
    }

    /**
     * A sink validated against {@code columns}, with {@code encoder} as its own (or none: the chains pass
     * theirs, e.g. the Avro transcoder for the columns of a {@link ClickHouseSinkColumns} bean).
     */
    static SinkDefinition definition(
            String name,
            String pipeline,
            ClickHouseSinkConfig config,
            EtlClickHouseProperties clickHouse,
            List<ClickHouseColumn> columns,
            RowBinaryEncoder<?> encoder,
            MeterRegistry registry) {
        return tuned(nativeChecked(name, pipeline, config, columns, registry), clickHouse)
                .encoder(encoder)
                .build();
    }

    /** {@code sink} with the shared chunk size, queue capacity and permanent-failure policy. */
    private static SinkDefinition.Builder tuned(SinkDefinition sink, EtlClickHouseProperties clickHouse) {
        return sink.toBuilder()
                .chunks(new ChunkConfig(clickHouse.getChunk().getMaxRows(), (int)
                        clickHouse.getChunk().getMaxBytes().toBytes()))
                .queueCapacity(clickHouse.getQueueCapacity())
                .permanentFailure(clickHouse.getPermanentFailure());
    }

    /**
     * A sink whose rows carry their column layout ({@link ClickHouseTableRows#layouts()}): validated against
     * layout 0, each batch inserted with its layout's columns; the chains pass the encoders.
     */
    static SinkDefinition definition(
            String name,
            String pipeline,
            ClickHouseSinkConfig config,
            EtlClickHouseProperties clickHouse,
            ColumnLayouts layouts,
            MeterRegistry registry) {
        SinkDefinition sink;
        try {
            sink = ClickHouseSink.definition(name, pipeline, config, layouts, registry);
        } catch (UnsupportedNativeTypeException ex) {
            throw new PipelineAssemblyException(
                    "The ClickHouse sink '" + name + "' for " + config.qualifiedTable()
                            + " sends Native blocks (etl.sink.clickhouse.format=native), but " + ex.getMessage(),
                    "Set etl.sink.clickhouse.format=row-binary (every column type can be sent as RowBinary).");
        }
        return tuned(sink, clickHouse).build();
    }

    /** The sink of a table with a {@code from}: with its layouts when its columns can change, else its columns. */
    static SinkDefinition definition(
            String name,
            String pipeline,
            ClickHouseSinkConfig config,
            EtlClickHouseProperties clickHouse,
            ClickHouseTableRows rows,
            MeterRegistry registry) {
        ColumnLayouts layouts = rows.layouts();
        if (layouts != null) {
            return definition(name, pipeline, config, clickHouse, layouts, registry);
        }
        return definition(name, pipeline, config, clickHouse, rows.columns(), null, registry);
    }

    private static SinkDefinition nativeChecked(
            String name,
            String pipeline,
            ClickHouseSinkConfig config,
            List<ClickHouseColumn> columns,
            MeterRegistry registry) {
        try {
            return ClickHouseSink.definition(name, pipeline, config, columns, registry);
        } catch (UnsupportedNativeTypeException ex) {
            throw new PipelineAssemblyException(
                    "The ClickHouse sink '" + name + "' for " + config.qualifiedTable()
                            + " sends Native blocks (etl.sink.clickhouse.format=native), built from its RowBinaryEncoder's "
                            + "columns, but " + ex.getMessage(),
                    (ex.column() != null)
                            ? "Set etl.sink.clickhouse.format=row-binary (every column type can be "
                                    + "sent as RowBinary), or change the type of column '" + ex.column() + "'."
                            : "Declare the sink's RowBinaryEncoder as a @Bean, or set "
                                    + "etl.sink.clickhouse.format=row-binary.");
        }
    }
}
