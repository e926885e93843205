package dev.etl.clickhouse;

import dev.etl.error.ErrorClass;
import dev.etl.error.EtlException;
import org.jspecify.annotations.Nullable;

/**
 * A value could not be encoded into a column: out of the type's range, null for a non-Nullable
 * type, too long for a {@code FixedString}, more decimal places than the scale, and so on. The
 * message names the column and its ClickHouse type.
 */
public final class ColumnEncodeException extends EtlException {
    private static final long serialVersionUID = 1L;

    private final String column;
    private final String type;

    public ColumnEncodeException(ClickHouseColumn column, String problem, @Nullable Throwable cause) {
        super(ErrorClass.ENCODE, "column '" + column.name() + "' (" + column.type() + "): " + problem, cause);
        this.column = column.name();
        this.type = column.type();
    }

    /** Name of the column that failed. */
    public String column() {
        return column;
    }

    /** ClickHouse type of the column that failed. */
    public String type() {
        return type;
    }
}
