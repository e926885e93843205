package dev.etl.autoconfigure.clickhouse;

import dev.etl.clickhouse.ClickHouseSinkConfig;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The configurations of the application's auto-configured ClickHouse sinks, by sink name, in sink order:
 * what {@link ClickHousePlacementEndpoint} checks. Resolved on each call (the sinks' beans are created
 * with the pipeline; nothing is cached here).
 */
final class ClickHouseSinkConfigs {

    private final List<Supplier<Map<String, ClickHouseSinkConfig>>> sources;

    ClickHouseSinkConfigs(List<Supplier<Map<String, ClickHouseSinkConfig>>> sources) {
        this.sources = List.copyOf(sources);
    }

    /** Every sink's configuration, by sink name. */
    Map<String, ClickHouseSinkConfig> all() {
        Map<String, ClickHouseSinkConfig> all = new LinkedHashMap<>();
        this.sources.forEach((source) -> all.putAll(source.get()));
        return all;
    }

    /** The sinks that have a placement check, by sink name. */
    Map<String, ClickHouseSinkConfig> withPlacementCheck() {
        Map<String, ClickHouseSinkConfig> checked = new LinkedHashMap<>();
        all().forEach((name, config) -> {
            if (config.placementCheck() != null) {
                checked.put(name, config);
            }
        });
        return checked;
    }
}
