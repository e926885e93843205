package dev.etl.avro.container;

import dev.etl.avro.AvroLimits;
import dev.etl.avro.binary.AvroCursor;
import dev.etl.avro.binary.AvroFraming;
import dev.etl.avro.binary.AvroSkipper;
import dev.etl.avro.binary.MalformedAvroException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import org.apache.avro.Schema;

/**
 * Reads the blocks of an Avro object container file from an {@link InputStream} and hands over their
 * records' binary bodies exactly as in the file, delimited by {@link AvroSkipper} over the writer schema,
 * never decoded into objects.
 *
 * <p><b>Blocks.</b> Each block is checked whole before its first record is handed over: its record count
 * and size (a size over {@code maxBlockBytes} or past the file's known length is corrupt; so is a count
 * its bytes cannot hold, and, for a schema whose records take no bytes, more records in all than
 * {@link AvroLimits#maxZeroByteItems()}), the sync marker after it, its decompression (the codecs of
 * {@link AvroContainerHeader}) and its record boundaries (a record running past the block, or bytes left
 * after its last record). So a corrupt block hands over none of its records. A block whose records are all
 * to be skipped is skipped by its size, neither decompressed nor delimited.
 *
 * <p><b>Records.</b> {@link RecordHandler#record} gets each body as a range of the reader's array; the
 * {@link #HEADROOM} bytes before it are the handler's to overwrite (free space before the block's first
 * record, else the end of records already handed over): room for a single-object header, so that the
 * body becomes a single-object payload without a copy. The array is reused by the next block.
 *
 * <p><b>Errors.</b> Bytes that are not a valid container file throw {@link MalformedAvroException}, whose
 * message names what was wrong and the byte position of the block in the file; a failure of the stream is
 * an {@link IOException}; exceptions of the handler pass through. Memory is one block, compressed and
 * decompressed, plus a 64 KiB buffer. One reader thread; not thread-safe.
 */
public final class AvroContainerReader implements AutoCloseable {
    /** The bytes before each record's body that a {@link RecordHandler} may overwrite. */
    public static final int HEADROOM = AvroFraming.SINGLE_OBJECT_HEADER_LENGTH;

    /** Blocks with more records are delimited twice (check, then hand over) instead of keeping offsets. */
    private static final int MAX_OFFSETS = 1 << 20;

    /** Receives the records of a block, in file order, on the reader's thread. */
    @FunctionalInterface
    public interface RecordHandler {
        /**
         * One record's binary body: {@code array[offset, offset + length)}, valid until the handler returns;
         * {@code array[offset - HEADROOM, offset)} may be overwritten.
         */
        void record(byte[] array, int offset, int length);
    }

    private final AvroContainerHeader header;
    private final ContainerInput in;
    private final long fileLength;
    private final int maxBlockBytes;
    private final BlockCodec codec;
    private final Schema schema;
    /** The fewest bytes one record takes ({@link AvroSkipper#minBytes}): bounds a block's record count. */
    private final int minBytes;
    /** Over one record at a time, for {@link AvroSkipper}: each record gets the bounds of one body. */
    private final AvroCursor cursor = new AvroCursor();

    private final byte[] trailer = new byte[AvroContainerHeader.SYNC_SIZE];
    private byte[] compressed = new byte[0];
    private int[] offsets = new int[1024];
    /**
     * The records of the blocks read so far when the schema's records take no bytes: a block's count is
     * then bounded by nothing in the data, so by {@link AvroLimits#maxZeroByteItems()} for the reader.
     */
    private long zeroByteRecords;

    private AvroContainerReader(AvroContainerHeader header, ContainerInput in, long fileLength, int maxBlockBytes) {
        if (maxBlockBytes <= 0 || maxBlockBytes > Integer.MAX_VALUE - 64) {
            throw new IllegalArgumentException("maxBlockBytes must be positive, not " + maxBlockBytes);
        }
        this.header = header;
        this.in = in;
        this.fileLength = fileLength;
        this.maxBlockBytes = maxBlockBytes;
        this.schema = header.schema();
        this.minBytes = AvroSkipper.minBytes(schema);
        this.codec = BlockCodec.forName(header.codec());
    }

    /**
     * A reader of a whole file: reads its header, then is at its first block.
     *
     * @param in            the file from its first byte; closed by {@link #close()}
     * @param fileLength    the file's length in bytes, or -1 when unknown
     * @param maxBlockBytes the largest block (compressed or decompressed) the file may have: the bound on
     *                      the reader's memory
     * @throws MalformedAvroException as {@link AvroContainerHeader#read} does (then {@code in} is left open,
     *                                the caller's to close)
     */
    public static AvroContainerReader open(InputStream in, long fileLength, int maxBlockBytes) throws IOException {
        ContainerInput input = new ContainerInput(in, 0);
        return new AvroContainerReader(AvroContainerHeader.read(input), input, fileLength, maxBlockBytes);
    }

