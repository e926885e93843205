package dev.etl.clickhouse;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A table's columns as {@code system.columns} describes them, seen from an insert: the columns an insert
 * may carry, in table order ({@code MATERIALIZED} and {@code ALIAS} columns excluded: an insert never
 * carries them), and which of those have a {@code DEFAULT} expression, so that an insert with an explicit
 * column list may leave them to the server. What a mapping derived by column name is derived from.
 *
 * <p>Immutable.
 */
public final class ClickHouseTableSchema {
    private final List<ClickHouseColumn> insertable;
    private final Set<String> withDefault;
    private final Map<String, ClickHouseColumn> byName;

    private ClickHouseTableSchema(List<ClickHouseColumn> insertable, Set<String> withDefault) {
        this.insertable = List.copyOf(insertable);
        this.withDefault = Set.copyOf(withDefault);
        Map<String, ClickHouseColumn> names = new LinkedHashMap<>();
        for (ClickHouseColumn c : this.insertable) {
            if (names.put(c.name(), c) != null) {
                throw new IllegalArgumentException("column '" + c.name() + "' listed twice");
            }
        }
        for (String name : this.withDefault) {
            if (!names.containsKey(name)) {
                throw new IllegalArgumentException(
                        "column '" + name + "' has a default but is not an insertable column of " + names.keySet());
            }
        }
        this.byName = names;
    }

    /**
     * A schema from its parts (tests, and tables described without a server).
     *
     * @param insertable  the columns an insert may carry, in table order
     * @param withDefault the names of those whose {@code DEFAULT} expression the server computes when an
     *                    insert leaves them out
     */
    public static ClickHouseTableSchema of(List<ClickHouseColumn> insertable, Set<String> withDefault) {
        return new ClickHouseTableSchema(
                Objects.requireNonNull(insertable, "insertable"), Objects.requireNonNull(withDefault, "withDefault"));
    }

    /** The columns an insert may carry, in table order. */
    public List<ClickHouseColumn> insertable() {
        return insertable;
    }

    /** The insertable column named {@code name}, or null. */
    public @Nullable ClickHouseColumn column(String name) {
        return byName.get(name);
    }

    /** Whether {@code column} has a {@code DEFAULT} expression, so an insert may leave it out. */
    public boolean hasDefault(String column) {
        return withDefault.contains(column);
    }

    @Override
    public String toString() {
        return "ClickHouseTableSchema" + insertable + (withDefault.isEmpty() ? "" : " defaults " + withDefault);
    }
}
