package dev.etl.s3;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.etl.fuzz.AvroWork;
import dev.etl.fuzz.Budget;
import dev.etl.fuzz.Budget.Outcome;
import dev.etl.fuzz.Corpus;
import dev.etl.fuzz.RandomDatum;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.junit.jupiter.api.Test;

/**
 * The backfill's Avro object container reader ({@link AvroContainerFormat}: {@link AvroSplitReader} over
 * etl-avro's {@code dev.etl.avro.container} — {@code AvroContainerReader}, {@code AvroContainerHeader}, its
 * buffered source and codecs; record ends by {@code AvroSkipper}) on arbitrary files, against Avro's
 * {@link DataFileStream}.
 *
 * <p>Input: byte 0 is the split size ({@code 0}: the object is read whole only; else the object is also
 * planned in splits of {@code 8 × byte 0} bytes and each split read), byte 1 the rows to skip (0–3), the
 * rest the file. Per input, within {@link Budget}'s bounds (a block limit of 1 MiB):
 * <ul>
 * <li>a read either delivers rows or throws {@link CorruptSplitException}, nothing else;</li>
 * <li>a read that succeeds delivered, in order, the records {@code DataFileStream} reads: each row is
 *     the single-object header of the file's schema and a body that Avro's {@code GenericDatumReader}
 *     reads in full to the record {@code DataFileStream} gives (up to the first record whose content
 *     Avro rejects, e.g. an enum index out of range: such a record is still delimited and goes to the
 *     chain, whose deserializer rejects it); and {@code DataFileStream} has no more records;</li>
 * <li>a read that fails delivered a prefix of those records (a corrupt block delivers none of its);</li>
 * <li>the rows of all the splits, in order, are the rows of the whole object; skipping {@code k} rows
 *     delivers the rows after the first {@code k}.</li>
 * </ul>
 */
class AvroContainerFuzzTest {
    private static final int MAX_BLOCK_BYTES = 1 << 20;
    private static final AvroContainerFormat FORMAT = new AvroContainerFormat(MAX_BLOCK_BYTES);
    /** The reader's buffers and one block, compressed and not, for each of up to two reads in a call. */
    private static final long FIXED_BYTES = 8L * MAX_BLOCK_BYTES;

    @FuzzTest
    void readerMatchesDataFileStream(byte[] input) throws Exception {
        if (input.length < 2) {
            return;
        }
        long splitBytes = 8L * (input[0] & 0xff);
        int skip = input[1] & 3;
        byte[] file = Arrays.copyOfRange(input, 2, input.length);
        FuzzStore store = new FuzzStore("f.avro", file);
        WorkItem whole = store.whole(AvroContainerFormat.NAME);
        String what = "the Avro container reader";

        Outcome<byte[]> read = Budget.run(what, file.length, FIXED_BYTES, 64, () -> digest(store, whole, 0));
        if (!read.ok()) {
            Budget.expectDeclared(what, read.failure(), CorruptSplitException.class);
        }
        FuzzStore.Copies rows = new FuzzStore.Copies();
        boolean ok = copy(store, whole, 0, rows);
        if (ok != read.ok() || (ok && !Arrays.equals(read.value(), FuzzStore.Digest.of(rows.rows)))) {
            throw new AssertionError(what + " read the same object differently twice" + context(file));
        }
        oracle(file, rows.rows, ok);

        if (ok && skip > 0) {
            FuzzStore.Copies skipped = new FuzzStore.Copies();
            copy(store, whole, skip, skipped);
            List<byte[]> expected = rows.rows.subList(Math.min(skip, rows.rows.size()), rows.rows.size());
            if (!sameRows(expected, skipped.rows)) {
                throw new AssertionError(what + " skipping " + skip + " rows delivered " + skipped.rows.size()
                        + " rows, not the last " + expected.size() + " of " + rows.rows.size() + context(file));
            }
        }
        if (splitBytes > 0) {
            Outcome<List<WorkItem>> plan = Budget.run(
                    what + " (plan)", file.length, FIXED_BYTES, 64, () -> FORMAT.plan(store, store.info(), splitBytes));
            if (!plan.ok()) {
                Budget.expectDeclared(what + " (plan)", plan.failure(), CorruptSplitException.class);
                return;
            }
            List<byte[]> all = new ArrayList<>();
            boolean allOk = true;
            for (WorkItem item : plan.value()) {
                Outcome<byte[]> split = Budget.run(
                        what + " (" + item.describe() + ")",
                        file.length,
                        FIXED_BYTES,
                        64,
                        () -> digest(store, item, 0));
                if (!split.ok()) {
                    Budget.expectDeclared(what, split.failure(), CorruptSplitException.class);
                    allOk = false;
                    break;
                }
                FuzzStore.Copies part = new FuzzStore.Copies();
                copy(store, item, 0, part);
                all.addAll(part.rows);
            }
            if (ok && allOk && !sameRows(rows.rows, all)) {
                throw new AssertionError(what + ": the splits of " + splitBytes + " bytes (" + plan.value()
                        + ") delivered " + all.size() + " rows, the whole object " + rows.rows.size() + context(file));
            }
        }
    }

