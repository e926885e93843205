package dev.etl.clickhouse;

/**
 * What startup validation compares between the encoder's columns and {@code system.columns}.
 *
 * <p>Inserts name their columns ({@code INSERT INTO t (a, b, …)}, the encoder's in the encoder's order:
 * {@link ClickHouseInsert}), so the columns are compared by name and the encoder's order does not have to
 * follow the table's: the list, not the position, is the wire contract. Under {@link #NAMES} and
 * {@link #FULL} an encoder column the table lacks fails startup, and so does a table column the encoder
 * does not write unless it has a {@code DEFAULT} expression (the server computes it); {@code MATERIALIZED}
 * and {@code ALIAS} columns are never inserted and never compared. A sink given no columns sends no list:
 * its rows must then carry every insertable column in table order, unchecked.
 */
public enum ValidationMode {
    /** No comparison (the table must still exist for inserts to work). */
    OFF,
    /**
     * Column names: each encoder column is a column of the table, written once; each table column the
     * encoder leaves out has a {@code DEFAULT}.
     */
    NAMES,
    /**
     * As {@link #NAMES}, and each encoder column has the type of the table's column of that name (type
     * strings normalised: whitespace, Decimal aliases, time zones).
     */
    FULL
}
