package dev.etl.clickhouse;

import dev.etl.sink.RowBuffer;
import org.jspecify.annotations.Nullable;

/**
 * How one ClickHouse type is written in RowBinary, for values held as objects: the building block
 * of nested columns ({@code Nullable}, {@code Array}, {@code Map}, {@code Tuple},
 * {@code LowCardinality}). Obtain instances from {@link ClickHouseTypes}.
 *
 * <p>Top-level scalar columns should use the primitive-specialised methods of
 * {@link RowBinaryEncoder.Builder} instead, which do not box. Implementations are immutable and
 * thread-safe.
 *
 * @param <V> the Java type of the values
 */
public interface ClickHouseType<V extends @Nullable Object> {
    /** The ClickHouse type string, e.g. {@code Array(UInt32)}, as {@code system.columns} spells it. */
    String name();

    /**
     * Appends {@code value}'s RowBinary encoding to {@code out}.
     *
     * @throws IllegalArgumentException if the value is null (for a non-Nullable type) or out of the
     *                                  type's range; the encoder adds the column name
     */
    void write(V value, RowBuffer out);
}
