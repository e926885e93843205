package dev.etl.clickhouse;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
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
 * <p><b>Cost</b>: two passes. Pass 1 goes row by row and measures only the variable-width values
 * (runs of fixed-width columns are skipped at once), recording per row where the values after each
 * variable-width column start (an int per such "anchor"); then every stream gets its exact place in
 * one output buffer. Pass 2 goes column by column and copies each column's values there in one loop
 * (LowCardinality's dictionary and indexes come from pass 1). The buffer and the anchors are reused
 * from batch to batch, so nothing is allocated per row (they, and LowCardinality's dictionary arrays,
 * grow to the largest block seen, see {@link #trim}). The block is as large as the rows, plus 7 bytes
 * per array value (a LEB128 size becomes a UInt64 offset) and the width of a value per NULL (Native
 * keeps a default in its place); the anchors take 4 bytes per row and variable-width column.
 *
 * <p>Not thread-safe: a shard writer keeps its own (one batch at a time).
 */
final class NativeBlockEncoder {
    private final ClickHouseColumn[] columns;
    private final NativeColumn[] nodes;
    /** Per column its name and type, each as VarUInt length and UTF-8 bytes. */
    private final byte[][] headers;
    /**
     * The row plan of pass 1: per segment a run of consecutive fixed-width columns (its total width,
     * {@code >= 0}: skipped at once) or one variable-width column ({@code -1 - index}: measured).
     */
    private final int[] segments;
    /** Per segment the anchor recorded where it starts, or 0 for none (anchor 0 is the row's start). */
    private final int[] segmentAnchor;
    /** Anchors per row: the row's start and the start of every segment after a variable-width column. */
    private final int anchorsPerRow;
    /** Per column the anchor its value follows and its offset from that anchor (pass 2 reads by column). */
    private final int[] columnAnchor;

    private final int[] columnOffset;
    private final RowBinaryCursor in = new RowBinaryCursor();
    private int[] anchors = new int[0];
    private byte[] block = new byte[0];
    private int length;

    private NativeBlockEncoder(ClickHouseColumn[] columns, NativeColumn[] nodes) {
        this.columns = columns;
        this.nodes = nodes;
        int[] seg = new int[nodes.length];
        int[] segAnchor = new int[nodes.length];
        this.columnAnchor = new int[nodes.length];
        this.columnOffset = new int[nodes.length];
        int segmentCount = 0;
        int anchor = 0;
        int offset = 0;
        boolean inRun = false;
        for (int c = 0; c < nodes.length; c++) {
            columnAnchor[c] = anchor;
            columnOffset[c] = offset;
            int width = nodes[c].fixedWidth();
            if (width >= 0) {
                if (!inRun) {
                    segAnchor[segmentCount] = offset == 0 ? anchor : 0;
                    seg[segmentCount++] = 0;
                    inRun = true;
                }
                seg[segmentCount - 1] += width;
                offset += width;
            } else {
                segAnchor[segmentCount] = offset == 0 ? anchor : 0;
                seg[segmentCount++] = -1 - c;
                inRun = false;
                anchor++; // whatever follows starts at a position only the row knows
                offset = 0;
            }
        }
        this.segments = Arrays.copyOf(seg, segmentCount);
        this.segmentAnchor = Arrays.copyOf(segAnchor, segmentCount);
        // the anchor after a trailing variable-width column is never read
        this.anchorsPerRow = nodes[nodes.length - 1].fixedWidth() >= 0 ? anchor + 1 : anchor;
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
            throw new UnsupportedNativeTypeException(
                    null,
                    null,
                    "the Native insert format needs the sink's columns "
                            + "(their names and types head the block), and none were declared: define the sink with its "
                            + "RowBinaryEncoder or its column list, or use the RowBinary format");
        }
        ClickHouseColumn[] cols = columns.toArray(new ClickHouseColumn[0]);
        NativeColumn[] nodes = new NativeColumn[cols.length];
        for (int i = 0; i < cols.length; i++) {
            try {
                nodes[i] = NativeColumn.of(ColumnType.parse(cols[i].type()));
            } catch (IllegalArgumentException e) {
                throw new UnsupportedNativeTypeException(
                        cols[i].name(),
                        cols[i].type(),
                        "column '" + cols[i].name()
                                + "' (" + cols[i].type() + ") cannot be sent in the Native insert format: "
                                + e.getMessage()
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
        int stride = anchorsPerRow;
        int[] a = anchors(rowCount * stride);
        int[] seg = segments;
        int[] segAnchor = segmentAnchor;
        int row = 0;
        int rowStart = 0;
        try {
            for (int base = 0; row < rowCount; row++, base += stride) {
                rowStart = cursor.position;
                a[base] = rowStart;
                for (int s = 0; s < seg.length; s++) {
                    if (segAnchor[s] != 0) {
                        a[base + segAnchor[s]] = cursor.position;
                    }
                    int v = seg[s];
                    if (v >= 0) {
                        cursor.skip(v);
                    } else {
                        NativeColumn node = n[-1 - v];
                        if (node instanceof NativeColumn.Str str) {
                            str.measure(cursor); // the common case, called where the JIT can inline it
                        } else {
                            node.measure(cursor);
                        }
                    }
                }
            }
        } catch (RowBinaryCursor.Mismatch e) {
            throw locate(rows, byteCount, rowCount, row, rowStart);
        }
        for (NativeColumn node : n) {
            if (node.fixedWidth() >= 0) {
                node.measureAll(rowCount);
            }
        }
        if (cursor.position != byteCount) {
            throw new RowBinaryMismatchException(
                    null,
                    -1,
                    "the batch holds " + (byteCount - cursor.position)
                            + " bytes after its " + rowCount + " rows (" + byteCount + " bytes) of the "
                            + columns.length
                            + " declared columns " + List.of(columns)
                            + ": the rows were not encoded with these columns");
        }
        if (rowCount > 0) {
            for (NativeColumn node : n) {
                size += node.prefixBytes() + node.dataBytes();
            }
        }
        if (size > Integer.MAX_VALUE - 16) {
            throw new RowBinaryMismatchException(
                    null,
                    -1,
                    "the Native block of " + rowCount + " rows would take " + size
                            + " bytes, more than a Java array holds; lower the batch's max-bytes");
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
            for (int c = 0; c < n.length; c++) {
                n[c].scatterColumn(cursor, a, stride, columnAnchor[c], columnOffset[c], rowCount, out);
            }
            for (NativeColumn node : n) {
                node.finish(rows, out);
            }
        }
        length = total;
        return total;
    }

    /**
     * Cold path: pass 1 failed in row {@code row}; walks that row again value by value to name the
     * column (the nodes' counts are left wrong, which the next block's reset repairs).
     */
    private RowBinaryMismatchException locate(byte[] rows, int byteCount, int rowCount, int row, int rowStart) {
        RowBinaryCursor cursor = new RowBinaryCursor();
        cursor.wrap(rows, byteCount);
        cursor.position = rowStart;
        for (int c = 0; c < nodes.length; c++) {
            try {
                nodes[c].measure(cursor);
            } catch (RowBinaryCursor.Mismatch e) {
                return mismatch(rowCount, byteCount, row, c, rowStart, e.getMessage());
            }
        }
        throw new IllegalStateException("row " + row + " failed pass 1 but parses when walked again");
    }

    private int[] anchors(int size) {
        if (anchors.length < size) {
            anchors = new int[Math.max(size, anchors.length + (anchors.length >> 1))];
        }
        return anchors;
    }

    private RowBinaryMismatchException mismatch(
            int rowCount, int byteCount, int row, int column, int rowStart, String problem) {
        ClickHouseColumn c = columns[column];
        return new RowBinaryMismatchException(
                c.name(),
                row,
                "row " + row + " of " + rowCount + " (at byte " + rowStart
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

    /**
     * Drops the block buffer when it grew past {@code maxRetainedBytes}, and the anchors with it (both
     * are reallocated on demand).
     */
    void trim(long maxRetainedBytes) {
        if (block.length > maxRetainedBytes) {
            block = new byte[0];
            anchors = new int[0];
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
