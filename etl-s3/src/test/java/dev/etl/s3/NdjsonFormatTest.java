package dev.etl.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

class NdjsonFormatTest {
    private static final String BUCKET = "b";

    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final NdjsonFormat format = new NdjsonFormat();

    @Test
    void everySplitOfEveryPlanYieldsEachLineOnceInOrderWhateverTheCompression() throws Exception {
        long seed = Long.getLong("test.seed", System.nanoTime());
        System.out.println("NdjsonFormatTest seed " + seed);
        Random random = new Random(seed);
        for (int iteration = 0; iteration < 300; iteration++) {
            byte[] plain = randomNdjson(random);
            int compression = random.nextInt(5); // plain, gzip, gzip members, zstd, zstd frames
            byte[] bytes = compress(plain, compression, random);
            String key = "f" + iteration + randomExtension(random, compression, random.nextInt(4) == 0);
            ObjectInfo info = store.put(BUCKET, key, bytes);
            long splitBytes = 1 + random.nextInt(Math.max(1, bytes.length + 10));
            splitBytes = Math.max(splitBytes, bytes.length / 400 + 1);
            String what = "seed " + seed + " iteration " + iteration + " key " + key + " size " + bytes.length
                    + " split " + splitBytes;

            List<WorkItem> plan = format.plan(store, info, splitBytes);
            if (compression != 0) {
                assertThat(plan).as(what).hasSize(1);
                assertThat(plan.get(0).wholeObject()).as(what).isTrue();
            }
            List<String> rows = new ArrayList<>();
            List<List<String>> perSplit = new ArrayList<>();
            for (WorkItem item : plan) {
                RecordingOutput out = new RecordingOutput();
                format.read(store, item, 0, out);
                perSplit.add(strings(out.rows));
                rows.addAll(strings(out.rows));
            }
            assertThat(rows).as(what).containsExactlyElementsOf(model(plain));

            if (compression == 0) {
                // Any partition, cut at and around line starts, reads each line once as well.
                List<Long> lineStarts = new ArrayList<>();
                for (int i = 0; i < bytes.length; i++) {
                    if (bytes[i] == '\n') {
                        lineStarts.add((long) i + 1);
                    }
                }
                List<WorkItem> cuts = AvroContainerFormatTest.partition(info, lineStarts, random);
                List<String> cutRows = new ArrayList<>();
                for (WorkItem item : cuts) {
                    RecordingOutput out = new RecordingOutput();
                    format.read(store, item, 0, out);
                    cutRows.addAll(strings(out.rows));
                }
                assertThat(cutRows).as(what + " cut at " + cuts).containsExactlyElementsOf(rows);
            }

            int s = random.nextInt(plan.size());
            List<String> split = perSplit.get(s);
            int skip = random.nextInt(split.size() + 2);
            RecordingOutput tail = new RecordingOutput();
            format.read(store, plan.get(s), skip, tail);
            assertThat(strings(tail.rows))
                    .as(what + " skip " + skip + " of split " + s)
                    .containsExactlyElementsOf(split.subList(Math.min(skip, split.size()), split.size()));
        }
    }

    @Test
    void aSplitOwnsTheLinesThatStartInIt() throws Exception {
        // Lines start at 0, 4 and 13.
        ObjectInfo info = put("s.ndjson", "aaa\nbbbbbbbb\ncc\n");
        List<WorkItem> plan = format.plan(store, info, 5);
        assertThat(plan).extracting(WorkItem::start).containsExactly(0L, 5L, 10L, 15L);
        assertThat(readEach(plan)).containsExactly(List.of("aaa", "bbbbbbbb"), List.of(), List.of("cc"), List.of());

        ObjectInfo exact = put("e.ndjson", "aaa\nbbb\nccc");
        List<WorkItem> four = format.plan(store, exact, 4);
        assertThat(readEach(four)).containsExactly(List.of("aaa"), List.of("bbb"), List.of("ccc"));
    }

    @Test
    void crlfBlankLinesAndALastLineWithoutNewline() throws Exception {
        String text = "\uFEFF{\"a\":1}\r\n\r\n  \t \n{\"b\":2}\n\nnot json\r\n{\"c\":3}";
        for (int compression = 0; compression < 5; compression++) {
            byte[] bytes = compress(text.getBytes(StandardCharsets.UTF_8), compression, new Random(1));
            ObjectInfo info = store.put(BUCKET, "c" + compression + ".jsonl", bytes);
            RecordingOutput out = new RecordingOutput();
            format.read(store, format.plan(store, info, 1 << 20).get(0), 0, out);
            assertThat(strings(out.rows)).containsExactly("{\"a\":1}", "{\"b\":2}", "not json", "{\"c\":3}");
            assertThat(out.bytesRead).isEqualTo(bytes.length);
        }
    }

