package dev.etl.autoconfigure.clickhouse;

import dev.etl.clickhouse.ClickHouseSinkConfig;

/**
 * Callback to customize the ClickHouse sink's settings after they were mapped from
 * {@code etl.sink.clickhouse.*} and the {@link ClickHouseConnectionDetails}. Applied in
 * {@link org.springframework.core.Ordered order}.
 */
@FunctionalInterface
public interface ClickHouseSinkConfigCustomizer {

    /**
     * Customizes the builder.
     * @param builder the builder, holding the mapped settings
     */
    void customize(ClickHouseSinkConfig.Builder builder);
}
