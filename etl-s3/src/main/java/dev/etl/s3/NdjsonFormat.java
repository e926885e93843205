package dev.etl.s3;

import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Newline-delimited JSON ({@code .ndjson}, {@code .jsonl}, {@code .json}, each optionally {@code .gz} or
 * {@code .zst}): the format named {@code ndjson}. One row per line, without its {@code \n} or
 * {@code \r\n}; blank lines are no rows; a last line without a line break is a row; a UTF-8 byte-order
 * mark at the start of the object is dropped. A line is not parsed here: a malformed one goes to the
 * chain like any other, whose JSON deserializer applies its error policy per record.
 *
 * <p><b>Compression.</b> gzip (one or more members) and zstd (one or more frames) are decompressed
 * transparently, recognised by the extension and by their magic bytes. A compressed object is one
 * whole-object work item; a plain one is split by byte ranges of about {@code splitBytes}: a split
 * {@code [start, end)} owns the lines that start in it (one not at 0 skips to just past the first
 * {@code \n} at or after {@code start - 1}, and reads past {@code end} to finish its last line).
 *
 * <p><b>Errors.</b> A truncated or corrupt gzip or zstd stream, an object named {@code .gz}/{@code .zst}
 * that is not, and a line longer than the limit (16 MiB by default: memory stays bounded) are
 * {@link CorruptSplitException}s naming the object and the position; a failure of the store is an
 * {@link IOException}. Stateless and thread-safe.
 */
public final class NdjsonFormat implements BackfillFormat {
    /** The name in work items and configuration. */
    public static final String NAME = "ndjson";

    /** The default limit on a line's length: 16 MiB. */
    public static final int DEFAULT_MAX_LINE_BYTES = 16 << 20;

    private static final String[] EXTENSIONS = {".ndjson", ".jsonl", ".json"};

    /**
     * A split's first GET reaches this far past its end, where its last line usually ends: one request
     * a split instead of two (a longer last line extends the read).
     */
    private static final int TAIL_BYTES = 16 * 1024;

    private final int maxLineBytes;

    /** With the default line limit of 16 MiB. */
    public NdjsonFormat() {
        this(DEFAULT_MAX_LINE_BYTES);
    }

    /** @param maxLineBytes the longest line (without its line break) a row may be */
    public NdjsonFormat(int maxLineBytes) {
        if (maxLineBytes <= 0 || maxLineBytes > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException("maxLineBytes must be positive, not " + maxLineBytes);
        }
        this.maxLineBytes = maxLineBytes;
    }

    @Override
    public String name() {
        return NAME;
    }

    /** Keys ending in {@code .ndjson}, {@code .jsonl} or {@code .json}, optionally with {@code .gz} or {@code .zst}. */
    @Override
    public boolean matches(String key) {
        String k = stripCompression(key.toLowerCase(Locale.ROOT));
        for (String extension : EXTENSIONS) {
            if (k.endsWith(extension)) {
                return true;
            }
        }
        return false;
    }

    /**
     * One whole-object item for a compressed object (by extension, or by its first bytes) or one not
     * larger than {@code splitBytes}; otherwise byte ranges of {@code splitBytes}, the last ending at the
     * end of the object ({@code -1}). Reads the first 4 bytes of a plain-named object it would split.
     */
    @Override
    public List<WorkItem> plan(ObjectStore store, ObjectInfo object, long splitBytes) throws IOException {
        if (splitBytes <= 0) {
            throw new IllegalArgumentException("splitBytes must be positive, not " + splitBytes);
        }
        WorkItem whole = new WorkItem(NAME, object.bucket(), object.key(), 0, -1, object.size(), object.etag());
        if (Compression.byName(object.key()) != Compression.NONE || object.size() <= splitBytes) {
            return List.of(whole);
        }
        byte[] magic = new byte[4];
        int n;
        try (InputStream in = store.open(object.bucket(), object.key(), object.etag(), 0, magic.length)) {
            n = in.readNBytes(magic, 0, magic.length);
        }
        if (Compression.byMagic(magic, n) != Compression.NONE) {
            return List.of(whole);
        }
        List<WorkItem> items = new ArrayList<>();
        for (long start = 0; start < object.size(); start += splitBytes) {
            long end = start + splitBytes >= object.size() ? -1 : start + splitBytes;
            items.add(new WorkItem(NAME, object.bucket(), object.key(), start, end, object.size(), object.etag()));
        }
        return items;
    }

