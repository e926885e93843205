package dev.etl.clickhouse;

/**
 * A batch's RowBinary bytes are not rows of the sink's declared columns, found while transposing
 * them into a Native block (a chain that wrote the sink with another encoder than the one the sink
 * was defined with, or a hand-written {@code RowEncoder} that disagrees with its column list). The
 * message names the row, the byte offset, the column and its type. The shard writer reports it as a
 * permanent write failure: the same bytes can never be sent.
 */
final class RowBinaryMismatchException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String column;
    private final int row;

    RowBinaryMismatchException(String column, int row, String message) {
        super(message);
        this.column = column;
        this.row = row;
    }

    /** The column whose value did not parse, or null when the batch as a whole did not add up. */
    String column() {
        return column;
    }

    /** The row (0-based within the batch), or -1. */
    int row() {
        return row;
    }
}
