package dev.etl.autoconfigure.clickhouse;

import dev.etl.autoconfigure.EtlAutoConfiguration;
import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.ClickHouseSink;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.ClickHouseTableSchema;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.clickhouse.ValidationMode;
import dev.etl.clickhouse.sharding.DistributedPlacement;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.sink.SinkDefinition;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;

/**
 * The ClickHouse sinks: when {@code etl.sink.clickhouse.table} is set, a {@link SinkDefinition} named
 * {@code etl.sink.clickhouse.name} writing to that shard-local table on every shard; and for each named
 * table {@code etl.sink.clickhouse.tables.<name>}, a sink named {@code <name>} over the same connection
 * ({@link ClickHouseTablesRegistrar}, {@link ClickHouseTables}).
 *
 * <p>TLS: {@code https://} replicas are verified against the SSL bundle named by
 * {@code etl.sink.clickhouse.ssl.bundle} ({@code spring.ssl.bundle.*}, or the connection details' bundle),
 * for both transports, or against the JVM's trust store without one.
 *
 * <p>A {@link RowBinaryEncoder} bean is each sink's one encoder declaration: startup validation compares
 * its columns with the table, and the sink writes every row with it, so chains end in
 * {@code .sink(router)} or {@code .sink(name, router)}. A named table's encoder is the bean qualified with
 * its name; the {@code table} sink's is the one (or the {@code @Primary} one) of the others. With
 * validation {@code off} and no encoder bean, chains pass their encoder (not with {@code format=native}:
 * its blocks are built from the encoder bean's column types). Without an encoder bean, a
 * {@link ClickHouseSinkColumns} bean (the Avro transcoder's auto-configuration declares one from the
 * application's {@code AvroRowMapping}) names the {@code table} sink's columns to validate, and chains pass
 * the encoder that writes them.
 *
 * <p>A table with {@code from.topic} ({@code etl.sink.clickhouse.from.*}, {@code tables.<name>.from.*}) is a
 * pipeline from YAML alone ({@link ClickHouseTablePipelines}): its sink is validated against the columns
 * derived from the table and the topic's schema, has no encoder of its own, and a {@code ChainFactory} per
 * topic writes it.
 *
 * <p>With {@code etl.sink.clickhouse.placement.distributed-table}, a {@link DistributedPlacement} bean
 * ({@code etlClickHousePlacement}) holds the placement the properties declare, for the chain's
 * {@code DistributedRouter}, and the sink checks it against the Distributed table at startup; a named
 * table's ({@code tables.<name>.placement.*}) is qualified with its name.
 */
@AutoConfiguration(
        before = EtlAutoConfiguration.class,
        afterName = "org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration")
@ConditionalOnClass(ClickHouseSink.class)
@ConditionalOnBooleanProperty(name = "etl.pipeline.enabled", matchIfMissing = true)
@Conditional(OnClickHouseSinkCondition.class)
@EnableConfigurationProperties(EtlClickHouseProperties.class)
@Import(ClickHouseTablesRegistrar.class)
public final class ClickHouseSinkAutoConfiguration {

    private static final Logger logger = LoggerFactory.getLogger(ClickHouseSinkAutoConfiguration.class);

    @Bean
    @ConditionalOnMissingBean(ClickHouseConnectionDetails.class)
    PropertiesClickHouseConnectionDetails clickHouseConnectionDetails(
            EtlClickHouseProperties properties, ObjectProvider<SslBundles> sslBundles) {
        return new PropertiesClickHouseConnectionDetails(properties, sslBundles.getIfAvailable());
    }

    /** Finds each sink's RowBinaryEncoder bean. */
    @Bean
    ClickHouseEncoders etlClickHouseEncoders(ListableBeanFactory beanFactory, EtlClickHouseProperties clickHouse) {
        return new ClickHouseEncoders(beanFactory, clickHouse.getTables().keySet());
    }

    /**
     * The placement {@code etl.sink.clickhouse.placement.*} declares, to route with
     * ({@code DistributedRouter.byLong(placement, Row::id)}) and to check against the Distributed table.
     */
    @Bean
    @ConditionalOnProperty(
            prefix = "etl.sink.clickhouse",
            name = {"table", "placement.distributed-table"})
    DistributedPlacement etlClickHousePlacement(
            EtlClickHouseProperties clickHouse, ClickHouseConnectionDetails connection, ClickHouseEncoders encoders) {
        RowBinaryEncoder<?> encoder = encoders.singleOrNull();
        return ClickHousePlacementMapping.placement(
                clickHouse.getPlacement(),
                "etl.sink.clickhouse.placement",
                connection.getShards().size(),
                (encoder != null) ? encoder.columns() : List.of());
    }

    @Bean
    @ConditionalOnProperty("etl.sink.clickhouse.table")
    @ConditionalOnMissingBean
    ClickHouseSinkConfig etlClickHouseSinkConfig(
            EtlClickHouseProperties clickHouse,
            ClickHouseConnectionDetails connection,
            ObjectProvider<ClickHouseSinkConfigCustomizer> customizers,
            @Qualifier("etlClickHousePlacement") ObjectProvider<DistributedPlacement> placement) {
        ClickHouseSinkConfig.Builder builder = ClickHouseSinkMapping.shared(clickHouse, connection)
                .table(clickHouse.getDatabase(), clickHouse.getTable())
                .validation(ValidationMode.valueOf(clickHouse.getValidation().name()))
                .requireDedup(clickHouse.isRequireDedup())
                .batch(ClickHouseSinkMapping.batch(clickHouse.getBatch()));
        DistributedPlacement declared = placement.getIfAvailable();
        if (declared != null) {
            builder.placementCheck(
                    ClickHousePlacementMapping.check(clickHouse.getPlacement(), clickHouse.getDatabase(), declared));
        }
        customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
        return builder.build();
    }

