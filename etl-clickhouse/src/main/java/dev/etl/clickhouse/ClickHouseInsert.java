package dev.etl.clickhouse;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What one insert request says, independently of how a {@link ClickHouseTransport} puts it on the
 * wire: the target table and the body's format ({@code INSERT INTO `database`.`table` FORMAT RowBinary}
 * or {@code FORMAT Native}) and every server setting to send with it, in order. The writer builds it; the raw HTTP transport renders it as a URL
 * query string ({@link ClickHouseHttpTransport#queryString(ClickHouseInsert)}), the client-v2 transport
 * as {@code client.insert(quotedTable(), …, format, InsertSettings)} with one server setting per entry.
 *
 * @param database database of the table (unquoted)
 * @param table    table name (unquoted)
 * @param settings server settings (name → value), iteration order preserved; never contains
 *                 {@code query} or {@code database}
 * @param format   the format of the body
 */
public record ClickHouseInsert(String database, String table, Map<String, String> settings, InsertFormat format) {

    public ClickHouseInsert {
        Objects.requireNonNull(database, "database");
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(format, "format");
        if (settings.containsKey("query") || settings.containsKey("database")) {
            throw new IllegalArgumentException(
                    "'query' and 'database' are not server settings of an insert: " + settings);
        }
        settings = Collections.unmodifiableMap(new LinkedHashMap<>(settings));
    }

    /** A RowBinary insert. */
    public ClickHouseInsert(String database, String table, Map<String, String> settings) {
        this(database, table, settings, InsertFormat.ROW_BINARY);
    }

    /** {@code `database`.`table`}, backquoted and escaped. */
    public String quotedTable() {
        return quote(database) + "." + quote(table);
    }

    /** {@code INSERT INTO `database`.`table` FORMAT RowBinary} (or {@code Native}). */
    public String statement() {
        return "INSERT INTO " + quotedTable() + " FORMAT " + format.formatName();
    }

    /** This insert with one more setting, last (replacing an earlier value of the same name in place). */
    public ClickHouseInsert withSetting(String name, String value) {
        Map<String, String> copy = new LinkedHashMap<>(settings);
        copy.put(name, value);
        return new ClickHouseInsert(database, table, copy, format);
    }

    static String quote(String identifier) {
        return "`" + identifier.replace("\\", "\\\\").replace("`", "\\`") + "`";
    }
}
