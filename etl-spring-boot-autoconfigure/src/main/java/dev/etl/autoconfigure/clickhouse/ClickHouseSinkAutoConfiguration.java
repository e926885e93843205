package dev.etl.autoconfigure.clickhouse;

import java.util.List;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

import dev.etl.autoconfigure.EtlAutoConfiguration;
import dev.etl.autoconfigure.PipelineAssemblyException;
import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.ClickHouseSink;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.InsertFormat;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.clickhouse.UnsupportedNativeTypeException;
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
 * <p>The application's {@link RowBinaryEncoder} bean is the sink's one encoder declaration: startup
 * validation compares its columns with the table, and the sink writes every row with it, so chains end
 * in {@code .sink(router)}. With {@code validation=off} and no encoder bean, chains pass their encoder
 * (not with {@code format=native}: its blocks are built from the encoder bean's column types).
 */
@AutoConfiguration(before = EtlAutoConfiguration.class)
@ConditionalOnClass(ClickHouseSink.class)
@ConditionalOnBooleanProperty(name = "etl.pipeline.enabled", matchIfMissing = true)
@ConditionalOnProperty("etl.sink.clickhouse.table")
@EnableConfigurationProperties(EtlClickHouseProperties.class)
public final class ClickHouseSinkAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(ClickHouseConnectionDetails.class)
    PropertiesClickHouseConnectionDetails clickHouseConnectionDetails(EtlClickHouseProperties properties) {
        return new PropertiesClickHouseConnectionDetails(properties);
    }

    @Bean
    @ConditionalOnMissingBean
    ClickHouseSinkConfig etlClickHouseSinkConfig(EtlClickHouseProperties clickHouse,
            ClickHouseConnectionDetails connection, ObjectProvider<ClickHouseSinkConfigCustomizer> customizers) {
        ClickHouseBatchProperties batch = clickHouse.getBatch();
        ClickHouseRetryProperties retry = clickHouse.getRetry();
        ClickHouseSinkConfig.Builder builder = ClickHouseSinkConfig.builder()
            .table(clickHouse.getDatabase(), clickHouse.getTable())
            .shards(connection.getShards())
            .credentials(connection.getUsername(), connection.getPassword())
            .connectTimeout(clickHouse.getConnectTimeout())
            .socketTimeout(clickHouse.getSocketTimeout())
            .compression(clickHouse.isCompression())
            .transport(ClickHouseSinkConfig.Transport.valueOf(clickHouse.getTransport().name()))
            .format(InsertFormat.valueOf(clickHouse.getFormat().name()))
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
        SinkDefinition definition = definition(config, clickHouse, pipeline, columns, registry)
            .withChunks(new ChunkConfig(clickHouse.getChunk().getMaxRows(),
                    (int) clickHouse.getChunk().getMaxBytes().toBytes()))
            .withQueueCapacity(clickHouse.getQueueCapacity())
            .withPermanentFailure(clickHouse.getPermanentFailure());
        return (encoder != null) ? definition.withEncoder(encoder) : definition;
    }

    private static SinkDefinition definition(ClickHouseSinkConfig config, EtlClickHouseProperties clickHouse,
            PipelineConfig pipeline, List<ClickHouseColumn> columns, MeterRegistry registry) {
        try {
            return ClickHouseSink.definition(clickHouse.getName(), pipeline.name(), config, columns,
                    (registry != null) ? registry : new SimpleMeterRegistry());
        }
        catch (UnsupportedNativeTypeException ex) {
            throw new PipelineAssemblyException("The ClickHouse sink for " + config.qualifiedTable()
                    + " sends Native blocks (etl.sink.clickhouse.format=native), built from its RowBinaryEncoder's "
                    + "columns, but " + ex.getMessage(),
                    (ex.column() != null) ? "Set etl.sink.clickhouse.format=row-binary (every column type can be "
                            + "sent as RowBinary), or change the type of column '" + ex.column() + "'."
                            : "Declare the sink's RowBinaryEncoder as a @Bean, or set "
                                    + "etl.sink.clickhouse.format=row-binary.");
        }
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
