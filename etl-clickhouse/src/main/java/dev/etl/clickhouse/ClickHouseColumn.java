package dev.etl.clickhouse;

import java.util.Objects;

/**
 * One column of a ClickHouse table as the sink writes it: its name and its ClickHouse type string
 * (e.g. {@code Decimal(18, 2)}, {@code Array(Nullable(String))}).
 *
 * @param name column name as in {@code system.columns}
 * @param type ClickHouse type, spelled as the server spells it
 */
public record ClickHouseColumn(String name, String type) {
    public ClickHouseColumn {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("column name must not be empty");
        }
    }

    @Override
    public String toString() {
        return name + " " + type;
    }
}
