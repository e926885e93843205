package dev.etl.clickhouse;

import org.jspecify.annotations.Nullable;

/**
 * A sink configured with {@link InsertFormat#NATIVE} has a column whose type the Native transposition
 * cannot write (or no columns at all). Thrown when the sink is defined, so the pipeline never starts
 * with a format it cannot send; the message names the column and its type. Such a table is written
 * with {@link InsertFormat#ROW_BINARY}.
 */
public final class UnsupportedNativeTypeException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String column;
    private final String type;

    UnsupportedNativeTypeException(String column, String type, String message) {
        super(message);
        this.column = column;
        this.type = type;
    }

    /** Name of the column that cannot be written, or null when the sink declared no columns. */
    public @Nullable String column() {
        return column;
    }

    /** Its ClickHouse type, or null when the sink declared no columns. */
    public @Nullable String type() {
        return type;
    }
}
