package dev.etl.s3;

import dev.etl.avro.AvroLimits;
import dev.etl.avro.binary.AvroCursor;
import dev.etl.avro.binary.AvroSkipper;
import dev.etl.avro.binary.MalformedAvroException;
import java.io.IOException;
import java.util.Arrays;
import org.apache.avro.Schema;

/**
 * Reads one split of an Avro object container file: the header (from offset 0), then the blocks that
 * begin in {@code [start, end)}, each checked whole (sync marker, decompression, record boundaries)
 * before its first row goes out, so a corrupt block delivers none of its rows. A row is the record's
 * binary body exactly as in the file behind a single-object header; the header is written into the
 * 10 bytes before the body in the block's own array (the headroom, or the tail of the previous,
 * already delivered record), so a row costs no copy here. One split read, one reader thread.
 */
final class AvroSplitReader implements AutoCloseable {
    /** The first window for reading a header: most headers (schema included) fit. */
    private static final int HEADER_PROBE = 16 * 1024;
    /**
     * A split's first GET reaches this far past its end, where its last block usually ends (Avro's
     * writers cut blocks at 64 KiB before compression): one request instead of two.
     */
    private static final int TAIL_BYTES = 64 * 1024;
    /** Blocks with more records are delimited twice (check, then deliver) instead of keeping offsets. */
    private static final int MAX_OFFSETS = 1 << 20;

    private final ObjectStore store;
    private final WorkItem item;
    private final RowOutput out;
    private final int maxBlockBytes;
    private final String where;

    private AvroFileInput in;
    private AvroBlockCodec codec;
    /** The writer schema, whose records {@link #skipRecord} finds the ends of. */
    private Schema schema;
    /** The fewest bytes one record takes ({@link AvroSkipper#minBytes}): bounds a block's record count. */
    private int minBytes;
    /** Over one record at a time, for {@link AvroSkipper}: each record gets the bounds of one body. */
    private final AvroCursor cursor = new AvroCursor();

