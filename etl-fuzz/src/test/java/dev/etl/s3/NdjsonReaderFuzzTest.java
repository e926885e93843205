package dev.etl.s3;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.github.luben.zstd.Zstd;
import dev.etl.fuzz.Budget;
import dev.etl.fuzz.Budget.Outcome;
import dev.etl.fuzz.Corpus;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/**
 * The backfill's NDJSON reader ({@link NdjsonFormat}, {@link LineReader}, {@link GzipMembers}, zstd
 * frames) against a line splitter written from the format's documented rules: lines end at {@code \n}
 * (a {@code \r} before it dropped), a last line without a line break is a row, blank lines (spaces,
 * tabs, {@code \r} only) are not rows, a UTF-8 byte-order mark at the start of the object is dropped.
 *
 * <p>Input: byte 0 says how the rest becomes an object: its low 2 bits the encoding (0: plain, 1: gzip
 * made here from the rest, in two members cut at byte 1's position, 2: zstd made here, in two frames
 * likewise, 3: the rest is the object as it is, named {@code .gz}), bit 2 whether byte 1 instead says
 * where to corrupt the compressed bytes (flip one byte), and its high 5 bits the split size for plain
 * objects ({@code 4 × n} bytes, 0: whole only). Per input, within {@link Budget}'s bounds (a line limit of
 * 64 KiB):
 * <ul>
 * <li>a read either delivers rows or throws {@link CorruptSplitException}, nothing else;</li>
 * <li>a read that succeeds delivered exactly the reference lines of the decompressed object ({@code
 *     GZIPInputStream} and zstd's own decompression); a read that fails delivered a prefix of them, and
 *     fails only where the reference does not decompress, or where {@code GZIPInputStream} is lenient
 *     (bytes after the last member that are not a member, which it ignores);</li>
 * <li>a line longer than the limit fails the read;</li>
 * <li>the rows of all the splits of a plain object, in order, are the rows of the whole object.</li>
 * </ul>
 */
class NdjsonReaderFuzzTest {
    private static final int MAX_LINE_BYTES = 64 * 1024;
    private static final NdjsonFormat FORMAT = new NdjsonFormat(MAX_LINE_BYTES);
    /** The reader's buffers: the stream's, the line buffer at its limit, gzip's or zstd's. */
    private static final long FIXED_BYTES = 4L << 20;

    @FuzzTest
    void readerMatchesTheLineRules(byte[] input) throws Exception {
        if (input.length < 2) {
            return;
        }
        int encoding = input[0] & 3;
        boolean corrupt = (input[0] & 4) != 0;
        int splitBytes = 4 * ((input[0] & 0xff) >>> 3);
        int at = input[1] & 0xff;
        byte[] content = Arrays.copyOfRange(input, 2, input.length);
        byte[] object;
        String key;
        switch (encoding) {
            case 1 -> {
                object = gzip(content, corrupt ? content.length : at);
                key = "f.ndjson.gz";
            }
            case 2 -> {
                object = zstd(content, corrupt ? content.length : at);
                key = "f.ndjson.zst";
            }
            case 3 -> {
                object = content;
                key = "f.ndjson.gz";
            }
            default -> {
                object = content;
                key = "f.ndjson";
            }
        }
        if (corrupt && encoding != 0 && object.length > 0) {
            object = object.clone();
            object[at % object.length] ^= (byte) (1 + (at >>> 4));
        }
        FuzzStore store = new FuzzStore(key, object);
        String what = "the NDJSON reader (" + key + ")";

        Outcome<byte[]> read =
                Budget.run(what, object.length, FIXED_BYTES, 2048, () -> digest(store, store.whole(NdjsonFormat.NAME)));
        if (!read.ok()) {
            Budget.expectDeclared(what, read.failure(), CorruptSplitException.class);
        }
        FuzzStore.Copies rows = new FuzzStore.Copies();
        boolean ok = copy(store, store.whole(NdjsonFormat.NAME), rows);
        if (ok != read.ok() || (ok && !Arrays.equals(read.value(), FuzzStore.Digest.of(rows.rows)))) {
            throw new AssertionError(what + " read the same object differently twice" + context(object));
        }

        Reference expected = reference(object, encoding);
        if (ok) {
            if (!expected.complete || !same(expected.lines, rows.rows)) {
                throw new AssertionError(what + " delivered " + show(rows.rows) + ", the reference "
                        + show(expected.lines) + (expected.complete ? "" : " (of a stream that does not decompress)")
                        + context(object));
            }
        } else if (!isPrefix(rows.rows, expected.lines)) {
            throw new AssertionError(what + " failed (" + read.failure() + ") after delivering " + show(rows.rows)
                    + ", not a prefix of the reference " + show(expected.lines) + context(object));
        } else if (expected.complete && !expected.tooLong && !stricterOnPurpose(read.failure())) {
            throw new AssertionError(
                    what + " failed (" + read.failure() + ") on an object the reference reads: " + show(expected.lines)
                            + context(object),
                    read.failure());
        }

        if (encoding == 0 && splitBytes > 0) {
            Outcome<List<WorkItem>> plan = Budget.run(
                    what + " (plan)",
                    object.length,
                    FIXED_BYTES,
                    64,
                    () -> FORMAT.plan(store, store.info(), splitBytes));
            if (!plan.ok()) {
                throw new AssertionError(what + " could not plan a plain object: " + plan.failure(), plan.failure());
            }
            List<byte[]> all = new ArrayList<>();
            boolean allOk = true;
            for (WorkItem item : plan.value()) {
                Outcome<byte[]> split = Budget.run(
                        what + " (" + item.describe() + ")", object.length, FIXED_BYTES, 64, () -> digest(store, item));
                if (!split.ok()) {
                    Budget.expectDeclared(what, split.failure(), CorruptSplitException.class);
                    allOk = false;
                    break;
                }
                FuzzStore.Copies part = new FuzzStore.Copies();
                copy(store, item, part);
                all.addAll(part.rows);
            }
            if (ok && allOk && !same(rows.rows, all)) {
                throw new AssertionError(what + ": the splits of " + splitBytes + " bytes (" + plan.value()
                        + ") delivered " + show(all) + ", the whole object " + show(rows.rows) + context(object));
            }
            if (ok != allOk) {
                throw new AssertionError(what + ": the whole object " + (ok ? "reads" : "fails") + ", its splits of "
                        + splitBytes + " bytes " + (allOk ? "read" : "fail") + context(object));
            }
        }
    }

