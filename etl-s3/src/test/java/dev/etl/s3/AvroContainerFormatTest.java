package dev.etl.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.etl.avro.AvroLimits;
import dev.etl.avro.WriterSchemas;
import dev.etl.s3.AvroTestFiles.AvroFile;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.message.BinaryMessageDecoder;
import org.junit.jupiter.api.Test;

class AvroContainerFormatTest {
    private static final String BUCKET = "b";

    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final AvroContainerFormat format = new AvroContainerFormat();

    @Test
    void everySplitOfEveryPlanYieldsEachRecordOnceInFileOrderAsWritten() throws Exception {
        long seed = Long.getLong("test.seed", System.nanoTime());
        System.out.println("AvroContainerFormatTest seed " + seed);
        Random random = new Random(seed);
        RandomAvro avro = new RandomAvro(random);
        for (int iteration = 0; iteration < 120; iteration++) {
            Schema schema = avro.schema();
            List<Object> records = new ArrayList<>();
            int n = random.nextInt(5) == 0 ? random.nextInt(3) : random.nextInt(1500);
            for (int i = 0; i < n; i++) {
                records.add(avro.value(schema));
            }
            CodecFactory codec = randomCodec(random);
            int syncInterval = 32 + random.nextInt(random.nextBoolean() ? 2000 : 100_000);
            int metadata = random.nextInt(6) == 0 ? 20_000 + random.nextInt(40_000) : random.nextInt(100);
            AvroFile file = AvroTestFiles.write(schema, records, codec, syncInterval, metadata);
            String key = "f" + iteration + ".avro";
            ObjectInfo info = store.put(BUCKET, key, file.bytes());
            String what = "seed " + seed + " iteration " + iteration + " codec " + codec + " sync " + syncInterval
                    + " records " + n + " size " + file.bytes().length + " schema " + schema;

            long splitBytes = 1 + random.nextInt(Math.max(1, file.bytes().length * 6 / 5));
            splitBytes = Math.max(splitBytes, file.bytes().length / 300 + 1);
            List<WorkItem> plan = format.plan(store, info, splitBytes);
            assertThat(plan.get(0).start()).as(what).isZero();
            assertThat(plan.get(plan.size() - 1).end()).as(what).isEqualTo(-1);
            for (int i = 1; i < plan.size(); i++) {
                assertThat(plan.get(i).start())
                        .as(what)
                        .isEqualTo(plan.get(i - 1).end());
            }

            List<byte[]> rows = new ArrayList<>();
            List<List<byte[]>> perSplit = new ArrayList<>();
            for (WorkItem item : plan) {
                RecordingOutput out = new RecordingOutput();
                format.read(store, item, 0, out);
                rows.addAll(out.rows);
                perSplit.add(out.rows);
            }
            long fingerprint = WriterSchemas.fingerprint(schema);
            assertThat(WriterSchemas.shared().byFingerprint(fingerprint))
                    .as(what)
                    .isEqualTo(schema);
            assertThat(rows).as(what).hasSize(n);
            BinaryMessageDecoder<Object> decoder = new BinaryMessageDecoder<>(GenericData.get(), schema);
            for (int i = 0; i < n; i++) {
                byte[] row = rows.get(i);
                byte[] expectedHeader = new byte[AvroRows.HEADER_LENGTH];
                AvroRows.writeHeader(expectedHeader, 0, fingerprint);
                assertThat(Arrays.copyOfRange(row, 0, AvroRows.HEADER_LENGTH))
                        .as(what + " header of record " + i)
                        .isEqualTo(expectedHeader);
                assertThat(Arrays.copyOfRange(row, AvroRows.HEADER_LENGTH, row.length))
                        .as(what + " body of record " + i)
                        .isEqualTo(RandomAvro.body(schema, records.get(i)));
                assertThat(RandomAvro.normalize(decoder.decode(row)))
                        .as(what + " record " + i)
                        .isEqualTo(RandomAvro.normalize(records.get(i)));
            }

            // Any partition of the object, cut at and around block starts, reads each record once as well.
            List<WorkItem> cuts = partition(info, blockStarts(file.bytes()), random);
            List<byte[]> cutRows = new ArrayList<>();
            for (WorkItem item : cuts) {
                RecordingOutput out = new RecordingOutput();
                format.read(store, item, 0, out);
                cutRows.addAll(out.rows);
            }
            assertThat(cutRows).as(what + " cut at " + cuts).containsExactlyElementsOf(rows);

            // A restart inside a split: skipRows leaves the tail.
            int s = random.nextInt(plan.size());
            List<byte[]> split = perSplit.get(s);
            int skip = random.nextInt(split.size() + 2);
            RecordingOutput tail = new RecordingOutput();
            format.read(store, plan.get(s), skip, tail);
            assertThat(tail.rows)
                    .as(what + " skip " + skip + " of split " + s)
                    .containsExactlyElementsOf(split.subList(Math.min(skip, split.size()), split.size()));
        }
    }

