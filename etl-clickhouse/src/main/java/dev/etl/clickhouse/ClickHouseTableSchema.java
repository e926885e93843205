package dev.etl.clickhouse;

import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
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
 * <p>{@link #read(ClickHouseSinkConfig)} reads it from a server ({@code system.columns}: {@code name},
 * {@code type}, {@code default_kind}, {@code default_expression}); startup validation reads it with the same
 * query. A column whose
 * {@code default_kind} is {@code DEFAULT} (or {@code EPHEMERAL}, on servers that have it) has a default;
 * one with none, or an empty kind, has not (left out of an insert it would get its type's zero value).
 *
 * <p>Immutable.
 */
public final class ClickHouseTableSchema {
    private final List<ClickHouseColumn> insertable;
    private final Set<String> withDefault;
    /** The {@code DEFAULT} expressions as the server printed them, where read from a server. */
    private final Map<String, String> defaultExpressions;

    private final Map<String, ClickHouseColumn> byName;

    private ClickHouseTableSchema(
            List<ClickHouseColumn> insertable, Set<String> withDefault, Map<String, String> defaultExpressions) {
        this.insertable = List.copyOf(insertable);
        this.withDefault = Set.copyOf(withDefault);
        this.defaultExpressions = Map.copyOf(defaultExpressions);
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
                Objects.requireNonNull(insertable, "insertable"),
                Objects.requireNonNull(withDefault, "withDefault"),
                Map.of());
    }

    /**
     * The table of {@code config} ({@link ClickHouseSinkConfig#database()}, {@link ClickHouseSinkConfig#table()})
     * as the first reachable replica describes it (shards, then replicas, in configuration order), read over
     * {@code transport}. Failures are handled as startup validation handles them: an unreachable replica is
     * logged and the next one is asked; a TLS handshake that fails, a read-only user, an error answer or an
     * interruption fail at once, naming the replica. Blocking: call at startup.
     *
     * @throws ClickHouseSchemaException when the table does not exist on the replica that answered, on the
     *                                   failures above, or when no replica of any shard is reachable
     */
    public static ClickHouseTableSchema read(ClickHouseSinkConfig config, ClickHouseTransport transport) {
        return new ClickHouseSchemaValidator(
                        Objects.requireNonNull(config, "config"), Objects.requireNonNull(transport, "transport"))
                .readTable();
    }

    /**
     * {@link #read(ClickHouseSinkConfig, ClickHouseTransport)} over raw HTTP with {@code config}'s
     * credentials, timeouts and TLS ({@link ClickHouseHttpTransport#of}: the transport the sink reads
     * through, whichever transport it inserts with).
     */
    public static ClickHouseTableSchema read(ClickHouseSinkConfig config) {
        try (ClickHouseHttpTransport transport = ClickHouseHttpTransport.of(config)) {
            return read(config, transport);
        }
    }

    /**
     * The one query of a table's columns on one replica, or null when {@code system.columns} lists none
     * (no such table).
     */
    static @Nullable ClickHouseTableSchema fetch(
            ClickHouseTransport transport, URI replica, String database, String table)
            throws ClickHouseRequestException {
        String body = transport.query(
                replica,
                "SELECT name, type, default_kind, default_expression FROM system.columns WHERE database = "
                        + ClickHouseSchemaValidator.literal(database) + " AND table = "
                        + ClickHouseSchemaValidator.literal(table) + " FORMAT TabSeparated");
        List<ClickHouseColumn> insertable = new ArrayList<>();
        Set<String> withDefault = new HashSet<>();
        Map<String, String> expressions = new HashMap<>();
        boolean any = false;
        for (String line : body.split("\n")) {
            if (line.isEmpty()) {
                continue;
            }
            any = true;
            String[] f = line.split("\t", -1);
            String name = ClickHouseSchemaValidator.unescapeTsv(f[0]);
            String kind = f.length > 2 ? f[2] : "";
            if (kind.equals("MATERIALIZED") || kind.equals("ALIAS")) {
                continue; // never carried by an insert
            }
            insertable.add(new ClickHouseColumn(name, ClickHouseSchemaValidator.unescapeTsv(f.length > 1 ? f[1] : "")));
            if (kind.equals("DEFAULT") || kind.equals("EPHEMERAL")) {
                withDefault.add(name);
                expressions.put(name, ClickHouseSchemaValidator.unescapeTsv(f.length > 3 ? f[3] : ""));
            }
        }
        return any ? new ClickHouseTableSchema(insertable, withDefault, expressions) : null;
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

    /** {@code column}'s {@code DEFAULT} expression as the server printed it, or "" (none, or not read from a server). */
    String defaultExpression(String column) {
        return defaultExpressions.getOrDefault(column, "");
    }

    @Override
    public String toString() {
        return "ClickHouseTableSchema" + insertable + (withDefault.isEmpty() ? "" : " defaults " + withDefault);
    }
}
