package dev.etl.internal.sink;

import java.util.Arrays;

/**
 * Where the rows of a chunk or a batch came from (source partition and offset), so that a row the server
 * refuses can be named by its record (issue 30 item 5), kept run-length encoded: a run is either
 * consecutive records of one partition, one row each ({@code orders-3} offsets 1200, 1201, 1202…: the
 * common chain, one run per chunk), or several rows of one record (a fan-out encoder). A filter, another
 * partition or a record of several rows starts a new run.
 *
 * <p>Bounded: at most {@code maxRuns} runs; rows beyond are kept as "position unknown" (so memory is at
 * most a few percent of a chunk's, and a chain that filters every other record costs no more). Rows
 * emitted from data a stateful operator held have no single record and are added as unknown.
 *
 * <p>Per row on the lane ({@link #add}): a compare or two and an increment; an append per new run.
 * Confined to the thread that owns the chunk or batch.
 */
final class RowSources {
    /** Runs a chunk keeps (a chunk holds at most {@code ChunkConfig.maxRows}, 8,192 by default). */
    static final int CHUNK_RUNS = 1024;
    /** Runs a sealed batch keeps: the runs of the chunks merged into it, up to this many. */
    static final int BATCH_RUNS = 1 << 16;

    private static final int UNKNOWN = -1;
    /** {@link #openPartition} when no run is being extended. */
    private static final int NONE = Integer.MIN_VALUE;

    private final int maxRuns;
    private int[] partitions = new int[4];
    private long[] offsets = new long[4];
    /** Rows of the run; negative: that many rows of one record (all at the run's offset). */
    private int[] rows = new int[4];

    private int size;
    /** Rows added after the runs ran out (positions unknown). */
    private int overflowRows;
    /** The run being extended: its partition ({@link #NONE}: none), first offset, rows (raw), next offset. */
    private int openPartition = NONE;

    private long openOffset;
    private int openRows;
    private long openNext;

    RowSources(int maxRuns) {
        this.maxRuns = maxRuns;
    }

    /**
     * {@code count} rows of the record at {@code offset} of {@code partition} were added ({@code partition}
     * negative: no single source record). Hot path.
     */
    void add(int partition, long offset, int count) {
        // The common row: the next offset of the run being extended. Small enough to inline into the sink
        // stage's per-record path (two compares and two increments, no array access).
        if (partition == openPartition && offset == openNext && count == 1 && openRows > 0) {
            openRows++;
            openNext++;
            return;
        }
        addRun(partition, offset, count);
    }

    /** {@link #add} for a row that does not continue the open run the common way. */
    private void addRun(int partition, long offset, int count) {
        if (partition < 0) {
            partition = UNKNOWN;
        }
        // The run being extended lives in fields: the common row (the next offset of the same partition)
        // costs two compares and two increments, no array access.
        if (partition == openPartition) {
            if (partition == UNKNOWN) {
                openRows += count;
                return;
            }
            if (count == 1 && openRows > 0 && offset == openNext) {
                openRows++;
                openNext++;
                return;
            }
        }
        closeOpen();
        openPartition = partition;
        openOffset = offset;
        openRows = partition == UNKNOWN || count == 1 ? count : -count;
        openNext = offset + 1;
    }

    /** Moves the run being extended into the arrays (before they are read or extended from elsewhere). */
    private void closeOpen() {
        if (openPartition != NONE) {
            appendRaw(openPartition, openOffset, openRows);
            openPartition = NONE;
        }
    }

    /** Appends a run as stored: {@code rowsRaw} negative for several rows of one record. */
    private void appendRaw(int partition, long offset, int rowsRaw) {
        int n = size;
        if (overflowRows > 0 || n == maxRuns) {
            overflowRows += Math.abs(rowsRaw);
            return;
        }
        if (n == partitions.length) {
            int capacity = Math.min(maxRuns, n << 1);
            partitions = Arrays.copyOf(partitions, capacity);
            offsets = Arrays.copyOf(offsets, capacity);
            rows = Arrays.copyOf(rows, capacity);
        }
        partitions[n] = partition;
        offsets[n] = offset;
        rows[n] = rowsRaw;
        size = n + 1;
    }

    /** Appends {@code other}'s rows after this one's (merging a chunk into a batch). */
    void addAll(RowSources other) {
        closeOpen();
        other.closeOpen();
        for (int i = 0; i < other.size; i++) {
            int p = other.partitions[i];
            long o = other.offsets[i];
            int r = other.rows[i];
            int n = size;
            if (overflowRows == 0 && n > 0 && partitions[n - 1] == p) {
                if (p == UNKNOWN) {
                    rows[n - 1] += r;
                    continue;
                }
                if (r > 0 && rows[n - 1] > 0 && offsets[n - 1] + rows[n - 1] == o) {
                    rows[n - 1] += r;
                    continue;
                }
            }
            appendRaw(p, o, r);
        }
        overflowRows += other.overflowRows;
    }

    void clear() {
        size = 0;
        overflowRows = 0;
        openPartition = NONE;
    }

    /** Partition of row {@code row} (0-based), or -1 when unknown. */
    int partition(int row) {
        int i = run(row);
        return i < 0 ? UNKNOWN : partitions[i];
    }

    /** Source offset of row {@code row}, or -1 when unknown. */
    long offset(int row) {
        int i = run(row);
        if (i < 0 || partitions[i] == UNKNOWN) {
            return -1;
        }
        if (rows[i] < 0) {
            return offsets[i];
        }
        return offsets[i] + (row - firstRow(i));
    }

    private int firstRow(int run) {
        int first = 0;
        for (int i = 0; i < run; i++) {
            first += Math.abs(rows[i]);
        }
        return first;
    }

    /** The run holding {@code row}, or -1 (beyond the runs kept). Failure path: a linear walk. */
    private int run(int row) {
        closeOpen();
        int first = 0;
        for (int i = 0; i < size; i++) {
            int r = Math.abs(rows[i]);
            if (row < first + r) {
                return i;
            }
            first += r;
        }
        return -1;
    }

    /** Runs kept now (tests). */
    int runs() {
        closeOpen();
        return size;
    }
}