    @Test
    void rowsDecodeWithAvrosGenericDatumReaderAfterTheTenByteHeader() throws Exception {
        Schema schema = nested();
        Random random = new Random(7);
        RandomAvro avro = new RandomAvro(random);
        List<Object> records = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            records.add(avro.value(schema));
        }
        AvroFile file = AvroTestFiles.write(schema, records, CodecFactory.zstandardCodec(3, true), 1000, 0);
        RecordingOutput out = readAll("nested.avro", file.bytes(), 0);
        GenericDatumReader<Object> reader = new GenericDatumReader<>(schema);
        for (int i = 0; i < records.size(); i++) {
            byte[] row = out.rows.get(i);
            Object decoded = reader.read(
                    null,
                    DecoderFactory.get()
                            .binaryDecoder(row, AvroRows.HEADER_LENGTH, row.length - AvroRows.HEADER_LENGTH, null));
            assertThat(RandomAvro.normalize(decoded)).isEqualTo(RandomAvro.normalize(records.get(i)));
        }
        assertThat(out.bytesRead).isEqualTo(file.bytes().length);
    }

    @Test
    void aSplitReadsLittleMoreThanItsRange() throws Exception {
        Schema schema = nested();
        RandomAvro avro = new RandomAvro(new Random(3));
        List<Object> records = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            records.add(avro.value(schema));
        }
        AvroFile file = AvroTestFiles.write(schema, records, CodecFactory.deflateCodec(6), 16_000, 0);
        ObjectInfo info = store.put(BUCKET, "big.avro", file.bytes());
        long splitBytes = file.bytes().length / 8;
        List<WorkItem> plan = format.plan(store, info, splitBytes);
        assertThat(plan).hasSizeGreaterThan(4);
        WorkItem middle = plan.get(plan.size() / 2);
        long before = store.bytesServed();
        format.read(store, middle, 0, new RecordingOutput());
        // The header probe, the range itself, and the extensions that finish its last block.
        assertThat(store.bytesServed() - before).isLessThan(splitBytes + 16 * 1024 + 3 * 64 * 1024);
    }

    @Test
    void planOfASmallObjectIsOneWholeObjectItem() throws Exception {
        AvroFile file = AvroTestFiles.write(nested(), List.of(), CodecFactory.nullCodec(), 1000, 0);
        ObjectInfo info = store.put(BUCKET, "empty.avro", file.bytes());
        List<WorkItem> plan = format.plan(store, info, 1 << 20);
        assertThat(plan).containsExactly(new WorkItem("avro", BUCKET, "empty.avro", 0, -1, info.size(), info.etag()));
        RecordingOutput out = new RecordingOutput();
        format.read(store, plan.get(0), 0, out);
        assertThat(out.rows).isEmpty();
    }

    @Test
    void aSyncMarkerMismatchFailsAfterTheRowsOfTheBlocksBefore() throws Exception {
        for (CodecFactory codec : List.of(CodecFactory.nullCodec(), CodecFactory.deflateCodec(5))) {
            AvroFile file = blocks(codec);
            byte[] bad = file.bytes().clone();
            int syncEnd = (int) (long) file.boundaries().get(4);
            bad[syncEnd - 1] ^= 0x55;
            assertCorruptAt(file, bad, 3, "sync marker");
        }
    }

    @Test
    void aNegativeBlockCountIsCorrupt() throws Exception {
        AvroFile file = blocks(CodecFactory.nullCodec());
        long[] header = AvroTestFiles.blockHeader(file, 2);
        assertCorruptAt(file, AvroTestFiles.withBlockHeader(file, 2, -5, header[1]), 2, "bad record count -5");
    }

    @Test
    void aBlockClaimingBillionsOfRecordsThatTakeNoBytesIsCorruptAtOnce() throws Exception {
        for (Schema schema : List.of(
                SchemaBuilder.record("Empty").fields().endRecord(),
                SchemaBuilder.record("Nulls")
                        .fields()
                        .name("n")
                        .type()
                        .nullType()
                        .noDefault()
                        .endRecord())) {
            List<Object> records = new ArrayList<>();
            for (int i = 0; i < 9; i++) {
                records.add(new GenericData.Record(schema));
            }
            AvroFile file = AvroTestFiles.writeBlocks(schema, records, CodecFactory.nullCodec(), List.of(3, 3, 3));
            assertThat(readAll("nothing.avro", file.bytes(), 0).rows).hasSize(9);
            // 12 bytes of block header claim 2^31 - 1 rows: neither delimited nor delivered one by one.
            byte[] bad = AvroTestFiles.withBlockHeader(file, 1, Integer.MAX_VALUE, 0);
            assertTimeoutPreemptively(Duration.ofSeconds(1), () -> {
                com.sun.management.ThreadMXBean threads =
                        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
                long before =
                        threads.getThreadAllocatedBytes(Thread.currentThread().getId());
                assertCorruptAt(file, bad, 1, "2147483650 records that take no bytes");
                assertThat(threads.getThreadAllocatedBytes(
                                        Thread.currentThread().getId())
                                - before)
                        .as("bytes allocated to read the header, 3 rows and refuse the block")
                        .isLessThan(16L << 20);
            });
        }
    }

    @Test
    void theRecordsThatTakeNoBytesOfAllBlocksOfASplitCountTowardsTheLimit() throws Exception {
        Schema schema = SchemaBuilder.record("Empty").fields().endRecord();
        List<Object> records = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            records.add(new GenericData.Record(schema));
        }
        AvroFile file = AvroTestFiles.writeBlocks(schema, records, CodecFactory.nullCodec(), List.of(3, 3, 3));
        int limit = AvroLimits.maxZeroByteItems();
        byte[] atLimit = AvroTestFiles.withBlockHeader(file, 1, limit - 6, 0);
        ObjectInfo info = store.put(BUCKET, "at-limit.avro", atLimit);
        long[] rows = {0};
        format.read(
                store,
                new WorkItem("avro", BUCKET, "at-limit.avro", 0, -1, info.size(), info.etag()),
                0,
                new RowOutput() {
                    @Override
                    public void row(byte[] array, int offset, int length) {
                        rows[0]++;
                    }

                    @Override
                    public void bytesRead(long bytes) {}
                });
        assertThat(rows[0]).isEqualTo(limit);
        // One more, with the 3 of the first block: corrupt at the block that claims it, before its rows.
        assertCorruptAt(
                file,
                AvroTestFiles.withBlockHeader(file, 1, limit - 2, 0),
                1,
                (limit + 1) + " records that take no bytes");
    }

    @Test
    void anAbsurdBlockSizeIsCorrupt() throws Exception {
        AvroFile file = blocks(CodecFactory.nullCodec());
        long[] header = AvroTestFiles.blockHeader(file, 1);
        assertCorruptAt(file, AvroTestFiles.withBlockHeader(file, 1, header[0], 1L << 40), 1, "bad block size");
        assertCorruptAt(file, AvroTestFiles.withBlockHeader(file, 1, header[0], -3), 1, "bad block size -3");
    }

    @Test
    void aRecordRunningPastItsBlockIsCorruptAndSoAreBytesLeftOver() throws Exception {
        AvroFile file = blocks(CodecFactory.nullCodec());
        long[] header = AvroTestFiles.blockHeader(file, 3);
        assertCorruptAt(
                file, AvroTestFiles.withBlockHeader(file, 3, header[0] + 1, header[1]), 3, "does not fit the block");
        assertCorruptAt(
                file, AvroTestFiles.withBlockHeader(file, 3, header[0] - 1, header[1]), 3, "bytes follow the block's");
    }

    @Test
    void aBlockThatDoesNotDecompressIsCorrupt() throws Exception {
        for (CodecFactory codec : List.of(CodecFactory.deflateCodec(5), CodecFactory.zstandardCodec(3))) {
            AvroFile file = blocks(codec);
            byte[] bad = file.bytes().clone();
            long[] header = AvroTestFiles.blockHeader(file, 2);
            Arrays.fill(bad, (int) header[2], (int) (header[2] + header[1]), (byte) 0xff);
            assertCorruptAt(file, bad, 2, "decompress");
        }
    }

    @Test
    void aTruncatedObjectIsCorrupt() throws Exception {
        AvroFile file = blocks(CodecFactory.nullCodec());
        int cut = (int) (file.boundaries().get(3) + 5);
        assertCorruptAt(file, Arrays.copyOf(file.bytes(), cut), 3, "runs past the end of the object");
    }

    @Test
    void aCorruptBlockInALaterSplitFailsThatSplitOnlyAfterItsEarlierRows() throws Exception {
        AvroFile file = blocks(CodecFactory.nullCodec());
        byte[] bad = file.bytes().clone();
        bad[(int) (long) file.boundaries().get(5) - 1] ^= 1; // block 4's trailing sync marker
        ObjectInfo info = store.put(BUCKET, "later.avro", bad);
        long start = file.boundaries().get(2) - 3; // blocks 2.. begin in [start, end)
        WorkItem item = new WorkItem("avro", BUCKET, "later.avro", start, -1, info.size(), info.etag());
        RecordingOutput out = new RecordingOutput();
        assertThatThrownBy(() -> format.read(store, item, 0, out))
                .isInstanceOf(CorruptSplitException.class)
                .hasMessageContaining("s3://b/later.avro")
                .hasMessageContaining("byte " + file.boundaries().get(4));
        assertThat(out.rows).hasSize(file.recordsBefore(4) - file.recordsBefore(2));
    }

    @Test
    void badMagicIsCorruptAtPlanAndAtRead() {
        byte[] notAvro = "{\"json\": true}\n".repeat(10).getBytes(StandardCharsets.UTF_8);
        ObjectInfo info = store.put(BUCKET, "fake.avro", notAvro);
        assertThatThrownBy(() -> format.plan(store, info, 100))
                .isInstanceOf(CorruptSplitException.class)
                .hasMessageContaining("s3://b/fake.avro")
                .hasMessageContaining("bad magic");
        WorkItem item = new WorkItem("avro", BUCKET, "fake.avro", 0, -1, info.size(), info.etag());
        assertThatThrownBy(() -> format.read(store, item, 0, new RecordingOutput()))
                .isInstanceOf(CorruptSplitException.class)
                .hasMessageContaining("bad magic");
    }

    /** Found by fuzzing (etl-fuzz AvroContainerFuzzTest): the header allocated what a metadata length claimed. */
    @Test
    void aHeaderClaimingHugeMetadataCostsWhatTheObjectHolds() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(new byte[] {'O', 'b', 'j', 1});
        out.writeBytes(AvroTestFiles.varint(1));
        out.writeBytes(AvroTestFiles.varint(60 << 20)); // a 60 MB key, of which 10 bytes follow
        out.writeBytes("avro.schem".getBytes(StandardCharsets.UTF_8));
        ObjectInfo info = store.put(BUCKET, "claims.avro", out.toByteArray());
        WorkItem item = new WorkItem("avro", BUCKET, "claims.avro", 0, -1, info.size(), info.etag());
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        for (int round = 0; round < 2; round++) { // the first round loads classes
            long before = threads.getCurrentThreadAllocatedBytes();
            assertThatThrownBy(() -> format.read(store, item, 0, new RecordingOutput()))
                    .isInstanceOf(CorruptSplitException.class)
                    .hasMessageContaining("the object ends inside a metadata key");
            assertThatThrownBy(() -> format.plan(store, info, 100)).isInstanceOf(CorruptSplitException.class);
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            if (round == 1) {
                assertThat(allocated)
                        .as("bytes allocated reading a 23-byte header")
                        .isLessThan(2 << 20);
            }
        }
    }

    /** Found by fuzzing (etl-fuzz AvroContainerFuzzTest): Avro's parser throws a NullPointerException for it. */
    @Test
    void aSchemaNamingAnUndefinedTypeIsACorruptHeader() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(new byte[] {'O', 'b', 'j', 1});
        out.writeBytes(AvroTestFiles.varint(1));
        for (String s : List.of("avro.schema", "\"pey\"")) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            out.writeBytes(AvroTestFiles.varint(b.length));
            out.writeBytes(b);
        }
        out.writeBytes(AvroTestFiles.varint(0));
        out.writeBytes(new byte[16]);
        ObjectInfo info = store.put(BUCKET, "undefined.avro", out.toByteArray());
        WorkItem item = new WorkItem("avro", BUCKET, "undefined.avro", 0, -1, info.size(), info.etag());
        assertThatThrownBy(() -> format.read(store, item, 0, new RecordingOutput()))
                .isInstanceOf(CorruptSplitException.class)
                .hasMessageContaining("s3://b/undefined.avro: the header's avro.schema does not parse");
        assertThatThrownBy(() -> format.plan(store, info, 100)).isInstanceOf(CorruptSplitException.class);
    }

    @Test
    void aCodecWithoutItsLibraryFailsNamingTheLibrary() throws Exception {
        byte[] xz = handMadeHeader(nested(), "xz");
        ObjectInfo info = store.put(BUCKET, "x.avro", xz);
        assertThatThrownBy(() -> format.plan(store, info, 100))
                .isInstanceOf(CorruptSplitException.class)
                .hasMessageContaining("codec xz needs org.tukaani:xz on the class path");
        ObjectInfo unknown = store.put(BUCKET, "u.avro", handMadeHeader(nested(), "lzma9"));
        assertThatThrownBy(() -> format.plan(store, unknown, 100))
                .isInstanceOf(CorruptSplitException.class)
                .hasMessageContaining("unknown Avro codec 'lzma9'");
    }

    @Test
    void aStoreFailureIsAnIOExceptionNotCorruption() throws Exception {
        AvroFile file = blocks(CodecFactory.deflateCodec(1));
        ObjectInfo info = store.put(BUCKET, "fail.avro", file.bytes());
        WorkItem item = new WorkItem("avro", BUCKET, "fail.avro", 0, -1, info.size(), info.etag());
        store.failStreamsAfter(store.bytesServed() + file.bytes().length / 2);
        assertThatThrownBy(() -> format.read(store, item, 0, new RecordingOutput()))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("injected");
        store.failStreamsAfter(-1);
        store.failOpen(1);
        assertThatThrownBy(() -> format.read(store, item, 0, new RecordingOutput()))
                .isInstanceOf(IOException.class);
        store.put(BUCKET, "fail.avro", Arrays.copyOf(file.bytes(), file.bytes().length + 1));
        assertThatThrownBy(() -> format.read(store, item, 0, new RecordingOutput()))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("changed since the backfill was planned");
    }

    @Test
    void aCancelledReadStopsAtOnce() {
        AvroFile file = blocks(CodecFactory.nullCodec());
        ObjectInfo info = store.put(BUCKET, "cancel.avro", file.bytes());
        WorkItem item = new WorkItem("avro", BUCKET, "cancel.avro", 0, -1, info.size(), info.etag());
        RecordingOutput out = new RecordingOutput(10);
        assertThatThrownBy(() -> format.read(store, item, 0, out)).isInstanceOf(RowOutput.ReadCancelledException.class);
        assertThat(out.rows).hasSize(10);
    }

    @Test
    void matchesAvroKeys() {
        assertThat(format.matches("a/b/c.avro")).isTrue();
        assertThat(format.matches("C.AVRO")).isTrue();
        assertThat(format.matches("c.avro.gz")).isFalse();
        assertThat(format.name()).isEqualTo("avro");
    }

    /** Where blocks begin: after each occurrence of the sync marker (a file's last 16 bytes). */
    static List<Long> blockStarts(byte[] file) {
        byte[] sync = Arrays.copyOfRange(file, file.length - 16, file.length);
        List<Long> starts = new ArrayList<>();
        for (int i = 0; i + 16 <= file.length; i++) {
            if (Arrays.equals(file, i, i + 16, sync, 0, 16)) {
                starts.add((long) i + 16);
            }
        }
        return starts;
    }

    /** Splits [0, size) at random points, many of them at, just before and just after the given ones. */
    static List<WorkItem> partition(ObjectInfo info, List<Long> around, Random random) {
        java.util.TreeSet<Long> cuts = new java.util.TreeSet<>();
        for (long p : around) {
            if (random.nextInt(3) == 0) {
                long[] near = {p, p - 1, p + 1, p - 16, p - 15, p - 17};
                cuts.add(near[random.nextInt(near.length)]);
            }
        }
        for (int i = random.nextInt(4); i > 0; i--) {
            cuts.add((long) random.nextInt((int) Math.max(1, info.size())));
        }
        cuts.removeIf(c -> c <= 0 || c >= info.size());
        List<WorkItem> items = new ArrayList<>();
        long start = 0;
        for (long c : cuts) {
            items.add(new WorkItem(
                    info.key().endsWith(".avro") ? "avro" : "ndjson",
                    info.bucket(),
                    info.key(),
                    start,
                    c,
                    info.size(),
                    info.etag()));
            start = c;
        }
        items.add(new WorkItem(
                info.key().endsWith(".avro") ? "avro" : "ndjson",
                info.bucket(),
                info.key(),
                start,
                -1,
                info.size(),
                info.etag()));
        return items;
    }

    private void assertCorruptAt(AvroFile file, byte[] bad, int block, String what) throws Exception {
        String key = "corrupt-" + block + ".avro";
        ObjectInfo info = store.put(BUCKET, key, bad);
        WorkItem item = new WorkItem("avro", BUCKET, key, 0, -1, info.size(), info.etag());
        RecordingOutput out = new RecordingOutput();
        assertThatThrownBy(() -> format.read(store, item, 0, out))
                .isInstanceOf(CorruptSplitException.class)
                .hasMessageContaining("s3://b/" + key)
                .hasMessageContaining("block at byte " + file.boundaries().get(block))
                .hasMessageContaining(what);
        int expected = file.recordsBefore(block);
        assertThat(out.rows).hasSize(expected);
        for (int i = 0; i < expected; i++) {
            assertThat(Arrays.copyOfRange(out.rows.get(i), AvroRows.HEADER_LENGTH, out.rows.get(i).length))
                    .isEqualTo(RandomAvro.body(file.schema(), file.records().get(i)));
        }
    }

    /** Six blocks of 7 records each. */
    private static AvroFile blocks(CodecFactory codec) {
        Schema schema = nested();
        RandomAvro avro = new RandomAvro(new Random(11));
        List<Object> records = new ArrayList<>();
        for (int i = 0; i < 42; i++) {
            records.add(avro.value(schema));
        }
        return AvroTestFiles.writeBlocks(schema, records, codec, List.of(7, 7, 7, 7, 7, 7));
    }

    private RecordingOutput readAll(String key, byte[] bytes, long skip) throws Exception {
        ObjectInfo info = store.put(BUCKET, key, bytes);
        RecordingOutput out = new RecordingOutput();
        format.read(store, new WorkItem("avro", BUCKET, key, 0, -1, info.size(), info.etag()), skip, out);
        return out;
    }

    private static Schema nested() {
        Schema inner = SchemaBuilder.record("Inner")
                .fields()
                .requiredInt("id")
                .optionalString("label")
                .name("scores")
                .type()
                .array()
                .items()
                .doubleType()
                .noDefault()
                .endRecord();
        return SchemaBuilder.record("Outer")
                .namespace("test")
                .fields()
                .requiredLong("ts")
                .requiredString("name")
                .name("inner")
                .type(inner)
                .noDefault()
                .name("attrs")
                .type()
                .map()
                .values()
                .stringType()
                .noDefault()
                .name("choice")
                .type()
                .unionOf()
                .nullType()
                .and()
                .intType()
                .and()
                .type(inner)
                .endUnion()
                .noDefault()
                .name("many")
                .type()
                .array()
                .items(inner)
                .noDefault()
                .endRecord();
    }

    /** A header (no blocks) naming any codec. */
    private static byte[] handMadeHeader(Schema schema, String codec) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(new byte[] {'O', 'b', 'j', 1});
        out.writeBytes(AvroTestFiles.varint(2));
        for (String[] kv :
                List.of(new String[] {"avro.schema", schema.toString()}, new String[] {"avro.codec", codec})) {
            for (String s : kv) {
                byte[] b = s.getBytes(StandardCharsets.UTF_8);
                out.writeBytes(AvroTestFiles.varint(b.length));
                out.writeBytes(b);
            }
        }
        out.writeBytes(AvroTestFiles.varint(0));
        out.writeBytes(new byte[16]);
        return out.toByteArray();
    }

    private static CodecFactory randomCodec(Random random) {
        switch (random.nextInt(6)) {
            case 0:
                return CodecFactory.nullCodec();
            case 1:
                return CodecFactory.deflateCodec(1 + random.nextInt(9));
            case 2:
                return CodecFactory.zstandardCodec(random.nextInt(10) - 2, random.nextBoolean());
            case 3:
                return CodecFactory.snappyCodec();
            case 4:
                return CodecFactory.bzip2Codec();
            default:
                return CodecFactory.deflateCodec(-1);
        }
    }
}
