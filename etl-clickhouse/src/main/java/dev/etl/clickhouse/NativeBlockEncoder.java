package dev.etl.clickhouse;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;

/**
 * Transposes a batch of RowBinary rows into one ClickHouse Native block, for inserts with
 * {@link InsertFormat#NATIVE}: the columns are the sink's ({@link RowBinaryEncoder#columns()}), so
 * the one encoder declaration serves both formats.
 *
 * <p><b>The block</b> (what {@code INSERT … FORMAT Native} reads over HTTP, where no block info
 * precedes it): VarUInt column count, VarUInt row count, then per column its name and type (each a
 * VarUInt length and UTF-8 bytes) and, when there are rows, its data (see {@link NativeColumn}).
 * Exactly one block per batch, so a batch is still one insert and one part per partition.
 *
 * <p><b>Deterministic</b>: the block is a function of the rows' bytes and the columns only (no
 * clock, no hash order: LowCardinality keys are in order of first appearance), so a replayed batch
 * is the same insert (see {@link NativeLowCardinality}).
 *
 * <p><b>Supported types</b>: integers (8 to 256 bits), Float32/64, Bool, Date, Date32, DateTime,
 * DateTime64, Decimal (all widths), Enum8/16, UUID, IPv4, IPv6, FixedString, String; Nullable of
 * those; LowCardinality of those or of their Nullable; Array, Tuple and Map of any of these.
 * {@link #of} refuses anything else with an {@link UnsupportedNativeTypeException} naming the column.
 *
 * <p><b>Cost</b>: two passes over the rows (count, then copy) and one output buffer of exactly the
 * block's size, reused from batch to batch; nothing is allocated per row (the buffer and
 * LowCardinality's dictionary arrays grow to the largest block seen, see {@link #trim}). The block
 * is as large as the rows, plus 7 bytes per array value (a LEB128 size becomes a UInt64 offset)
 * and the width of a value per NULL (Native keeps a default in its place).
 *
 * <p>Not thread-safe: a shard writer keeps its own (one batch at a time).
 */
final class NativeBlockEncoder {
    private final ClickHouseColumn[] columns;
    private final NativeColumn[] nodes;
    /** Per column its name and type, each as VarUInt length and UTF-8 bytes. */
    private final byte[][] headers;
    private final RowBinaryCursor in = new RowBinaryCursor();
    private byte[] block = new byte[0];
    private int length;

    private NativeBlockEncoder(ClickHouseColumn[] columns, NativeColumn[] nodes) {
        this.columns = columns;
        this.nodes = nodes;
        this.headers = new byte[columns.length][];
        for (int i = 0; i < columns.length; i++) {
            byte[] name = columns[i].name().getBytes(StandardCharsets.UTF_8);
            byte[] type = columns[i].type().getBytes(StandardCharsets.UTF_8);
            byte[] h = new byte[varUIntSize(name.length) + name.length + varUIntSize(type.length) + type.length];
            int at = putVarUInt(h, 0, name.length);
            System.arraycopy(name, 0, h, at, name.length);
            at = putVarUInt(h, at + name.length, type.length);
            System.arraycopy(type, 0, h, at, type.length);
            headers[i] = h;
        }
    }

    /**
     * An encoder for rows of {@code columns}, in their order.
     *
     * @throws UnsupportedNativeTypeException when there are no columns or a column's type is not supported
     */
    static NativeBlockEncoder of(List<ClickHouseColumn> columns) {
        Objects.requireNonNull(columns, "columns");
        if (columns.isEmpty()) {
            throw new UnsupportedNativeTypeException(null, null, "the Native insert format needs the sink's columns "
                    + "(their names and types head the block), and none were declared: define the sink with its "
                    + "RowBinaryEncoder or its column list, or use the RowBinary format");
        }
        ClickHouseColumn[] cols = columns.toArray(new ClickHouseColumn[0]);
        NativeColumn[] nodes = new NativeColumn[cols.length];
        for (int i = 0; i < cols.length; i++) {
            try {
                nodes[i] = NativeTypes.parse(cols[i].type());
            } catch (IllegalArgumentException e) {
                throw new UnsupportedNativeTypeException(cols[i].name(), cols[i].type(), "column '" + cols[i].name()
                        + "' (" + cols[i].type() + ") cannot be sent in the Native insert format: " + e.getMessage()
                        + "; write this table with the RowBinary format");
            }
        }
        return new NativeBlockEncoder(cols, nodes);
    }