    @Bean
    @ConditionalOnProperty("etl.sink.clickhouse.table")
    @ConditionalOnMissingBean(name = "etlClickHouseSink")
    SinkDefinition etlClickHouseSink(
            ClickHouseSinkConfig config,
            EtlClickHouseProperties clickHouse,
            PipelineConfig pipeline,
            ClickHouseEncoders encoders,
            ClickHouseTablePipelines pipelines,
            ObjectProvider<ClickHouseSinkColumns> sinkColumns,
            ObjectProvider<MeterRegistry> meterRegistries) {
        MeterRegistry registry = meterRegistries.getIfUnique();
        ClickHouseTableRows rows = pipelines.rows(clickHouse.getName());
        if (rows != null) {
            return ClickHouseSinkMapping.definition(
                    clickHouse.getName(),
                    pipeline.name(),
                    config,
                    clickHouse,
                    rows,
                    (registry != null) ? registry : new SimpleMeterRegistry());
        }
        ClickHouseSinkColumns declared =
                (rows != null) ? new ClickHouseSinkColumns(rows.columns()) : sinkColumns.getIfUnique();
        RowBinaryEncoder<?> encoder =
                (rows != null) ? null : (declared != null) ? encoders.singleOrNull() : encoders.single(config);
        List<ClickHouseColumn> columns =
                (encoder != null) ? encoder.columns() : (declared != null) ? declared.columns() : List.of();
        return ClickHouseSinkMapping.definition(
                clickHouse.getName(),
                pipeline.name(),
                config,
                clickHouse,
                columns,
                encoder,
                (registry != null) ? registry : new SimpleMeterRegistry());
    }

    /** How the pipelines of tables with a {@code from} read the table's columns: from a replica. */
    @Bean
    @ConditionalOnMissingBean
    ClickHouseTablePipelines.SchemaReader etlClickHouseTableSchemaReader() {
        return ClickHouseTableSchema::read;
    }

    /**
     * The pipelines of the tables with a {@code from}: their rows, and a chain factory per topic
     * ({@link ClickHouseTablesRegistrar} defines those beans).
     */
    @Bean(ClickHouseTablePipelines.BEAN)
    ClickHouseTablePipelines etlClickHouseTablePipelines(
            EtlClickHouseProperties clickHouse,
            Environment environment,
            ObjectProvider<ClickHouseSinkConfig> singleConfig,
            ObjectProvider<ClickHouseTables> tables,
            ObjectProvider<ClickHouseTableRows.Factory> factories,
            ObjectProvider<MeterRegistry> meterRegistries,
            ClickHouseTablePipelines.SchemaReader schemas) {
        return new ClickHouseTablePipelines(
                clickHouse, environment, singleConfig, tables, factories, meterRegistries, schemas);
    }

    /** The factory of the named tables' beans (see {@link ClickHouseTablesRegistrar}). */
    @Bean(ClickHouseTablesRegistrar.FACTORY)
    ClickHouseTables etlClickHouseTables(
            EtlClickHouseProperties clickHouse,
            ClickHouseConnectionDetails connection,
            ObjectProvider<PipelineConfig> pipeline,
            ObjectProvider<ClickHouseSinkConfigCustomizer> customizers,
            ObjectProvider<MeterRegistry> meterRegistries,
            ClickHouseEncoders encoders,
            ObjectProvider<ClickHouseTablePipelines> pipelines) {
        return new ClickHouseTables(
                clickHouse, connection, pipeline, customizers, meterRegistries, encoders, pipelines);
    }

    /**
     * The sinks' configurations for the etlplacement endpoint. Built once per context, so it is also where
     * the connection's credentials over plain {@code http://} are warned about, once.
     */
    @Bean
    ClickHouseSinkConfigs etlClickHouseSinkConfigs(
            EtlClickHouseProperties clickHouse,
            ObjectProvider<ClickHouseSinkConfig> config,
            ClickHouseTables tables,
            ClickHouseConnectionDetails connection) {
        warnOfPlaintextCredentials(connection);
        return new ClickHouseSinkConfigs(List.of(
                () -> {
                    ClickHouseSinkConfig single = (clickHouse.getTable() != null) ? config.getIfUnique() : null;
                    return (single != null) ? Map.of(clickHouse.getName(), single) : Map.of();
                },
                tables::configs));
    }

    /**
     * One WARN when the connection sends a password to a replica over plain {@code http://}: the basic-auth
     * header is readable by anyone on the network path. Names the replicas and the user, never the password.
     */
    static void warnOfPlaintextCredentials(ClickHouseConnectionDetails connection) {
        String password = connection.getPassword();
        if (password == null || password.isEmpty()) {
            return;
        }
        List<String> plain = connection.getShards().stream()
                .flatMap(List::stream)
                .filter((uri) -> "http".equalsIgnoreCase(uri.getScheme()))
                .map((uri) -> uri.getScheme() + "://" + uri.getHost() + ":" + uri.getPort())
                .toList();
        if (!plain.isEmpty()) {
            logger.warn(
                    "ClickHouse: the password of user '{}' is sent over plain http:// to {}, readable by anyone on "
                            + "the network path; use https:// replicas (the server's https_port; docs/guides/securing.md)",
                    connection.getUsername(),
                    plain);
        }
    }
}