    @Test
    void aGzipConcatenationOfTwoMembersReadsBoth() throws Exception {
        ByteArrayOutputStream both = new ByteArrayOutputStream();
        both.writeBytes(gzip("{\"m\":1}\n{\"m\":2}".getBytes(StandardCharsets.UTF_8)));
        both.writeBytes(gzip("\n{\"m\":3}\n".getBytes(StandardCharsets.UTF_8)));
        ObjectInfo info = store.put(BUCKET, "two.ndjson.gz", both.toByteArray());
        RecordingOutput out = new RecordingOutput();
        format.read(store, format.plan(store, info, 10).get(0), 0, out);
        assertThat(strings(out.rows)).containsExactly("{\"m\":1}", "{\"m\":2}", "{\"m\":3}");
    }

    @Test
    void compressedContentIsRecognisedByItsMagicBytesUnderAPlainName() throws Exception {
        byte[] plain = "{\"x\":1}\n".repeat(2000).getBytes(StandardCharsets.UTF_8);
        ObjectInfo gz = store.put(BUCKET, "looks-plain.json", gzip(plain));
        List<WorkItem> plan = format.plan(store, gz, 100);
        assertThat(plan).hasSize(1);
        RecordingOutput out = new RecordingOutput();
        format.read(store, plan.get(0), 0, out);
        assertThat(out.rows).hasSize(2000);

        ObjectInfo zst = store.put(BUCKET, "looks-plain.ndjson", Zstd.compress(plain));
        RecordingOutput zout = new RecordingOutput();
        format.read(store, format.plan(store, zst, 100).get(0), 0, zout);
        assertThat(zout.rows).hasSize(2000);
    }

    @Test
    void truncatedOrCorruptCompressedStreamsAreCorruptSplits() throws Exception {
        byte[] plain = randomNdjson(new Random(5), 3000);
        byte[] gz = gzip(plain);
        byte[] zst = zstdWithChecksum(plain);
        byte[] flipped = gz.clone();
        flipped[gz.length / 2] ^= 0x10;
        byte[] garbage = Arrays.copyOf(gz, gz.length + 3);
        byte[] crc = gz.clone();
        crc[gz.length - 6] ^= 1;
        byte[] zflipped = zst.clone();
        zflipped[zst.length / 2] ^= 0x10;
        List<Object[]> cases = List.of(
                new Object[] {"t.ndjson.gz", Arrays.copyOf(gz, gz.length / 2), "gzip"},
                new Object[] {"t2.ndjson.gz", Arrays.copyOf(gz, gz.length - 3), "gzip"},
                new Object[] {"f.ndjson.gz", flipped, "gzip"},
                new Object[] {"g.ndjson.gz", garbage, "no gzip member"},
                new Object[] {"c.ndjson.gz", crc, "CRC-32"},
                new Object[] {"t.ndjson.zst", Arrays.copyOf(zst, zst.length / 2), "zstd"},
                new Object[] {"f.ndjson.zst", zflipped, "zstd"},
                new Object[] {"p.ndjson.gz", plain, "named .gz but does not start with the gzip magic"});
        for (Object[] c : cases) {
            String key = (String) c[0];
            ObjectInfo info = store.put(BUCKET, key, (byte[]) c[1]);
            RecordingOutput out = new RecordingOutput();
            Throwable thrown = catchThrowable(
                    () -> format.read(store, format.plan(store, info, 1000).get(0), 0, out));
            assertThat(thrown)
                    .as(key)
                    .isInstanceOf(CorruptSplitException.class)
                    .hasMessageContaining("s3://b/" + key)
                    .hasMessageContaining((String) c[2]);
            if (c[1] == flipped || c[1] == zflipped) {
                continue; // a flipped bit may inflate to wrong lines before the check at the member's end
            }
            // What was delivered is a prefix of the lines.
            List<String> expected = model(plain);
            assertThat(expected.subList(0, Math.min(out.rows.size(), expected.size())))
                    .as(key)
                    .containsExactlyElementsOf(strings(out.rows));
        }
    }