    private static byte[] digest(FuzzStore store, WorkItem item, long skip) throws Exception {
        FuzzStore.Digest out = new FuzzStore.Digest();
        FORMAT.read(store, item, skip, out);
        return out.digest();
    }

    /** An unmeasured read that keeps the rows; whether it succeeded. */
    private static boolean copy(FuzzStore store, WorkItem item, long skip, FuzzStore.Copies out) throws IOException {
        try {
            FORMAT.read(store, item, skip, out);
            return true;
        } catch (CorruptSplitException e) {
            return false;
        }
    }

    private static void oracle(byte[] file, List<byte[]> rows, boolean ok) throws IOException {
        DataFileStream<Object> avro;
        try {
            avro = new DataFileStream<>(new ByteArrayInputStream(file), new GenericDatumReader<>());
        } catch (IOException | RuntimeException e) {
            if (ok || !rows.isEmpty()) {
                throw new AssertionError(
                        "the Avro container reader read a file whose header DataFileStream rejects (" + e + ")"
                                + context(file),
                        e);
            }
            return;
        }
        Schema schema = avro.getSchema();
        long fingerprint = AvroRows.register(schema);
        GenericDatumReader<Object> reader = new GenericDatumReader<>(schema);
        for (int i = 0; i < rows.size(); i++) {
            byte[] row = rows.get(i);
            byte[] header = new byte[AvroRows.HEADER_LENGTH];
            AvroRows.writeHeader(header, 0, fingerprint);
            if (row.length < header.length || !Arrays.equals(row, 0, header.length, header, 0, header.length)) {
                throw new AssertionError("row " + i + " does not start with the single-object header of the file's "
                        + "schema: " + HexFormat.of().formatHex(row) + context(file));
            }
            if (AvroWork.tooMuchForTheOracle(schema, row, header.length, row.length - header.length)) {
                return; // the rest is the decoders' to bound, not Avro's to read
            }
            Object expected;
            try {
                if (!avro.hasNext()) {
                    if (emptyBlockBeforeRecords(file)) {
                        return; // DataFileStream ends at a block of no records; the reader reads on, on purpose
                    }
                    throw new AssertionError("the Avro container reader delivered " + rows.size()
                            + " rows; DataFileStream reads " + i + context(file));
                }
                expected = avro.next();
            } catch (RuntimeException e) {
                if (zstdWindowLimit(e)) {
                    return; // the reference cannot read on: a limit of its decoder, not of the file
                }
                // DataFileStream stops here: the row must be one Avro cannot decode either.
                Object decoded = decode(reader, row, header.length);
                if (decoded != null) {
                    throw new AssertionError(
                            "the Avro container reader delivered row " + i + ", " + decoded
                                    + ", where DataFileStream fails: " + e + context(file),
                            e);
                }
                return;
            }
            Object actual = decode(reader, row, header.length);
            if (!expected.equals(actual)) {
                throw new AssertionError("row " + i + " is " + actual + ", DataFileStream read " + expected + "\nrow "
                        + HexFormat.of().formatHex(row) + context(file));
            }
        }
        if (ok) {
            boolean more;
            try {
                more = avro.hasNext();
            } catch (RuntimeException e) {
                more = false; // Avro fails after the last record: it reads no record that was not delivered
            }
            if (more) {
                throw new AssertionError("the Avro container reader delivered " + rows.size()
                        + " rows, DataFileStream reads more" + context(file));
            }
        }
    }

