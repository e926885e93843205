package dev.etl.s3;

import dev.etl.avro.binary.MalformedAvroException;
import dev.etl.avro.container.AvroContainerHeader;
import dev.etl.avro.container.AvroContainerReader;
import java.io.IOException;

/**
 * Reads one split of an Avro object container file with etl-avro's {@link AvroContainerReader}: the
 * header (from offset 0), then the blocks that begin in {@code [start, end)}, each checked whole by the
 * reader before its first row goes out, so a corrupt block delivers none of its rows. What is about the
 * object store is here: the windows of the object read ({@link ObjectRange}), the sync scan a later split
 * starts with, the rows to skip, and the reader's {@link MalformedAvroException} turned into a
 * {@link CorruptSplitException} naming the object. A row is the record's binary body behind a
 * single-object header, written into the reader's {@link AvroContainerReader#HEADROOM} before the body,
 * so a row costs no copy here. One split read, one reader thread.
 */
final class AvroSplitReader implements AvroContainerReader.RecordHandler {
    /** The first window for reading a header: most headers (schema included) fit. */
    private static final int HEADER_PROBE = 16 * 1024;
    /**
     * A split's first GET reaches this far past its end, where its last block usually ends (Avro's
     * writers cut blocks at 64 KiB before compression): one request instead of two.
     */
    private static final int TAIL_BYTES = 64 * 1024;
    /** The sync marker's length: a later split scans from this far before its start. */
    private static final int SYNC_SIZE = 16;

    private final ObjectStore store;
    private final WorkItem item;
    private final RowOutput out;
    private final int maxBlockBytes;
    private final String where;
    private long fingerprint;

    AvroSplitReader(ObjectStore store, WorkItem item, RowOutput out, int maxBlockBytes) {
        this.store = store;
        this.item = item;
        this.out = out;
        this.maxBlockBytes = maxBlockBytes;
        this.where = item.describe();
    }

    /** Reads the header of an object: what {@code plan} needs. */
    static AvroContainerHeader header(ObjectStore store, WorkItem item, RowOutput progress)
            throws IOException, CorruptSplitException {
        try (ObjectRange range = ObjectRange.of(store, item, 0, HEADER_PROBE, progress)) {
            return AvroContainerHeader.read(range);
        } catch (MalformedAvroException e) {
            throw corrupt(item.describe(), e);
        }
    }

    void read(long skipRows) throws IOException, CorruptSplitException {
        long end = item.end() < 0 ? Long.MAX_VALUE : item.end();
        try (AvroContainerReader reader = open(end)) {
            if (reader == null) {
                return;
            }
            fingerprint = AvroRows.register(reader.header().schema());
            long skip = skipRows;
            while (reader.position() < end && !reader.atEnd()) {
                skip = reader.readBlock(skip, this);
            }
        } catch (MalformedAvroException e) {
            throw corrupt(where, e);
        }
    }

    /** A reader at the split's first block, or null when no block begins in the split. */
    private AvroContainerReader open(long end) throws IOException, CorruptSplitException {
        long size = item.objectSize();
        if (item.start() == 0) {
            ObjectRange range = ObjectRange.of(store, item, 0, withTail(item.end()), out);
            try {
                return AvroContainerReader.open(range, size, maxBlockBytes);
            } catch (IOException | RuntimeException e) {
                range.close();
                throw e;
            }
        }
        AvroContainerHeader header = header(store, item, out);
        if (item.start() <= header.length()) {
            return AvroContainerReader.resume(
                    header,
                    ObjectRange.of(store, item, header.length(), withTail(item.end()), out),
                    header.length(),
                    size,
                    maxBlockBytes);
        }
        // The first block that begins at or after start follows the first sync marker ending there.
        long scanFrom = Math.max(item.start() - SYNC_SIZE, header.length());
        AvroContainerReader reader = AvroContainerReader.resume(
                header,
                ObjectRange.of(store, item, scanFrom, withTail(item.end()), out),
                scanFrom,
                size,
                maxBlockBytes);
        long markerBefore = end == Long.MAX_VALUE ? Long.MAX_VALUE : end - SYNC_SIZE;
        try {
            if (reader.skipToNextBlock(markerBefore)) {
                return reader;
            }
        } catch (IOException | RuntimeException e) {
            reader.close();
            throw e;
        }
        reader.close();
        return null;
    }

    @Override
    public void record(byte[] array, int offset, int length) {
        int rowStart = offset - AvroRows.HEADER_LENGTH;
        AvroRows.writeHeader(array, rowStart, fingerprint);
        out.row(array, rowStart, length + AvroRows.HEADER_LENGTH);
    }

    private static long withTail(long end) {
        return end < 0 ? -1 : end + TAIL_BYTES;
    }

    private static CorruptSplitException corrupt(String where, MalformedAvroException e) {
        return new CorruptSplitException(where + ": " + e.getMessage(), e);
    }
}
