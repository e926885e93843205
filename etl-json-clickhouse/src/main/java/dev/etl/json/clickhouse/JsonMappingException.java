package dev.etl.json.clickhouse;

import dev.etl.error.ErrorClass;
import dev.etl.error.EtlException;

/**
 * A JSON → table mapping cannot be built: a column's type the transcoder does not write, an override
 * naming a column the table does not have, an empty field path, a column left to its server default
 * that has none. Thrown by {@link JsonRowTranscoder.Builder}; the message names the column and its type.
 */
public final class JsonMappingException extends EtlException {
    private static final long serialVersionUID = 1L;

    private final String column;
    private final String columnType;

    JsonMappingException(String column, String columnType, String problem) {
        super(
                ErrorClass.ENCODE,
                "column '" + column + "'" + (columnType.isEmpty() ? "" : " (" + columnType + ")") + ": " + problem,
                null);
        this.column = column;
        this.columnType = columnType;
    }

    /** The column the mapping failed on. */
    public String column() {
        return column;
    }

    /** The column's ClickHouse type as the table declares it; empty when the table has no such column. */
    public String columnType() {
        return columnType;
    }
}
