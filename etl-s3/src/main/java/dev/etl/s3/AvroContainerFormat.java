package dev.etl.s3;

import dev.etl.avro.container.AvroContainerHeader;
import dev.etl.avro.container.AvroContainerReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Avro object container files ({@code .avro}): the format named {@code avro}.
 *
 * <p><b>Splits.</b> {@link #plan} reads the header (magic, metadata with the writer schema and codec,
 * the sync marker) and cuts the object into byte ranges of about {@code splitBytes}, the first from 0
 * to just past {@code splitBytes} after the header. A split {@code [start, end)} owns the blocks that
 * begin in it, that is whose preceding sync marker ends in it (the header's, for the first block): a
 * reader seeks to {@code start - 16}, scans for the sync marker and reads blocks while the next one
 * begins before {@code end}, reading past {@code end} to finish the last. Every block belongs to exactly
 * one split; a split may own none (a block larger than a split).
 *
 * <p><b>Rows.</b> The file is read by etl-avro's {@link AvroContainerReader} (header, blocks, codecs,
 * record boundaries); this format adds what is about object storage. Each record is handed to
 * {@link RowOutput#row} in Avro's single-object encoding: the 10-byte header of {@link AvroRows} (the
 * file's writer schema, registered once per read with {@link AvroRows#register}) followed by the record's
 * binary body exactly as in the file. The bodies are delimited by skipping over the writer schema, never
 * decoded into objects. {@code skipRows} skips whole blocks by their record counts without decompressing
 * them.
 *
 * <p><b>Codecs.</b> {@code null}, {@code deflate} and {@code zstandard} are built in; {@code snappy},
 * {@code bzip2} and {@code xz} use Avro's codec classes and need their library on the class path
 * ({@code org.xerial.snappy:snappy-java}, {@code org.apache.commons:commons-compress},
 * {@code org.tukaani:xz}): without it, plan and read fail naming the library.
 *
 * <p><b>Errors.</b> Bad magic, a sync marker that does not match the header's, a negative or absurd
 * block count or size, a block that does not decompress, a record that runs past its block (or bytes
 * left after its last record), a truncated object: {@link CorruptSplitException} naming the object, the
 * block's byte position and what was wrong (the reader's {@code MalformedAvroException} is its cause),
 * thrown before any row of that block is delivered. A failure
 * of the store is an {@link IOException}. Stateless and thread-safe; memory per read is one block
 * (compressed and decompressed) plus a 64 KiB buffer.
 */
public final class AvroContainerFormat implements BackfillFormat {
    /** The name in work items and configuration. */
    public static final String NAME = "avro";

    /** The default limit on a block's size, compressed or not (Avro's writers default to 64 KiB blocks). */
    public static final int DEFAULT_MAX_BLOCK_BYTES = 256 << 20;

    private final int maxBlockBytes;

    /** With the default block limit, {@value #DEFAULT_MAX_BLOCK_BYTES} bytes. */
    public AvroContainerFormat() {
        this(DEFAULT_MAX_BLOCK_BYTES);
    }

    /**
     * @param maxBlockBytes the largest block (compressed or decompressed) a file may have; a larger one is
     *                      corrupt (the bound on a reader's memory)
     */
    public AvroContainerFormat(int maxBlockBytes) {
        if (maxBlockBytes <= 0 || maxBlockBytes > Integer.MAX_VALUE - 64) {
            throw new IllegalArgumentException("maxBlockBytes must be positive, not " + maxBlockBytes);
        }
        this.maxBlockBytes = maxBlockBytes;
    }

    @Override
    public String name() {
        return NAME;
    }

    /** Keys ending in {@code .avro} (any case). */
    @Override
    public boolean matches(String key) {
        return key.toLowerCase(Locale.ROOT).endsWith(".avro");
    }

    /**
     * Reads the header and cuts the object into splits: {@code [0, headerLength + splitBytes)}, then
     * {@code splitBytes} each, the last ending at the end of the object ({@code -1}); one whole-object item
     * when the object is not larger than that first split.
     *
     * @throws CorruptSplitException when the header is not an Avro container header, or its codec cannot
     *                               be read in this process
     */
    @Override
    public List<WorkItem> plan(ObjectStore store, ObjectInfo object, long splitBytes)
            throws IOException, CorruptSplitException {
        if (splitBytes <= 0) {
            throw new IllegalArgumentException("splitBytes must be positive, not " + splitBytes);
        }
        WorkItem whole = new WorkItem(NAME, object.bucket(), object.key(), 0, -1, object.size(), object.etag());
        // Reading the header also checks that this process can decode the file's codec.
        AvroContainerHeader header = AvroSplitReader.header(store, whole, NO_PROGRESS);
        List<WorkItem> items = new ArrayList<>();
        long start = 0;
        long next = header.length() + splitBytes;
        while (next < object.size()) {
            items.add(new WorkItem(NAME, object.bucket(), object.key(), start, next, object.size(), object.etag()));
            start = next;
            next = start + splitBytes;
        }
        items.add(new WorkItem(NAME, object.bucket(), object.key(), start, -1, object.size(), object.etag()));
        return items;
    }

    @Override
    public void read(ObjectStore store, WorkItem item, long skipRows, RowOutput out)
            throws IOException, CorruptSplitException {
        if (skipRows < 0) {
            throw new IllegalArgumentException("skipRows must not be negative, not " + skipRows);
        }
        new AvroSplitReader(store, item, out, maxBlockBytes).read(skipRows);
    }

    @Override
    public String toString() {
        return "AvroContainerFormat[maxBlockBytes=" + maxBlockBytes + "]";
    }

    private static final RowOutput NO_PROGRESS = new RowOutput() {
        @Override
        public void row(byte[] array, int offset, int length) {
            throw new IllegalStateException("planning reads no rows");
        }

        @Override
        public void bytesRead(long bytes) {}
    };
}
