package dev.etl.clickhouse;

/** What startup validation compares between the encoder's columns and {@code system.columns}. */
public enum ValidationMode {
    /** No comparison (the table must still exist for inserts to work). */
    OFF,
    /** Column names and their order (RowBinary is positional: order is the wire contract). */
    NAMES,
    /** Names, order and types (type strings normalised: whitespace, Decimal aliases, time zones). */
    FULL
}
