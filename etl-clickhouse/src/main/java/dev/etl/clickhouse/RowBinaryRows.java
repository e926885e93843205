package dev.etl.clickhouse;

import java.util.List;
import java.util.Objects;

/**
 * Where each RowBinary row of a batch starts and ends, from the sink's columns: what the shard writer
 * needs to cut a batch into pieces of whole rows when the server refuses some of them
 * ({@link ClickHouseShardWriter}). The column types are parsed by {@link ColumnType} (the grammar the
 * Native transposition reads, which covers every type {@link ClickHouseTypes} and the Avro transcoder
 * write) and each value is skipped by its node's {@link NativeColumn#skip}, which reads exactly what the
 * Native transposition reads: a fixed width, a LEB128 length and its bytes, a Nullable flag and the value
 * after a 0, an Array's or Map's LEB128 count and its elements, a Tuple's elements, a LowCardinality as its
 * inner type.
 *
 * <p>Immutable and thread-safe (the nodes' {@code skip} keeps no state).
 */
final class RowBinaryRows {
    private final ClickHouseColumn[] columns;
    private final NativeColumn[] nodes;

    private RowBinaryRows(ClickHouseColumn[] columns, NativeColumn[] nodes) {
        this.columns = columns;
        this.nodes = nodes;
    }

    /**
     * The row boundaries of rows of {@code columns}, in their order.
     *
     * @throws IllegalArgumentException when there are no columns, or naming the column whose type is not
     *                                  one this parser knows (a {@link ClickHouseType} of the user's own)
     */
    static RowBinaryRows of(List<ClickHouseColumn> columns) {
        Objects.requireNonNull(columns, "columns");
        if (columns.isEmpty()) {
            throw new IllegalArgumentException("the sink was defined without its columns (define it with its "
                    + "RowBinaryEncoder or its column list), so the rows of a batch cannot be told apart");
        }
        ClickHouseColumn[] cols = columns.toArray(new ClickHouseColumn[0]);
        NativeColumn[] nodes = new NativeColumn[cols.length];
        for (int i = 0; i < cols.length; i++) {
            try {
                nodes[i] = NativeColumn.of(ColumnType.parse(cols[i].type()));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "column '" + cols[i].name() + "' (" + cols[i].type()
                                + ") has a type whose RowBinary values this sink cannot delimit: " + e.getMessage(),
                        e);
            }
        }
        return new RowBinaryRows(cols, nodes);
    }

    /**
     * The start of every row of the {@code rowCount} rows in {@code bytes[0, byteCount)}, and
     * {@code byteCount} after the last: row {@code i} is {@code bytes[starts[i], starts[i + 1])}.
     *
     * @throws RowBinaryMismatchException naming the row and the column when the bytes are not
     *                                    {@code rowCount} rows of the columns
     */
    int[] starts(byte[] bytes, int byteCount, int rowCount) {
        int[] starts = new int[rowCount + 1];
        RowBinaryCursor in = new RowBinaryCursor();
        in.wrap(bytes, byteCount);
        for (int row = 0; row < rowCount; row++) {
            int rowStart = in.position;
            starts[row] = rowStart;
            for (int c = 0; c < nodes.length; c++) {
                try {
                    nodes[c].skip(in);
                } catch (RowBinaryCursor.Mismatch e) {
                    throw new RowBinaryMismatchException(
                            columns[c].name(),
                            row,
                            "row " + row + " of " + rowCount + " (at byte " + rowStart + " of " + byteCount
                                    + "), column '" + columns[c].name() + "' (" + columns[c].type() + "): "
                                    + e.getMessage() + "; the rows were not encoded with the declared columns "
                                    + List.of(columns));
                }
            }
        }
        if (in.position != byteCount) {
            throw new RowBinaryMismatchException(
                    null,
                    -1,
                    "the batch holds " + (byteCount - in.position) + " bytes after its " + rowCount + " rows ("
                            + byteCount + " bytes) of the " + columns.length + " declared columns "
                            + List.of(columns) + ": the rows were not encoded with these columns");
        }
        starts[rowCount] = byteCount;
        return starts;
    }
}
