package dev.etl.clickhouse.sharding;

import dev.etl.clickhouse.ClickHouseRequestException;
import dev.etl.clickhouse.ClickHouseTransport;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a {@code Distributed} table says about placement: its cluster, the shard-local table it
 * fronts, its sharding expression (as {@code system.tables.engine_full} prints it) and its columns'
 * types (the sharding expression's columns are among them).
 *
 * @param database           database of the Distributed table, or null for one described by hand
 * @param name               name of the Distributed table, or null for one described by hand
 * @param cluster            the cluster (first engine argument, unquoted)
 * @param localDatabase      database of the shard-local table (second argument, unquoted)
 * @param localTable         the shard-local table (third argument, unquoted)
 * @param shardingExpression the sharding key expression, or null when the table has none (then it
 *                           accepts inserts only on a one-shard cluster)
 * @param columnTypes        column name to ClickHouse type, in table order
 */
public record DistributedTable(
        @Nullable String database,
        @Nullable String name,
        String cluster,
        @Nullable String localDatabase,
        @Nullable String localTable,
        @Nullable String shardingExpression,
        Map<String, String> columnTypes) {

    public DistributedTable {
        Objects.requireNonNull(cluster, "cluster");
        columnTypes = Collections.unmodifiableMap(new LinkedHashMap<>(columnTypes));
    }

    /**
     * A Distributed sharding described by hand, e.g. to check an expression before the table exists:
     * {@code DistributedTable.of("etl", "cityHash64(order_id)", Map.of("order_id", "UInt64"))}.
     */
    public static DistributedTable of(String cluster, String shardingExpression, Map<String, String> columnTypes) {
        return new DistributedTable(
                null,
                null,
                cluster,
                null,
                null,
                Objects.requireNonNull(shardingExpression, "shardingExpression"),
                columnTypes);
    }

    /**
     * Reads the Distributed table {@code database.table} on {@code replica}.
     *
     * @throws IllegalArgumentException   when the table does not exist or is not Distributed
     * @throws ClickHouseRequestException when a query fails
     */
    public static DistributedTable read(ClickHouseTransport transport, URI replica, String database, String table)
            throws ClickHouseRequestException {
        String where = "database = " + Sql.literal(database) + " AND ";
        String row = transport
                .query(
                        replica,
                        "SELECT engine, engine_full FROM system.tables WHERE " + where + "name = " + Sql.literal(table)
                                + " FORMAT TabSeparated")
                .strip();
        if (row.isEmpty()) {
            throw new IllegalArgumentException("table " + database + "." + table + " does not exist on " + replica);
        }
        String[] parts = row.split("\t", 2);
        if (!parts[0].equals("Distributed")) {
            throw new IllegalArgumentException(
                    "table " + database + "." + table + " on " + replica + " is " + parts[0] + ", not Distributed");
        }
        List<String> args = engineArguments(Sql.unescapeTsv(parts.length > 1 ? parts[1] : ""));
        if (args.size() < 3) {
            throw new IllegalArgumentException(
                    "cannot read the engine arguments of " + database + "." + table + ": " + parts[1]);
        }
        Map<String, String> columns = new LinkedHashMap<>();
        String body = transport.query(
                replica,
                "SELECT name, type FROM system.columns WHERE " + where + "table = " + Sql.literal(table)
                        + " FORMAT TabSeparated");
        for (String line : body.split("\n")) {
            if (!line.isEmpty()) {
                String[] f = line.split("\t", -1);
                columns.put(Sql.unescapeTsv(f[0]), Sql.unescapeTsv(f[1]));
            }
        }
        return new DistributedTable(
                database,
                table,
                unquote(args.get(0)),
                unquote(args.get(1)),
                unquote(args.get(2)),
                args.size() > 3 ? args.get(3) : null,
                columns);
    }

    /** {@code database.name}, or {@code "(expression on cluster …)"} for a table described by hand. */
    public String qualifiedName() {
        return name == null ? "(" + shardingExpression + " on cluster " + cluster + ")" : database + "." + name;
    }

    /**
     * The sharding expression as a {@link ShardingKey} (typed by the table's columns).
     *
     * @throws IllegalArgumentException when there is no sharding key or it is not a supported form
     */
    public ShardingKey shardingKey() {
        if (shardingExpression == null) {
            throw new IllegalArgumentException("Distributed table " + qualifiedName() + " has no sharding key");
        }
        return ShardingKey.parse(shardingExpression, columnTypes::get);
    }

    /**
     * The top-level arguments of {@code Distributed(a, b, c, expr…)}, each stripped, with quotes and
     * parentheses inside an argument respected.
     */
    static List<String> engineArguments(String engineFull) {
        int open = engineFull.indexOf('(');
        List<String> args = new ArrayList<>();
        if (open < 0) {
            return args;
        }
        int depth = 0;
        char quote = 0;
        int start = open + 1;
        for (int i = open + 1; i < engineFull.length(); i++) {
            char c = engineFull.charAt(i);
            if (quote != 0) {
                if (c == '\\') {
                    i++;
                } else if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '`' || c == '"') {
                quote = c;
            } else if (c == '(') {
                depth++;
            } else if (c == ')') {
                if (depth == 0) {
                    args.add(engineFull.substring(start, i).strip());
                    return args;
                }
                depth--;
            } else if (c == ',' && depth == 0) {
                args.add(engineFull.substring(start, i).strip());
                start = i + 1;
            }
        }
        return args; // unbalanced: what was complete
    }

    private static String unquote(String arg) {
        if (arg.length() >= 2
                && (arg.charAt(0) == '\'' || arg.charAt(0) == '`' || arg.charAt(0) == '"')
                && arg.charAt(arg.length() - 1) == arg.charAt(0)) {
            return arg.substring(1, arg.length() - 1).replaceAll("\\\\(.)", "$1");
        }
        return arg;
    }
}
