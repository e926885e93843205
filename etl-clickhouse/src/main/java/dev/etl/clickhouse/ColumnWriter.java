package dev.etl.clickhouse;

import dev.etl.sink.RowBuffer;

/**
 * Writes one column of a row in RowBinary: one per column of a {@link RowBinaryEncoder}, called
 * once per row on the encoding thread. Range failures throw {@link IllegalArgumentException}; the
 * encoder adds the column's name.
 *
 * @param <T> the row's value type
 */
@FunctionalInterface
interface ColumnWriter<T> {
    void write(T row, RowBuffer out);
}