    /**
     * A reader of a file from {@code position} on, its header read before ({@link AvroContainerHeader#read}):
     * at a block's start, or anywhere before one if {@link #skipToNextBlock} comes first.
     *
     * @param in       the file from {@code position}; closed by {@link #close()}
     * @param position the file position of {@code in}'s first byte
     */
    public static AvroContainerReader resume(
            AvroContainerHeader header, InputStream in, long position, long fileLength, int maxBlockBytes) {
        return new AvroContainerReader(header, new ContainerInput(in, position), fileLength, maxBlockBytes);
    }

    /** The file's header. */
    public AvroContainerHeader header() {
        return header;
    }

    /** The file position of the next byte to read: after {@link #readBlock}, the next block's start. */
    public long position() {
        return in.position();
    }

    /** Whether the file has no more bytes. */
    public boolean atEnd() throws IOException {
        return in.atEnd();
    }

    /**
     * Scans forward for the header's sync marker and stops just after it, at the start of the next block
     * (how a reader starting in the middle of a file finds a block).
     *
     * @param before a marker must begin before this file position
     * @return whether a marker was found (else the position is undefined, up to {@code before} or the end)
     */
    public boolean skipToNextBlock(long before) throws IOException {
        return in.skipPastSync(header.sync(), before);
    }

    /**
     * Reads the block at the current position and hands its records after the first {@code skip} to
     * {@code handler} (none when {@code skip} is at least its count: then it is skipped undecompressed).
     *
     * @return the records still to skip ({@code skip} less the block's count, or 0)
     * @throws MalformedAvroException when the block is corrupt (before any of its records is handed over)
     */
    public long readBlock(long skip, RecordHandler handler) throws IOException {
        long at = in.position();
        long count = in.readLong("the record count of the block at byte " + at);
        long size = in.readLong("the size of the block at byte " + at);
        if (count < 0 || count > Integer.MAX_VALUE) {
            throw corrupt("bad record count " + count, at);
        }
        if (size < 0 || size > maxBlockBytes) {
            throw corrupt("bad block size " + size + " (the limit is " + maxBlockBytes + ")", at);
        }
        if (fileLength >= 0 && size > fileLength - in.position()) {
            throw corrupt("block size " + size + " runs past the end of the object", at);
        }
        if (minBytes == 0) {
            // Counted before the records to skip are, so that a replay fails at the same block.
            zeroByteRecords += count;
            if (zeroByteRecords > AvroLimits.maxZeroByteItems()) {
                throw corrupt(
                        "the split's blocks claim " + zeroByteRecords + " records that take no bytes (schema "
                                + schema.getFullName() + "), more than " + AvroLimits.maxZeroByteItems() + " ("
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
            in.readFully(data, HEADROOM, length, "the block at byte " + at);
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
            } catch (BlockCodec.Failure e) {
                throw new MalformedAvroException(e.getMessage() + " (the block at byte " + at + ")", e);
            }
            data = codec.data();
        }
        deliver(data, bodyLength, (int) count, (int) skip, at, handler);
        return 0;
    }

    private void deliver(byte[] data, int bodyLength, int count, int skip, long at, RecordHandler handler) {
        int from = HEADROOM;
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
                handler.record(data, offsets[i], offsets[i + 1] - offsets[i]);
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
                handler.record(data, p, next - p);
            }
            p = next;
        }
    }

    private int skipRecord(byte[] data, int p, int limit, int index, long at) {
        try {
            cursor.wrap(data, p, limit - p);
            AvroSkipper.skip(schema, cursor);
            return cursor.mark();
        } catch (MalformedAvroException e) {
            throw corrupt(
                    "record " + index + " (at byte " + (p - HEADROOM) + " of the block's data) does not fit the block: "
                            + e.getMessage(),
                    at);
        }
    }

    private int checkEnd(int p, int limit, int count, long at) {
        if (p != limit) {
            throw corrupt((limit - p) + " bytes follow the block's " + count + " records", at);
        }
        return p;
    }

    private void checkSync(long at) throws IOException {
        in.readFully(trailer, 0, trailer.length, "the sync marker of the block at byte " + at);
        if (!Arrays.equals(trailer, header.sync())) {
            throw corrupt("the sync marker after the block does not match the header's", at);
        }
    }

    private static MalformedAvroException corrupt(String what, long at) {
        return new MalformedAvroException(what + " (the block at byte " + at + ")");
    }

    /** Closes the stream and releases the codec's native or inflater memory. */
    @Override
    public void close() throws IOException {
        try {
            codec.close();
        } finally {
            in.close();
        }
    }
}