    @Override
    public void read(ObjectStore store, WorkItem item, long skipRows, RowOutput out)
            throws IOException, CorruptSplitException {
        if (skipRows < 0) {
            throw new IllegalArgumentException("skipRows must not be negative, not " + skipRows);
        }
        String where = item.describe();
        long end = item.end() < 0 ? Long.MAX_VALUE : item.end();
        if (item.start() > 0) {
            // A split of a plain object: its lines start after the first line break at or after start - 1.
            try (ObjectRange range = ObjectRange.of(store, item, item.start() - 1, withTail(item.end()), out)) {
                LineReader lines = new LineReader(range, item.start() - 1, maxLineBytes, where, "byte");
                if (lines.skipPastNewline()) {
                    lines.deliver(end, skipRows, out);
                }
            }
            return;
        }
        try (ObjectRange range = ObjectRange.of(store, item, 0, withTail(item.end()), out)) {
            Compression compression = Compression.NONE;
            InputStream source = range;
            if (item.wholeObject()) {
                BufferedInputStream buffered = new BufferedInputStream(range, 64 * 1024);
                buffered.mark(4);
                byte[] magic = new byte[4];
                int n = buffered.readNBytes(magic, 0, magic.length);
                buffered.reset();
                compression = Compression.byMagic(magic, n);
                Compression named = Compression.byName(item.key());
                if (n == 0) {
                    return; // an empty object has no lines, whatever its name
                }
                if (named != Compression.NONE && compression != named) {
                    throw new CorruptSplitException(
                            where + ": named " + named.extension + " but does not start with the " + named.label
                                    + " magic bytes",
                            null);
                }
                source = buffered;
            }
            if (compression == Compression.NONE) {
                LineReader lines = new LineReader(source, 0, maxLineBytes, where, "byte");
                lines.skipByteOrderMark();
                lines.deliver(end, skipRows, out);
                return;
            }
            readCompressed(compression, source, range, skipRows, out, where);
        }
    }

    private void readCompressed(
            Compression compression, InputStream source, ObjectRange range, long skipRows, RowOutput out, String where)
            throws IOException, CorruptSplitException {
        try (InputStream decompressed =
                compression == Compression.GZIP ? new GzipMembers(source) : new ZstdInputStreamNoFinalizer(source)) {
            LineReader lines = new LineReader(decompressed, 0, maxLineBytes, where, "decompressed byte");
            lines.skipByteOrderMark();
            lines.deliver(Long.MAX_VALUE, skipRows, out);
        } catch (IOException e) {
            if (range.storeFailure() != null) {
                throw range.storeFailure();
            }
            throw new CorruptSplitException(
                    where + ": the " + compression.label + " stream is corrupt or truncated: " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return "NdjsonFormat[maxLineBytes=" + maxLineBytes + "]";
    }

    private static long withTail(long end) {
        return end < 0 ? -1 : end + TAIL_BYTES;
    }

    private static String stripCompression(String key) {
        for (Compression c : Compression.values()) {
            if (c.extension != null && key.endsWith(c.extension)) {
                return key.substring(0, key.length() - c.extension.length());
            }
        }
        return key;
    }

    private enum Compression {
        NONE(null, "plain"),
        GZIP(".gz", "gzip"),
        ZSTD(".zst", "zstd");

        final String extension;
        final String label;

        Compression(String extension, String label) {
            this.extension = extension;
            this.label = label;
        }

        static Compression byName(String key) {
            String k = key.toLowerCase(Locale.ROOT);
            return k.endsWith(".gz") ? GZIP : k.endsWith(".zst") ? ZSTD : NONE;
        }

        static Compression byMagic(byte[] b, int n) {
            if (n >= 2 && (b[0] & 0xff) == 0x1f && (b[1] & 0xff) == 0x8b) {
                return GZIP;
            }
            if (n >= 4
                    && (b[0] & 0xff) == 0x28
                    && (b[1] & 0xff) == 0xb5
                    && (b[2] & 0xff) == 0x2f
                    && (b[3] & 0xff) == 0xfd) {
                return ZSTD;
            }
            return NONE;
        }
    }
}
