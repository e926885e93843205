package dev.etl.autoconfigure.json.clickhouse;

import dev.etl.autoconfigure.clickhouse.ClickHouseSinkAutoConfiguration;
import dev.etl.autoconfigure.clickhouse.ClickHouseTableRows;
import dev.etl.json.clickhouse.JsonRowTranscoder;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * JSON topics into tables from YAML alone: the {@link ClickHouseTableRows.Factory} of
 * {@code from.format=json}, which maps each column to the JSON field of its name (or its
 * {@code from.columns} override) with the {@link JsonRowTranscoder}, when etl-json-clickhouse is on the class
 * path.
 */
@AutoConfiguration(before = ClickHouseSinkAutoConfiguration.class)
@ConditionalOnClass({JsonRowTranscoder.class, ClickHouseTableRows.class})
public final class JsonTablePipelineAutoConfiguration {

    @Bean
    JsonTableRowsFactory etlJsonTableRows() {
        return new JsonTableRowsFactory();
    }
}
