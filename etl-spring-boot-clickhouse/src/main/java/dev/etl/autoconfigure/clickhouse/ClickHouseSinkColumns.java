package dev.etl.autoconfigure.clickhouse;

import dev.etl.clickhouse.ClickHouseColumn;
import java.util.List;
import java.util.Objects;

/**
 * The columns the auto-configured ClickHouse sink validates its table against when no
 * {@code RowBinaryEncoder} bean writes its rows: the chains pass the encoder that writes these columns
 * (for example an {@code AvroRowTranscoder}, whose auto-configuration declares this bean from the
 * application's {@code AvroRowMapping}). The sink then has no encoder of its own.
 *
 * @param columns the table's columns in wire order, with their ClickHouse types
 */
public record ClickHouseSinkColumns(List<ClickHouseColumn> columns) {
    public ClickHouseSinkColumns {
        columns = List.copyOf(Objects.requireNonNull(columns, "columns"));
    }
}
