package dev.etl.clickhouse;

import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What one insert request says, independently of how a {@link ClickHouseTransport} puts it on the
 * wire: the target table, the columns the body carries, the body's format
 * ({@code INSERT INTO `database`.`table` (`a`, `b`) FORMAT RowBinary} or {@code FORMAT Native}) and every
 * server setting to send with it, in order. The writer builds it; the raw HTTP transport renders it as a URL
 * query string ({@link ClickHouseHttpTransport#queryString(ClickHouseInsert)}), the client-v2 transport
 * as {@code client.insert(quotedTable(), quotedColumns(), …, format, InsertSettings)} with one server setting
 * per entry.
 *
 * <p><b>The column list.</b> With {@code columns} (the sink's encoder's, in the encoder's order) the
 * statement names them, every name backquoted: the server then reads each row's values as those columns,
 * whatever the table's order, and computes every column the list leaves out from its {@code DEFAULT}
 * expression (its type's zero value when it has none; startup validation refuses that). Without columns
 * (a sink given none) the statement has no list, and the body must carry every insertable column in table
 * order. The list is fixed per column layout ({@link ColumnLayouts}; one layout unless the sink's encoders
 * evolve), so a retried batch sends the same statement.
 *
 * @param database database of the table (unquoted)
 * @param table    table name (unquoted)
 * @param columns  the names of the columns the body carries, in its order (unquoted), or empty for none
 *                 named; no name twice
 * @param settings server settings (name → value), iteration order preserved; never contains
 *                 {@code query} or {@code database}
 * @param format   the format of the body
 */
public record ClickHouseInsert(
        String database, String table, List<String> columns, Map<String, String> settings, InsertFormat format) {

    public ClickHouseInsert {
        Objects.requireNonNull(database, "database");
        Objects.requireNonNull(table, "table");
        columns = List.copyOf(Objects.requireNonNull(columns, "columns"));
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(format, "format");
        if (settings.containsKey("query") || settings.containsKey("database")) {
            throw new IllegalArgumentException(
                    "'query' and 'database' are not server settings of an insert: " + settings);
        }
        if (new HashSet<>(columns).size() != columns.size()) {
            throw new IllegalArgumentException("a column is named twice in the insert's column list " + columns);
        }
        settings = Collections.unmodifiableMap(new LinkedHashMap<>(settings));
    }

    /** An insert without a column list: the body carries every insertable column in table order. */
    public ClickHouseInsert(String database, String table, Map<String, String> settings, InsertFormat format) {
        this(database, table, List.of(), settings, format);
    }

    /** A RowBinary insert without a column list. */
    public ClickHouseInsert(String database, String table, Map<String, String> settings) {
        this(database, table, settings, InsertFormat.ROW_BINARY);
    }

    /** {@code `database`.`table`}, backquoted and escaped. */
    public String quotedTable() {
        return quote(database) + "." + quote(table);
    }

    /** The column names, backquoted and escaped, in order (empty without a column list). */
    public List<String> quotedColumns() {
        return columns.stream().map(ClickHouseInsert::quote).toList();
    }

    /**
     * {@code INSERT INTO `database`.`table` (`a`, `b`) FORMAT RowBinary} (or {@code Native}); without
     * columns, {@code INSERT INTO `database`.`table` FORMAT RowBinary}.
     */
    public String statement() {
        StringBuilder sql = new StringBuilder(64 + 16 * columns.size())
                .append("INSERT INTO ")
                .append(quotedTable());
        if (!columns.isEmpty()) {
            sql.append(" (").append(String.join(", ", quotedColumns())).append(')');
        }
        return sql.append(" FORMAT ").append(format.formatName()).toString();
    }

    /** This insert with one more setting, last (replacing an earlier value of the same name in place). */
    public ClickHouseInsert withSetting(String name, String value) {
        Map<String, String> copy = new LinkedHashMap<>(settings);
        copy.put(name, value);
        return new ClickHouseInsert(database, table, columns, copy, format);
    }

    static String quote(String identifier) {
        return "`" + identifier.replace("\\", "\\\\").replace("`", "\\`") + "`";
    }
}
