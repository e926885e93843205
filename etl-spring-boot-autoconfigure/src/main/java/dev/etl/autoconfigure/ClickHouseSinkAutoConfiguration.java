package dev.etl.autoconfigure;

import java.util.List;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.ClickHouseSink;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.clickhouse.ValidationMode;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.sink.BatchConfig;
import dev.etl.sink.RetryConfig;
import dev.etl.sink.SinkDefinition;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * The ClickHouse sink, when {@code etl.sink.clickhouse.table} is set: a {@link SinkDefinition} named
 * {@code etl.sink.clickhouse.name} writing to the shard-local table on every shard. Startup schema
 * validation compares the table with the columns of the application's {@link RowBinaryEncoder} bean
 * (the one its chain uses); with {@code validation=off} no encoder bean is needed.
 */
@AutoConfiguration(before = EtlAutoConfiguration.class)
@ConditionalOnClass(ClickHouseSink.class)
@ConditionalOnBooleanProperty(name = "etl.pipeline.enabled", matchIfMissing = true)
@ConditionalOnProperty("etl.sink.clickhouse.table")
@EnableConfigurationProperties(EtlProperties.class)
public final class ClickHouseSinkAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(ClickHouseConnectionDetails.class)
    PropertiesClickHouseConnectionDetails clickHouseConnectionDetails(EtlProperties properties) {
        return new PropertiesClickHouseConnectionDetails(properties.getSink().getClickhouse());
    }

    @Bean
    @ConditionalOnMissingBean
    ClickHouseSinkConfig etlClickHouseSinkConfig(EtlProperties properties, ClickHouseConnectionDetails connection,
            ObjectProvider<ClickHouseSinkConfigCustomizer> customizers) {
        EtlProperties.ClickHouse clickHouse = properties.getSink().getClickhouse();
        EtlProperties.ClickHouse.Batch batch = clickHouse.getBatch();
        EtlProperties.ClickHouse.Retry retry = clickHouse.getRetry();
        ClickHouseSinkConfig.Builder builder = ClickHouseSinkConfig.builder()
            .table(clickHouse.getDatabase(), clickHouse.getTable())
            .shards(connection.getShards())
            .credentials(connection.getUsername(), connection.getPassword())
            .connectTimeout(clickHouse.getConnectTimeout())
            .socketTimeout(clickHouse.getSocketTimeout())
            .compression(clickHouse.isCompression())
            .transport(ClickHouseSinkConfig.Transport.valueOf(clickHouse.getTransport().name()))
            .breaker(clickHouse.getBreaker().getThreshold(), clickHouse.getBreaker().getOpenTime())
            .validation(ValidationMode.valueOf(clickHouse.getValidation().name()))
            .requireDedup(clickHouse.isRequireDedup())
            .batch(new BatchConfig(batch.getMaxRows(), batch.getMaxBytes().toBytes(), batch.getLinger(),
                    batch.getMaxInFlightPerShard()))
            .retry(new RetryConfig(retry.getMaxAttempts(), retry.getInitialBackoff(), retry.getMaxBackoff(),
                    retry.getMultiplier(), retry.getJitter()));
        clickHouse.getSettings().forEach(builder::setting);
        customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
        return builder.build();
    }

    @Bean
    @ConditionalOnMissingBean(name = "etlClickHouseSink")
    SinkDefinition etlClickHouseSink(ClickHouseSinkConfig config, EtlProperties properties,
            PipelineConfig pipeline, ObjectProvider<RowBinaryEncoder<?>> encoders,
            ObjectProvider<MeterRegistry> meterRegistries) {
        EtlProperties.ClickHouse clickHouse = properties.getSink().getClickhouse();
        MeterRegistry registry = properties.getMetrics().isEnabled() ? meterRegistries.getIfUnique() : null;
        return ClickHouseSink
            .definition(clickHouse.getName(), pipeline.name(), config, columns(config, encoders),
                    (registry != null) ? registry : new SimpleMeterRegistry(), ClickHouseSink.transport(config))
            .withQueueCapacity(clickHouse.getQueueCapacity())
            .withPermanentFailure(clickHouse.getPermanentFailure());
    }

    private static List<ClickHouseColumn> columns(ClickHouseSinkConfig config,
            ObjectProvider<RowBinaryEncoder<?>> encoders) {
        RowBinaryEncoder<?> encoder = encoders.getIfUnique();
        if (encoder != null) {
            return encoder.columns();
        }
        if (config.validation() == ValidationMode.OFF) {
            return List.of();
        }
        long found = encoders.stream().count();
        throw new PipelineAssemblyException("The ClickHouse sink for " + config.qualifiedTable() + " validates the "
                + "table against the encoder's columns (etl.sink.clickhouse.validation=" + config.validation()
                + "), but there " + ((found == 0) ? "is no RowBinaryEncoder bean" : "are " + found
                        + " RowBinaryEncoder beans and none is @Primary") + ".",
                "Declare the RowBinaryEncoder your chain uses as a @Bean (mark one @Primary if there are several), "
                        + "or set etl.sink.clickhouse.validation=off.");
    }

}