    /**
     * Builds the Native block of {@code rowCount} RowBinary rows in {@code rows[0, byteCount)}; the
     * block is {@link #block()}{@code [0, length)} until the next call. The key spans of
     * LowCardinality columns point into {@code rows} only during the call.
     *
     * @return the block's length in bytes
     * @throws RowBinaryMismatchException when the bytes are not {@code rowCount} rows of the columns
     */
    int encode(byte[] rows, int byteCount, int rowCount) {
        NativeColumn[] n = nodes;
        for (NativeColumn node : n) {
            node.reset();
        }
        RowBinaryCursor cursor = in;
        cursor.wrap(rows, byteCount);
        long size = varUIntSize(n.length) + varUIntSize(rowCount);
        for (byte[] h : headers) {
            size += h.length;
        }
        int row = 0;
        int column = 0;
        int rowStart = 0;
        try {
            for (; row < rowCount; row++) {
                rowStart = cursor.position;
                for (column = 0; column < n.length; column++) {
                    n[column].measure(cursor);
                }
            }
        } catch (RowBinaryCursor.Mismatch e) {
            throw mismatch(rowCount, byteCount, row, column, rowStart, e.getMessage());
        }
        if (cursor.position != byteCount) {
            throw new RowBinaryMismatchException(null, -1, "the batch holds " + (byteCount - cursor.position)
                    + " bytes after its " + rowCount + " rows (" + byteCount + " bytes) of the " + columns.length
                    + " declared columns " + List.of(columns) + ": the rows were not encoded with these columns");
        }
        if (rowCount > 0) {
            for (NativeColumn node : n) {
                size += node.prefixBytes() + node.dataBytes();
            }
        }
        if (size > Integer.MAX_VALUE - 16) {
            throw new RowBinaryMismatchException(null, -1, "the Native block of " + rowCount + " rows would take "
                    + size + " bytes, more than a Java array holds; lower the batch's max-bytes");
        }
        int total = (int) size;
        byte[] out = ensureCapacity(total);
        int at = putVarUInt(out, 0, n.length);
        at = putVarUInt(out, at, rowCount);
        for (int c = 0; c < n.length; c++) {
            byte[] h = headers[c];
            System.arraycopy(h, 0, out, at, h.length);
            at += h.length;
            if (rowCount > 0) {
                at = n[c].writePrefix(out, at);
                at = n[c].layout(at);
            }
        }
        if (at != total) {
            throw new IllegalStateException("Native layout ends at " + at + " of " + total + " bytes");
        }
        if (rowCount > 0) {
            cursor.wrap(rows, byteCount);
            for (int r = 0; r < rowCount; r++) {
                for (NativeColumn node : n) {
                    node.scatter(cursor, out);
                }
            }
            for (NativeColumn node : n) {
                node.finish(rows, out);
            }
        }
        length = total;
        return total;
    }

    private RowBinaryMismatchException mismatch(int rowCount, int byteCount, int row, int column, int rowStart,
            String problem) {
        ClickHouseColumn c = columns[column];
        return new RowBinaryMismatchException(c.name(), row, "row " + row + " of " + rowCount + " (at byte " + rowStart
                + " of " + byteCount + "), column '" + c.name() + "' (" + c.type() + "): " + problem
                + "; the rows were not encoded with the declared columns " + List.of(columns));
    }

    private byte[] ensureCapacity(int total) {
        byte[] b = block;
        if (b.length < total) {
            long grown = Math.max(total, b.length + (b.length >> 1));
            b = new byte[(int) Math.min(grown, Integer.MAX_VALUE - 16)];
            block = b;
        }
        return b;
    }

    /** The last block's buffer; valid bytes are {@code [0, length())}. */
    byte[] block() {
        return block;
    }

    /** Length of the last block. */
    int length() {
        return length;
    }

    /** Capacity the encoder keeps between blocks. */
    int capacity() {
        return block.length;
    }

    /** Drops the block buffer when it grew past {@code maxRetainedBytes} (it is reallocated on demand). */
    void trim(long maxRetainedBytes) {
        if (block.length > maxRetainedBytes) {
            block = new byte[0];
            length = 0;
        }
    }

    /** The columns, in order. */
    List<ClickHouseColumn> columns() {
        return List.of(columns);
    }

    static int varUIntSize(long value) {
        int n = 1;
        while ((value & ~0x7FL) != 0) {
            value >>>= 7;
            n++;
        }
        return n;
    }

    static int putVarUInt(byte[] out, int at, long value) {
        long v = value;
        while ((v & ~0x7FL) != 0) {
            out[at++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out[at++] = (byte) v;
        return at;
    }
}
