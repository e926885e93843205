package dev.etl.s3;

/**
 * A run of consecutive rows of one work item, copied by its reader thread into a reusable buffer and
 * handed to the lane: the read-ahead unit. A reader owns a fixed set of segments (its read-ahead bytes),
 * so a lane that stops taking rows stops its reader, never the other way round.
 *
 * <p>Written only by the reader until published, then read only by the lane until recycled (the
 * hand-over through a concurrent queue orders the two).
 */
final class RowSegment {
    byte[] data;
    int[] starts;
    int[] lengths;
    int count;
    int used;
    /** The item's offset on the work topic. */
    long itemOffset;
    /** The item-relative index of the first row. */
    long firstRow;
    /** The item ends with this segment (its rows, if any, are the item's last). */
    boolean itemEnd;
    /** Rows the item produced in all (valid when {@link #itemEnd}). */
    long itemRows;
    /** Why the rest of the item could not be read (valid when {@link #itemEnd}), or null. */
    CorruptSplitException corrupt;
    /** A failure that must fail the pipeline (retries exhausted, a bad work item), or null. */
    RuntimeException failure;

    WorkItem item;
    /** When the first row was added (reader's clock). */
    long startedNs;
    /** Bytes read from storage for this segment (progress). */
    long bytesRead;

    RowSegment(int bytes, int rows) {
        data = new byte[bytes];
        starts = new int[rows];
        lengths = new int[rows];
    }

    void reset(long itemOffset, WorkItem item, long firstRow) {
        this.itemOffset = itemOffset;
        this.item = item;
        this.firstRow = firstRow;
        count = 0;
        used = 0;
        itemEnd = false;
        itemRows = 0;
        corrupt = null;
        failure = null;
        bytesRead = 0;
    }

    /** Whether a row of {@code length} bytes fits (an empty segment takes any row, growing once). */
    boolean fits(int length) {
        return count < starts.length && used + length <= data.length;
    }

    void add(byte[] array, int offset, int length) {
        if (count == 0 && length > data.length) {
            data = new byte[length];
        }
        System.arraycopy(array, offset, data, used, length);
        starts[count] = used;
        lengths[count] = length;
        used += length;
        count++;
    }
}
