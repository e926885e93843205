package dev.etl.autoconfigure.json.clickhouse;

import dev.etl.autoconfigure.InvalidEtlConfigurationException;
import dev.etl.autoconfigure.clickhouse.ClickHouseTableRows;
import dev.etl.autoconfigure.clickhouse.ClickHouseTableSourceProperties;
import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.ClickHouseTableSchema;
import dev.etl.json.clickhouse.JsonMappingException;
import dev.etl.json.clickhouse.JsonRowTranscoder;
import dev.etl.sink.KeyHashRouter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The rows of a table whose {@code from.format} is {@code json}: one row per JSON object, each column from
 * the field of its name or its {@code from.columns} path (dotted through nested objects), columns with a
 * {@code DEFAULT} and no override left to the server, routed by the record's key. {@code explode},
 * {@code index}, {@code shard-key}, {@code drop-when} and {@code keep-when} are Avro's only for now and
 * fail startup.
 */
final class JsonTableRowsFactory implements ClickHouseTableRows.Factory {

    @Override
    public ClickHouseTableSourceProperties.Format format() {
        return ClickHouseTableSourceProperties.Format.JSON;
    }

    @Override
    public ClickHouseTableRows create(
            String property, ClickHouseTableSourceProperties from, ClickHouseTableSchema table) {
        List<String> unsupported = new ArrayList<>();
        if (from.getExplode() != null) {
            unsupported.add(property + ".explode");
        }
        if (from.getIndex() != null) {
            unsupported.add(property + ".index");
        }
        if (from.getShardKey() != null) {
            unsupported.add(property + ".shard-key");
        }
        if (!from.getDropWhen().isEmpty()) {
            unsupported.add(property + ".drop-when");
        }
        if (!from.getKeepWhen().isEmpty()) {
            unsupported.add(property + ".keep-when");
        }
        if (!unsupported.isEmpty()) {
            throw new InvalidEtlConfigurationException(
                    property + ".format=json writes one row per JSON object by column name; " + unsupported
                            + " are not supported for JSON topics.",
                    "Remove " + unsupported + ", or write the topic as Avro, or write the chain in code.");
        }
        JsonRowTranscoder.Builder builder = JsonRowTranscoder.builder(table).serverDefaults();
        List<String> problems = new ArrayList<>();
        from.getColumns().forEach((column, path) -> {
            try {
                builder.field(column, path);
            } catch (JsonMappingException ex) {
                problems.add(property + ".columns." + column + "=" + path + ": " + ex.getMessage());
            }
        });
        List<ClickHouseColumn> columns = List.of();
        if (problems.isEmpty()) {
            try {
                columns = builder.columns();
            } catch (JsonMappingException ex) {
                problems.add(ex.getMessage());
            }
        }
        if (!problems.isEmpty()) {
            throw new InvalidEtlConfigurationException(
                    property + ": the columns of the table cannot be read from topic " + from.getTopic()
                            + "'s JSON (" + problems.size() + (problems.size() == 1 ? " problem):" : " problems):")
                            + "\n  - " + String.join("\n  - ", problems),
                    "Correct the column names the message quotes, or map each listed column to a JSON field with "
                            + property + ".columns.<column>: <field path>.");
        }
        Map<String, String> sources = new LinkedHashMap<>();
        for (ClickHouseColumn column : columns) {
            sources.put(column.name(), from.getColumns().getOrDefault(column.name(), column.name()));
        }
        List<ClickHouseColumn> insert = columns;
        return new ClickHouseTableRows() {
            @Override
            public List<ClickHouseColumn> columns() {
                return insert;
            }

            @Override
            public Lane lane() {
                return new Lane(builder.build(), KeyHashRouter.byRecordKey());
            }

            @Override
            public Map<String, String> sources() {
                return sources;
            }

            /** JSON has no schema: fields no column reads are skipped per message, not known at startup. */
            @Override
            public List<String> unstoredFields() {
                return List.of();
            }
        };
    }
}