    private long fingerprint;
    private String schemaName;
    private byte[] sync;
    private final byte[] trailer = new byte[AvroContainerHeader.SYNC_SIZE];
    private byte[] compressed = new byte[0];
    private int[] offsets = new int[1024];
    /**
     * The records of the split's blocks so far when the schema's records take no bytes: a block's count
     * is then bounded by nothing in the data, so by {@link AvroLimits#maxZeroByteItems()} for the split.
     */
    private long zeroByteRecords;

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
        try (AvroFileInput header =
                new AvroFileInput(ObjectRange.of(store, item, 0, HEADER_PROBE, progress), item.describe())) {
            return AvroContainerHeader.read(header);
        }
    }

    void read(long skipRows) throws IOException, CorruptSplitException {
        long end = item.end() < 0 ? Long.MAX_VALUE : item.end();
        AvroContainerHeader header;
        if (item.start() == 0) {
            in = new AvroFileInput(ObjectRange.of(store, item, 0, withTail(item.end()), out), where);
            header = AvroContainerHeader.read(in);
        } else {
            header = header(store, item, out);
        }
        sync = header.sync();
        codec = AvroBlockCodec.forName(header.codec(), where);
        schema = header.schema();
        minBytes = AvroSkipper.minBytes(schema);
        fingerprint = AvroRows.register(header.schema());
        schemaName = header.schema().getFullName();
        if (item.start() > header.length()) {
            // The first block that begins at or after start follows the first sync marker ending there.
            long scanFrom = Math.max(item.start() - AvroContainerHeader.SYNC_SIZE, header.length());
            in = new AvroFileInput(ObjectRange.of(store, item, scanFrom, withTail(item.end()), out), where);
            long markerBefore = end == Long.MAX_VALUE ? Long.MAX_VALUE : end - AvroContainerHeader.SYNC_SIZE;
            if (!in.skipPastSync(sync, markerBefore)) {
                return;
            }
        } else if (in == null) {
            in = new AvroFileInput(ObjectRange.of(store, item, header.length(), withTail(item.end()), out), where);
        }
        long skip = skipRows;
        while (in.position() < end && !in.atEnd()) {
            skip = block(skip);
        }
    }

    /** Reads one block, delivering its rows after the first {@code skip}; returns the rows left to skip. */
    private long block(long skip) throws IOException, CorruptSplitException {
        long at = in.position();
        long count = in.readLong("the record count of the block at byte " + at);
        long size = in.readLong("the size of the block at byte " + at);
        if (count < 0 || count > Integer.MAX_VALUE) {
            throw corrupt("bad record count " + count, at);
        }
        if (size < 0 || size > maxBlockBytes) {
            throw corrupt("bad block size " + size + " (the limit is " + maxBlockBytes + ")", at);
        }
        if (item.objectSize() >= 0 && size > item.objectSize() - in.position()) {
            throw corrupt("block size " + size + " runs past the end of the object", at);
        }
        if (minBytes == 0) {
            // Counted before the rows to skip are, so that a replay fails at the same block.
            zeroByteRecords += count;
            if (zeroByteRecords > AvroLimits.maxZeroByteItems()) {
                throw corrupt(
                        "the split's blocks claim " + zeroByteRecords + " records that take no bytes (schema "
                                + schemaName + "), more than " + AvroLimits.maxZeroByteItems() + " ("
                                + AvroLimits.MAX_ZERO_BYTE_ITEMS_PROPERTY + ")",
                        at);
            }
        }
        int length = (int) size;
        if (skip >= count) {
            in.skipFully(length, "the block at byte " + at);
            checkSync(at);
            return skip - count;
        }
        byte[] data;
        int bodyLength;
        if (codec.stored()) {
            data = codec.ensure(length);
            in.readFully(data, AvroBlockCodec.HEADROOM, length, "the block at byte " + at);
            checkSync(at);
            bodyLength = length;
        } else {
            if (compressed.length < length) {
                compressed = new byte[Math.max(length, compressed.length * 2)];
            }
            in.readFully(compressed, 0, length, "the block at byte " + at);
            checkSync(at);
            try {
                bodyLength = codec.decompress(compressed, length, maxBlockBytes);
            } catch (AvroBlockCodec.Failure e) {
                throw new CorruptSplitException(where + ": " + e.getMessage() + " (the block at byte " + at + ")", e);
            }
            data = codec.data();
        }
        deliver(data, bodyLength, (int) count, (int) skip, at);
        return 0;
    }

    private void deliver(byte[] data, int bodyLength, int count, int skip, long at) throws CorruptSplitException {
        int from = AvroBlockCodec.HEADROOM;
        int limit = from + bodyLength;
        int min = minBytes;
        if (min > 0 && (long) count * min > bodyLength) {
            throw corrupt(count + " records cannot fit in the block's " + bodyLength + " bytes", at);
        }
        if (count <= MAX_OFFSETS) {
            if (offsets.length < count + 1) {
                offsets = Arrays.copyOf(offsets, Math.max(count + 1, offsets.length * 2));
            }
            int p = from;
            for (int i = 0; i < count; i++) {
                offsets[i] = p;
                p = skipRecord(data, p, limit, i, at);
            }
            offsets[count] = checkEnd(p, limit, count, at);
            for (int i = skip; i < count; i++) {
                row(data, offsets[i], offsets[i + 1]);
            }
            return;
        }
        // Too many records to keep their offsets: find the boundaries twice.
        int p = from;
        for (int i = 0; i < count; i++) {
            p = skipRecord(data, p, limit, i, at);
        }
        checkEnd(p, limit, count, at);
        p = from;
        for (int i = 0; i < count; i++) {
            int next = skipRecord(data, p, limit, i, at);
            if (i >= skip) {
                row(data, p, next);
            }
            p = next;
        }
    }

    private void row(byte[] data, int bodyStart, int bodyEnd) {
        int rowStart = bodyStart - AvroRows.HEADER_LENGTH;
        AvroRows.writeHeader(data, rowStart, fingerprint);
        out.row(data, rowStart, bodyEnd - rowStart);
    }

    private int skipRecord(byte[] data, int p, int limit, int index, long at) throws CorruptSplitException {
        try {
            cursor.wrap(data, p, limit - p);
            AvroSkipper.skip(schema, cursor);
            return cursor.mark();
        } catch (MalformedAvroException e) {
            throw corrupt(
                    "record " + index + " (at byte " + (p - AvroBlockCodec.HEADROOM)
                            + " of the block's data) does not fit the block: " + e.getMessage(),
                    at);
        }
    }

    private int checkEnd(int p, int limit, int count, long at) throws CorruptSplitException {
        if (p != limit) {
            throw corrupt((limit - p) + " bytes follow the block's " + count + " records", at);
        }
        return p;
    }

    private void checkSync(long at) throws IOException, CorruptSplitException {
        in.readFully(trailer, 0, trailer.length, "the sync marker of the block at byte " + at);
        if (!Arrays.equals(trailer, sync)) {
            throw corrupt("the sync marker after the block does not match the header's", at);
        }
    }

    private static long withTail(long end) {
        return end < 0 ? -1 : end + TAIL_BYTES;
    }

    private CorruptSplitException corrupt(String what, long at) {
        return new CorruptSplitException(where + ": " + what + " (the block at byte " + at + ")", null);
    }

    @Override
    public void close() {
        if (in != null) {
            in.close();
        }
        if (codec != null) {
            codec.close();
        }
    }
}
