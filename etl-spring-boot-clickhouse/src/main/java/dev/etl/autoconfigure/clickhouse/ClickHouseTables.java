package dev.etl.autoconfigure.clickhouse;

import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.clickhouse.ValidationMode;
import dev.etl.clickhouse.sharding.DistributedPlacement;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.sink.SinkDefinition;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.beans.factory.ObjectProvider;

/**
 * The named tables of {@code etl.sink.clickhouse.tables.*}: the factory of each table's beans, which
 * {@link ClickHouseTablesRegistrar} defines (a {@link SinkDefinition} {@code etlClickHouseSink.<name>},
 * and with a placement a {@link DistributedPlacement} {@code etlClickHousePlacement.<name>} qualified
 * {@code <name>}). A table's configuration is built once: the shared connection and settings, then the
 * table's own properties, then the {@link ClickHouseSinkConfigCustomizer}s.
 */
final class ClickHouseTables {

    private final EtlClickHouseProperties clickHouse;

    private final ClickHouseConnectionDetails connection;

    private final ObjectProvider<PipelineConfig> pipeline;

    private final ObjectProvider<ClickHouseSinkConfigCustomizer> customizers;

    private final ObjectProvider<MeterRegistry> registries;

    private final ClickHouseEncoders encoders;

    private final ObjectProvider<ClickHouseTablePipelines> pipelines;

    private final Map<String, ClickHouseSinkConfig> configs = new ConcurrentHashMap<>();

    private final Map<String, DistributedPlacement> placements = new ConcurrentHashMap<>();

    ClickHouseTables(
            EtlClickHouseProperties clickHouse,
            ClickHouseConnectionDetails connection,
            ObjectProvider<PipelineConfig> pipeline,
            ObjectProvider<ClickHouseSinkConfigCustomizer> customizers,
            ObjectProvider<MeterRegistry> registries,
            ClickHouseEncoders encoders,
            ObjectProvider<ClickHouseTablePipelines> pipelines) {
        this.clickHouse = clickHouse;
        this.connection = connection;
        this.pipeline = pipeline;
        this.customizers = customizers;
        this.registries = registries;
        this.encoders = encoders;
        this.pipelines = pipelines;
    }

    /** The sink of table {@code name}. */
    SinkDefinition sink(String name) {
        ClickHouseSinkConfig config = config(name);
        MeterRegistry registry = this.registries.getIfUnique();
        MeterRegistry meters = (registry != null) ? registry : new SimpleMeterRegistry();
        String pipelineName = this.pipeline.getObject().name();
        if (table(name).getFrom().isConfigured()) {
            // the rows come from the derived pipeline: validated against its columns, chains pass its encoders
            ClickHouseTableRows rows = this.pipelines.getObject().rows(name);
            return ClickHouseSinkMapping.definition(name, pipelineName, config, this.clickHouse, rows, meters);
        }
        return ClickHouseSinkMapping.definition(
                name, pipelineName, config, this.clickHouse, this.encoders.table(name, config), meters);
    }

    /** The placement {@code tables.<name>.placement.*} declares. */
    DistributedPlacement placement(String name) {
        return this.placements.computeIfAbsent(name, (key) -> {
            ClickHouseTableProperties table = table(key);
            RowBinaryEncoder<?> encoder = this.encoders.table(key, config(key, false));
            return ClickHousePlacementMapping.placement(
                    table.getPlacement(),
                    "etl.sink.clickhouse.tables." + key + ".placement",
                    this.connection.getShards().size(),
                    (encoder != null) ? encoder.columns() : List.of());
        });
    }

    /** Every table's configuration, by sink name, in declaration order. */
    Map<String, ClickHouseSinkConfig> configs() {
        Map<String, ClickHouseSinkConfig> all = new LinkedHashMap<>();
        this.clickHouse.getTables().keySet().forEach((name) -> all.put(name, config(name)));
        return all;
    }

    /** Table {@code name}'s configuration: shared settings, its own, then the customizers. */
    ClickHouseSinkConfig config(String name) {
        return this.configs.computeIfAbsent(name, (key) -> config(key, true));
    }

    private ClickHouseSinkConfig config(String name, boolean withPlacement) {
        ClickHouseTableProperties table = table(name);
        String database = (table.getDatabase() != null) ? table.getDatabase() : this.clickHouse.getDatabase();
        EtlClickHouseProperties.ValidationMode validation =
                (table.getValidation() != null) ? table.getValidation() : this.clickHouse.getValidation();
        ClickHouseSinkConfig.Builder builder = ClickHouseSinkMapping.shared(this.clickHouse, this.connection)
                .table(database, table.getTable())
                .validation(ValidationMode.valueOf(validation.name()))
                .requireDedup(
                        (table.getRequireDedup() != null) ? table.getRequireDedup() : this.clickHouse.isRequireDedup())
                .batch(ClickHouseSinkMapping.batch(table.getBatch(), this.clickHouse.getBatch()));
        if (withPlacement && table.getPlacement().isConfigured()) {
            builder.placementCheck(ClickHousePlacementMapping.check(table.getPlacement(), database, placement(name)));
        }
        this.customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
        return builder.build();
    }

    private ClickHouseTableProperties table(String name) {
        ClickHouseTableProperties table = this.clickHouse.getTables().get(name);
        if (table == null) {
            throw new IllegalStateException("no table etl.sink.clickhouse.tables." + name);
        }
        return table;
    }
}