    @Test
    void aGzipHeaderCrc16IsCheckedBeforeAnyRowAsGzipInputStreamChecksIt() throws Exception {
        byte[] plain = randomNdjson(new Random(3), 50);
        byte[] gz = gzip(plain);
        // The member with FHCRC: the flag set, then the low 16 bits of the CRC-32 of the 10 header bytes.
        ByteArrayOutputStream withCrc = new ByteArrayOutputStream();
        byte[] header = Arrays.copyOf(gz, 10);
        header[3] |= 2;
        CRC32 crc = new CRC32();
        crc.update(header);
        withCrc.writeBytes(header);
        withCrc.write((int) crc.getValue());
        withCrc.write((int) (crc.getValue() >>> 8));
        withCrc.write(gz, 10, gz.length - 10);
        byte[] good = withCrc.toByteArray();
        byte[] bad = good.clone();
        bad[10] ^= 1;
        // The reference: java.util.zip reads the first and refuses the second at its header.
        assertThat(new GZIPInputStream(new ByteArrayInputStream(good)).readAllBytes())
                .isEqualTo(plain);
        assertThatThrownBy(() -> new GZIPInputStream(new ByteArrayInputStream(bad)).readAllBytes())
                .hasMessageContaining("Corrupt GZIP header");

        RecordingOutput out = new RecordingOutput();
        format.read(
                store,
                format.plan(store, store.put(BUCKET, "good.ndjson.gz", good), 1000)
                        .get(0),
                0,
                out);
        assertThat(strings(out.rows)).containsExactlyElementsOf(model(plain));
        RecordingOutput none = new RecordingOutput();
        ObjectInfo info = store.put(BUCKET, "bad.ndjson.gz", bad);
        assertThatThrownBy(
                        () -> format.read(store, format.plan(store, info, 1000).get(0), 0, none))
                .isInstanceOf(CorruptSplitException.class)
                .hasMessageContaining("fails its header CRC-16 check");
        assertThat(none.rows)
                .as("rows delivered from a member whose header is corrupt")
                .isEmpty();
    }

    @Test
    void aStoreFailureInsideACompressedStreamIsAnIOException() throws Exception {
        byte[] plain = randomNdjson(new Random(9), 5000);
        for (byte[] compressed : List.of(gzip(plain), Zstd.compress(plain))) {
            ObjectInfo info = store.put(BUCKET, "io.ndjson", compressed);
            WorkItem item = format.plan(store, info, 10).get(0);
            store.failStreamsAfter(store.bytesServed() + compressed.length / 3);
            assertThatThrownBy(() -> format.read(store, item, 0, new RecordingOutput()))
                    .isInstanceOf(IOException.class)
                    .isNotInstanceOf(CorruptSplitException.class)
                    .hasMessageContaining("injected");
            store.failStreamsAfter(-1);
        }
    }

    @Test
    void aLineOverTheLimitIsCorruptNamingWhereItStarts() throws Exception {
        NdjsonFormat small = new NdjsonFormat(100);
        String ok = "x".repeat(100);
        ObjectInfo fits = put("fits.ndjson", ok + "\r\n" + ok + "\n" + ok);
        RecordingOutput out = new RecordingOutput();
        small.read(store, small.plan(store, fits, 1 << 20).get(0), 0, out);
        assertThat(strings(out.rows)).containsExactly(ok, ok, ok);

        String text = "{\"a\":1}\n" + "y".repeat(5000) + "\n{\"b\":2}\n";
        for (int compression : new int[] {0, 1}) {
            ObjectInfo info = store.put(
                    BUCKET,
                    "long" + compression + ".ndjson",
                    compress(text.getBytes(StandardCharsets.UTF_8), compression, null));
            RecordingOutput partial = new RecordingOutput();
            assertThatThrownBy(() ->
                            small.read(store, small.plan(store, info, 1 << 20).get(0), 0, partial))
                    .isInstanceOf(CorruptSplitException.class)
                    .hasMessageContaining(
                            "the line starting at " + (compression == 0 ? "byte 8" : "decompressed byte 8"))
                    .hasMessageContaining("limit of 100 bytes");
            assertThat(strings(partial.rows)).containsExactly("{\"a\":1}");
        }
        ObjectInfo last = put("last.ndjson", "z".repeat(101));
        assertThatThrownBy(
                        () -> small.read(store, small.plan(store, last, 1 << 20).get(0), 0, new RecordingOutput()))
                .isInstanceOf(CorruptSplitException.class)
                .hasMessageContaining("byte 0");
    }

    @Test
    void anEmptyObjectHasNoRowsWhateverItsName() throws Exception {
        for (String key : List.of("e.ndjson", "e.json.gz", "e.jsonl.zst")) {
            ObjectInfo info = store.put(BUCKET, key, new byte[0]);
            List<WorkItem> plan = format.plan(store, info, 100);
            assertThat(plan).hasSize(1);
            RecordingOutput out = new RecordingOutput();
            format.read(store, plan.get(0), 0, out);
            assertThat(out.rows).isEmpty();
        }
    }