    /**
     * Whether the file holds a block of no records followed, sync markers intact, by a block with records.
     * {@code DataFileStream.hasNext()} takes a block count of 0 for the end of the file and reads none of
     * what follows; the container reader takes it for what the specification says it is, a block of no
     * objects, and reads the blocks after it, so it delivers rows that Avro's reader silently leaves out
     * (found by fuzzing: blocks of 0, then 2 records of a schema whose records take no bytes). Avro's writer
     * never writes an empty block; another writer may. Parses only what it needs; any doubt is false.
     */
    static boolean emptyBlockBeforeRecords(byte[] file) {
        try {
            BinaryDecoder in = DecoderFactory.get().binaryDecoder(file, null);
            byte[] magic = new byte[4];
            in.readFixed(magic);
            if (magic[0] != 'O' || magic[1] != 'b' || magic[2] != 'j' || magic[3] != 1) {
                return false;
            }
            for (long n = in.readMapStart(); n != 0; n = in.mapNext()) {
                for (long i = 0; i < n; i++) {
                    in.skipString();
                    in.skipBytes();
                }
            }
            byte[] sync = new byte[16];
            in.readFixed(sync);
            byte[] marker = new byte[16];
            boolean sawEmpty = false;
            while (!in.isEnd()) {
                long count = in.readLong();
                long size = in.readLong();
                if (count < 0 || size < 0 || size > file.length) {
                    return false;
                }
                if (count > 0 && sawEmpty) {
                    return true;
                }
                sawEmpty |= count == 0;
                in.skipFixed((int) size);
                in.readFixed(marker);
                if (!Arrays.equals(sync, marker)) {
                    return false;
                }
            }
            return false;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * Whether DataFileStream failed on a zstd frame whose window is over zstd-jni's streaming default
     * (ZSTD_d_windowLogMax, 2^27 bytes: "Frame requires too much memory for decoding"). The block codec
     * decompresses a block in one call into an array bounded by the block's own limit, which needs no window
     * of its own, so it reads such a frame; the frame is valid zstd (found by fuzzing: a block whose frame
     * header states a window far above its content).
     */
    private static boolean zstdWindowLimit(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (String.valueOf(t.getMessage()).contains("Frame requires too much memory for decoding")) {
                return true;
            }
        }
        return false;
    }

    /** The row's body decoded by Avro, read in full; null when Avro cannot. */
    private static Object decode(GenericDatumReader<Object> reader, byte[] row, int offset) {
        try {
            BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(row, offset, row.length - offset, null);
            Object value = reader.read(null, decoder);
            return decoder.isEnd() ? value : null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static boolean sameRows(List<byte[]> a, List<byte[]> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (!Arrays.equals(a.get(i), b.get(i))) {
                return false;
            }
        }
        return true;
    }

    private static String context(byte[] file) {
        return "\nfile " + HexFormat.of().formatHex(file);
    }

    // ---- seeds ----------------------------------------------------------------------------------

    static final Schema EVENT = new Schema.Parser().parse("""
            {"type": "record", "name": "Row", "namespace": "fuzz.s3", "fields": [
              {"name": "id", "type": "long"},
              {"name": "name", "type": "string"},
              {"name": "ok", "type": "boolean"},
              {"name": "ratio", "type": "float"},
              {"name": "kind", "type": {"type": "enum", "name": "Kind", "symbols": ["A", "B"]}},
              {"name": "hash", "type": {"type": "fixed", "name": "Hash", "size": 3}},
              {"name": "note", "type": ["null", "string", "double"]},
              {"name": "tags", "type": {"type": "array", "items": "string"}},
              {"name": "nulls", "type": {"type": "array", "items": "null"}},
              {"name": "attrs", "type": {"type": "map", "values": "int"}},
              {"name": "next", "type": ["null", "Row"]}
            ]}""");

    static final Schema NULLS = new Schema.Parser().parse("""
            {"type": "record", "name": "Nothing", "namespace": "fuzz.s3", "fields": [
              {"name": "a", "type": "null"},
              {"name": "b", "type": {"type": "record", "name": "Empty", "fields": []}}
            ]}""");

    static byte[] file(Schema schema, CodecFactory codec, int records, long seed, int syncInterval) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        RandomDatum random = new RandomDatum(seed);
        try (DataFileWriter<Object> writer = new DataFileWriter<>(new GenericDatumWriter<>(schema))) {
            writer.setCodec(codec);
            writer.setSyncInterval(syncInterval);
            writer.setMeta("fuzz", "seed");
            writer.create(schema, out, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
            for (int i = 0; i < records; i++) {
                writer.append(random.record(schema));
                if (i % 3 == 2) {
                    writer.sync(); // several blocks
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    static Map<String, byte[]> seeds() {
        Map<String, byte[]> files = new LinkedHashMap<>();
        files.put("null-codec", file(EVENT, CodecFactory.nullCodec(), 7, 1, 64));
        files.put("deflate", file(EVENT, CodecFactory.deflateCodec(6), 5, 2, 64));
        files.put("zstandard", file(EVENT, CodecFactory.zstandardCodec(3), 4, 3, 64));
        files.put("nulls", file(NULLS, CodecFactory.nullCodec(), 6, 4, 64));
        files.put("empty", file(EVENT, CodecFactory.nullCodec(), 0, 5, 64));
        Map<String, byte[]> seeds = new LinkedHashMap<>();
        int n = 0;
        for (Map.Entry<String, byte[]> f : files.entrySet()) {
            byte[] input = new byte[f.getValue().length + 2];
            input[0] = (byte) (n == 0 ? 0 : 8 + 10 * n); // whole, then splits of 144, 224, ... bytes
            input[1] = (byte) (n % 3);
            System.arraycopy(f.getValue(), 0, input, 2, f.getValue().length);
            seeds.put(f.getKey(), input);
            n++;
        }
        return seeds;
    }

    @Test
    void seedCorpusIsCurrent() {
        Corpus.check(AvroContainerFuzzTest.class, "readerMatchesDataFileStream", seeds());
    }
}