    /**
     * {@code GZIPInputStream} ends quietly where a member after the first has a header it cannot read (bad
     * magic, not deflate, reserved flags, cut short): it takes those bytes for trailing garbage. GzipMembers
     * says they are corrupt, as its documentation does ("bytes after the last member that are not a member").
     */
    private static final java.util.regex.Pattern LATER_MEMBER =
            java.util.regex.Pattern.compile("member at byte [1-9][0-9]*");

    private static boolean stricterOnPurpose(Exception e) {
        String m = String.valueOf(e.getMessage());
        // RFC 1952: a decompressor must fail on reserved FLG bits; GZIPInputStream ignores them (found by fuzzing)
        return LATER_MEMBER.matcher(m).find() || m.contains("has reserved flags set");
    }

    private static byte[] digest(FuzzStore store, WorkItem item) throws Exception {
        FuzzStore.Digest out = new FuzzStore.Digest();
        FORMAT.read(store, item, 0, out);
        return out.digest();
    }

    private static boolean copy(FuzzStore store, WorkItem item, FuzzStore.Copies out) throws IOException {
        try {
            FORMAT.read(store, item, 0, out);
            return true;
        } catch (CorruptSplitException e) {
            return false;
        }
    }

    // ---- the reference ----------------------------------------------------------------------------

    /** The lines of what decompressed, whether all of it did, whether a line is over the limit. */
    private record Reference(List<byte[]> lines, boolean complete, boolean tooLong) {}

    private static Reference reference(byte[] object, int encoding) {
        ByteArrayOutputStream plain = new ByteArrayOutputStream();
        boolean complete = true;
        boolean gzip = object.length >= 2 && (object[0] & 0xff) == 0x1f && (object[1] & 0xff) == 0x8b;
        boolean zstd = object.length >= 4
                && (object[0] & 0xff) == 0x28
                && (object[1] & 0xff) == 0xb5
                && (object[2] & 0xff) == 0x2f
                && (object[3] & 0xff) == 0xfd;
        boolean named = encoding != 0; // f.ndjson.gz or f.ndjson.zst: the magic must match the name
        if (object.length == 0) {
            // no rows, whatever the name
        } else if (named && !(encoding == 2 ? zstd : gzip)) {
            complete = false;
        } else if (!gzip && !zstd) {
            plain.writeBytes(object);
        } else {
            try (InputStream in = decompressor(object)) {
                byte[] buf = new byte[8192];
                for (int n; (n = in.read(buf)) >= 0; ) {
                    plain.write(buf, 0, n);
                    if (plain.size() > 64 << 20) {
                        throw new IOException("a bomb");
                    }
                }
            } catch (IOException | RuntimeException e) {
                complete = false;
            }
        }
        byte[] b = plain.toByteArray();
        List<byte[]> lines = new ArrayList<>();
        boolean tooLong = false;
        int start = b.length >= 3 && (b[0] & 0xff) == 0xEF && (b[1] & 0xff) == 0xBB && (b[2] & 0xff) == 0xBF ? 3 : 0;
        while (start < b.length) {
            int end = start;
            while (end < b.length && b[end] != '\n') {
                end++;
            }
            if (end == b.length && !complete) {
                break; // a last line cut by a corrupt stream is not a row
            }
            int stop = end > start && b[end - 1] == '\r' ? end - 1 : end;
            if (stop - start > MAX_LINE_BYTES) {
                tooLong = true;
                break;
            }
            boolean blank = true;
            for (int i = start; i < stop && blank; i++) {
                blank = b[i] == ' ' || b[i] == '\t' || b[i] == '\r';
            }
            if (!blank) {
                lines.add(Arrays.copyOfRange(b, start, stop));
            }
            start = end + 1;
        }
        return new Reference(lines, complete && !tooLong, tooLong);
    }