    @Test
    void matchesNdjsonKeysWithOptionalCompression() {
        for (String key : List.of("a.ndjson", "a.jsonl", "a.json", "a.ndjson.gz", "a.JSONL.ZST", "x/y/a.json.gz")) {
            assertThat(format.matches(key)).as(key).isTrue();
        }
        for (String key : List.of("a.avro", "a.json.bz2", "a.gz", "json", "a.parquet")) {
            assertThat(format.matches(key)).as(key).isFalse();
        }
    }

    private List<List<String>> readEach(List<WorkItem> plan) throws Exception {
        List<List<String>> out = new ArrayList<>();
        for (WorkItem item : plan) {
            RecordingOutput o = new RecordingOutput();
            format.read(store, item, 0, o);
            out.add(strings(o.rows));
        }
        return out;
    }

    private ObjectInfo put(String key, String text) {
        return store.put(BUCKET, key, text.getBytes(StandardCharsets.UTF_8));
    }

    /** The reference model: split on \n, drop a trailing \r, a leading BOM and blank lines. */
    private static List<String> model(byte[] plain) {
        String text = new String(plain, StandardCharsets.UTF_8);
        if (text.startsWith("\uFEFF")) {
            text = text.substring(1);
        }
        List<String> rows = new ArrayList<>();
        for (String line : text.split("\n", -1)) {
            String l = line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
            if (l.chars().anyMatch(c -> c != ' ' && c != '\t' && c != '\r')) {
                rows.add(l);
            }
        }
        return rows;
    }

    private static List<String> strings(List<byte[]> rows) {
        List<String> out = new ArrayList<>();
        for (byte[] r : rows) {
            out.add(new String(r, StandardCharsets.UTF_8));
        }
        return out;
    }

    private static byte[] randomNdjson(Random random) {
        return randomNdjson(random, random.nextInt(5) == 0 ? random.nextInt(3) : random.nextInt(400));
    }

    private static byte[] randomNdjson(Random random, int lines) {
        StringBuilder sb = new StringBuilder();
        if (random.nextInt(10) == 0) {
            sb.append('\uFEFF');
        }
        for (int i = 0; i < lines; i++) {
            switch (random.nextInt(10)) {
                case 0:
                    break; // an empty line
                case 1:
                    sb.append(" \t \r".substring(random.nextInt(4)));
                    break;
                case 2:
                    sb.append("x".repeat(random.nextInt(3000)));
                    break;
                default:
                    sb.append("{\"i\":").append(i).append(",\"s\":\"");
                    int n = random.nextInt(80);
                    for (int c = 0; c < n; c++) {
                        int pick = random.nextInt(30);
                        sb.append(pick == 0 ? '\r' : pick == 1 ? '\u00e9' : pick == 2 ? '\u6f22' : (char) ('a' + pick));
                    }
                    sb.append("\"}");
            }
            if (i < lines - 1 || random.nextBoolean()) {
                sb.append(random.nextBoolean() ? "\n" : "\r\n");
            }
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String randomExtension(Random random, int compression, boolean hideCompression) {
        String base = List.of(".ndjson", ".jsonl", ".json").get(random.nextInt(3));
        if (compression == 0 || hideCompression) {
            return base;
        }
        return base + (compression <= 2 ? ".gz" : ".zst");
    }

    /** 0 plain, 1 gzip, 2 gzip of several members, 3 zstd, 4 zstd of several frames. */
    private static byte[] compress(byte[] plain, int compression, Random random) {
        switch (compression) {
            case 0:
                return plain;
            case 1:
                return gzip(plain);
            case 3:
                return Zstd.compress(plain, 3);
            default: {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                int parts = 1 + random.nextInt(4);
                int from = 0;
                for (int p = 0; p < parts; p++) {
                    int to = p == parts - 1 ? plain.length : from + random.nextInt(plain.length - from + 1);
                    byte[] part = Arrays.copyOfRange(plain, from, to);
                    out.writeBytes(compression == 2 ? gzip(part) : Zstd.compress(part, 1 + random.nextInt(5)));
                    from = to;
                }
                return out.toByteArray();
            }
        }
    }

    /** A zstd frame with its content checksum: without one, a flipped literal byte goes unnoticed. */
    private static byte[] zstdWithChecksum(byte[] plain) {
        try (ZstdCompressCtx ctx = new ZstdCompressCtx()) {
            return ctx.setLevel(3).setChecksum(true).compress(plain);
        }
    }

    private static byte[] gzip(byte[] plain) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
                gz.write(plain);
            }
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
