package dev.etl.clickhouse;

/**
 * The format a ClickHouse sink's inserts are sent in ({@code INSERT INTO … FORMAT <name>}). Lanes always
 * encode RowBinary rows (the {@link RowBinaryEncoder} is the one column declaration); with
 * {@link #NATIVE} the shard writer transposes each sealed batch into one Native block on its io thread,
 * from the same encoder's column types, just before the insert.
 *
 * <p>Both formats carry the same rows: for the same batch the server stores the same block, so a
 * Replicated*MergeTree table deduplicates a replay even when the format changed between the original
 * insert and the replay.
 */
public enum InsertFormat {
    /**
     * Row-oriented: the batch's RowBinary bytes as they are. Any column the encoder can declare can be
     * sent; the server parses every value of every row.
     */
    ROW_BINARY("RowBinary"),
    /**
     * Columnar: one Native block per batch (a column's values together, with their names and types),
     * which the server reads column by column instead of parsing rows. Supports the types listed in
     * {@link NativeBlockEncoder}; a column of another type fails the sink's definition with an
     * {@link UnsupportedNativeTypeException} naming it.
     */
    NATIVE("Native");

    private final String formatName;

    InsertFormat(String formatName) {
        this.formatName = formatName;
    }

    /** The format's name in SQL: {@code RowBinary} or {@code Native}. */
    public String formatName() {
        return formatName;
    }
}