    private static InputStream decompressor(byte[] object) throws IOException {
        if ((object[0] & 0xff) == 0x1f) {
            return new GZIPInputStream(new ByteArrayInputStream(object));
        }
        return new com.github.luben.zstd.ZstdInputStream(new ByteArrayInputStream(object));
    }

    // ---- making objects ---------------------------------------------------------------------------

    /** gzip in two members, cut at {@code at} (past the end: one member). */
    static byte[] gzip(byte[] content, int at) {
        int cut = Math.min(at, content.length);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part :
                new byte[][] {Arrays.copyOfRange(content, 0, cut), Arrays.copyOfRange(content, cut, content.length)}) {
            if (part.length == 0 && cut != 0 && cut != content.length) {
                continue;
            }
            try (GZIPOutputStream gz = new GZIPOutputStream(out) {
                @Override
                public void close() throws IOException {
                    finish(); // not the underlying stream: the next member follows
                }
            }) {
                gz.write(part);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            if (cut == content.length) {
                break;
            }
        }
        return out.toByteArray();
    }

    /** zstd in two frames, cut at {@code at} (past the end: one frame). */
    static byte[] zstd(byte[] content, int at) {
        int cut = Math.min(at, content.length);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(Zstd.compress(Arrays.copyOfRange(content, 0, cut), 3));
        if (cut < content.length) {
            out.writeBytes(Zstd.compress(Arrays.copyOfRange(content, cut, content.length), 3));
        }
        return out.toByteArray();
    }

    private static boolean same(List<byte[]> a, List<byte[]> b) {
        return a.size() == b.size() && isPrefix(a, b);
    }

    private static boolean isPrefix(List<byte[]> prefix, List<byte[]> of) {
        if (prefix.size() > of.size()) {
            return false;
        }
        for (int i = 0; i < prefix.size(); i++) {
            if (!Arrays.equals(prefix.get(i), of.get(i))) {
                return false;
            }
        }
        return true;
    }

    private static String show(List<byte[]> rows) {
        List<String> out = new ArrayList<>();
        for (byte[] r : rows.subList(0, Math.min(rows.size(), 8))) {
            out.add(new String(r, StandardCharsets.ISO_8859_1).replace("\r", "\\r"));
        }
        return rows.size() + " rows " + out + (rows.size() > 8 ? "..." : "");
    }

    private static String context(byte[] object) {
        return "\nobject " + HexFormat.of().formatHex(object, 0, Math.min(object.length, 4096));
    }

    // ---- seeds ----------------------------------------------------------------------------------

    static Map<String, byte[]> seeds() {
        String lines = "{\"id\": 1, \"name\": \"zürich\"}\r\n\n  \t\n{\"id\": 2}\n not json\n{\"id\": 3}";
        byte[] text = lines.getBytes(StandardCharsets.UTF_8);
        byte[] bom = new byte[text.length + 3];
        bom[0] = (byte) 0xEF;
        bom[1] = (byte) 0xBB;
        bom[2] = (byte) 0xBF;
        System.arraycopy(text, 0, bom, 3, text.length);
        Map<String, byte[]> seeds = new LinkedHashMap<>();
        seeds.put("plain-whole", input(0, 0, bom));
        seeds.put("plain-splits-of-8", input(2 << 3, 0, text));
        seeds.put("plain-splits-of-4", input(1 << 3, 0, (lines + "\n").getBytes(StandardCharsets.UTF_8)));
        seeds.put("gzip-two-members", input(1, 17, text));
        seeds.put("zstd-two-frames", input(2, 23, bom));
        seeds.put("gzip-corrupt", input(1 | 4, 30, text));
        seeds.put("zstd-corrupt", input(2 | 4, 40, text));
        seeds.put("raw-gzip", input(3, 0, gzip(text, 9)));
        return seeds;
    }

    private static byte[] input(int mode, int at, byte[] content) {
        byte[] input = new byte[content.length + 2];
        input[0] = (byte) mode;
        input[1] = (byte) at;
        System.arraycopy(content, 0, input, 2, content.length);
        return input;
    }

    @Test
    void seedCorpusIsCurrent() {
        Corpus.check(NdjsonReaderFuzzTest.class, "readerMatchesTheLineRules", seeds());
    }
}
