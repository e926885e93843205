package dev.etl.avro.clickhouse;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.etl.avro.binary.AvroCursor;
import dev.etl.avro.binary.MalformedAvroException;
import dev.etl.clickhouse.ColumnEncodeException;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.error.DeserializationException;
import dev.etl.fuzz.AvroWork;
import dev.etl.fuzz.Budget;
import dev.etl.fuzz.Budget.Outcome;
import dev.etl.fuzz.Corpus;
import dev.etl.fuzz.RandomDatum;
import dev.etl.record.Payload;
import dev.etl.sink.KeyHashRouter;
import dev.etl.sink.RowBuffer;
import java.io.IOException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.junit.jupiter.api.Test;

/**
 * The Avro → RowBinary transcoder on arbitrary bytes, against the object path: Avro's
 * {@code GenericDatumReader(writer, reader)} (a body it reads in full, trailing bytes being an error)
 * then {@link RowBinaryEncoder} over the generic record ({@link ObjectPath}, the reference of
 * {@code TranscoderPropertyTest}; the explode reference is {@link #reference} here).
 *
 * <p>Inputs: {@link #rowPlanMatchesTheObjectPath} and {@link #scanPlanMatchesTheObjectPath} take two
 * bytes of {@link RandomCase} seed (little-endian; bit 0 set: an evolved writer schema) and then the
 * body; {@link #explodeMatchesTheReferenceModel} takes one byte (bit 0: writer v1 or v2, bit 1: route
 * by {@code shardKey} first, as the sink stage does) and then the body of an order. Per input, within
 * {@link Budget}'s bounds: only the declared exceptions ({@link DeserializationException} for a body
 * that does not match its schema, {@link ColumnEncodeException} for a value a column cannot hold); the
 * same decision as the object path, the same bytes when both write. A rejection may differ in kind
 * (a value rejected before a malformation later in the body is seen), and the transcoder may reject
 * where Avro is lenient: a boolean byte other than 0 or 1, a varint with bits past its width, a negative
 * length in a field Avro skips, a {@code uuid} string not in the canonical form ({@link #stricterOnPurpose}).
 */
class TranscoderFuzzTest {
    /**
     * Compiled cases by seed (compiling is not what is fuzzed); bounded. Per thread: a transcoder serves one
     * thread, as a lane (regression mode runs each input on a thread of its own, for the timeout).
     */
    private static final ThreadLocal<Map<Integer, Case>> CASES =
            ThreadLocal.withInitial(() -> new LinkedHashMap<>(64, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<Integer, Case> eldest) {
                    return size() > 512;
                }
            });

    /** A compiled {@link RandomCase}: the transcoder, its scanning plan, the object path. */
    private static final class Case {
        final RandomCase random;
        final AvroRowTranscoder transcoder;
        final ScanPlan scan;
        final AvroCursor cursor = new AvroCursor();
        final ObjectPath reference;
        final GenericDatumReader<GenericRecord> avro;

        Case(int seed) {
            this.random = new RandomCase(seed, (seed & 1) != 0);
            this.transcoder =
                    AvroRowTranscoder.raw(random.mapping, random.writer).build();
            this.scan = new ScanCompiler(random.mapping, random.writer).compile();
            this.reference = new ObjectPath(random.mapping, random.writer);
            this.avro = new GenericDatumReader<>(random.writer, random.reader);
        }
    }

    private static Case compiled(int seed) {
        return CASES.get().computeIfAbsent(seed, Case::new);
    }

    @FuzzTest
    void rowPlanMatchesTheObjectPath(byte[] input) throws Exception {
        randomCase(input, false);
    }

    @FuzzTest
    void scanPlanMatchesTheObjectPath(byte[] input) throws Exception {
        randomCase(input, true);
    }

    private static void randomCase(byte[] input, boolean scanning) throws Exception {
        if (input.length < 2) {
            return;
        }
        int seed = (input[0] & 0xff) | (input[1] & 0xff) << 8;
        Case c = compiled(seed);
        int length = input.length - 2;
        byte[] framed = frame(input, 2, length);
        String what = (scanning ? "the scanning plan" : "the transcoder") + " of RandomCase seed " + seed;
        Outcome<byte[]> actual = Budget.run(what, length, 1 << 20, 64, () -> {
            RowBuffer out = new RowBuffer(16);
            out.writeByte(0x55); // rows are appended to what the buffer holds
            int rows;
            if (scanning) {
                c.cursor.ensureMarks(c.scan.markCount());
                c.cursor.wrap(framed, 4, length);
                rows = c.scan.write(c.cursor, out);
            } else {
                rows = c.transcoder.transcode(framed, 4, length, out);
            }
            if (rows != 1 || out.array()[0] != 0x55) {
                throw new AssertionError(what + " wrote " + rows + " rows, or over what the buffer held");
            }
            return Arrays.copyOfRange(out.array(), 1, out.length());
        });
        if (!actual.ok()) {
            if (scanning) {
                Budget.expectDeclared(
                        what, actual.failure(), MalformedAvroException.class, ColumnEncodeException.class);
            } else {
                Budget.expectDeclared(
                        what, actual.failure(), DeserializationException.class, ColumnEncodeException.class);
            }
        }
        if (AvroWork.tooMuchForTheOracle(c.random.writer, framed, 4, length)) {
            return;
        }
        boolean[] invalidUtf8 = new boolean[1];
        Outcome<byte[]> expected = Budget.run("the object path", length, Long.MAX_VALUE / 2, 0, () -> {
            BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(framed, 4, length, null);
            GenericRecord record = c.avro.read(null, decoder);
            if (!decoder.isEnd()) {
                throw new IOException("trailing bytes");
            }
            invalidUtf8[0] = hasInvalidUtf8(record);
            return c.reference.row(Arrays.copyOfRange(framed, 4, 4 + length));
        });
        if (!expected.ok() && expected.failure() instanceof ObjectPath.Abstain) {
            // A writer-only enum index out of range with a Map column: the reference's in-order reading of maps
            // refuses the body its decision took, and has no row to compare (ObjectPath's class comment).
            return;
        }
        judge(what, actual, expected, invalidUtf8[0], framed, length, c.random.toString());
    }

    private static void judge(
            String what,
            Outcome<byte[]> actual,
            Outcome<byte[]> expected,
            boolean invalidUtf8,
            byte[] framed,
            int length,
            String context) {
        String body = "\nbody " + HexFormat.of().formatHex(framed, 4, 4 + length) + "\n" + context;
        if (actual.ok() && expected.ok()) {
            if (!Arrays.equals(actual.value(), expected.value()) && !invalidUtf8) {
                throw new AssertionError(what + " wrote other bytes than the object path\nexpected "
                        + HexFormat.of().formatHex(expected.value()) + "\nactual   "
                        + HexFormat.of().formatHex(actual.value()) + body);
            }
        } else if (actual.ok()) {
            throw new AssertionError(
                    what + " wrote a row where the object path fails (" + expected.failure() + ")" + body,
                    expected.failure());
        } else if (expected.ok() && !stricterOnPurpose(actual.failure())) {
            throw new AssertionError(
                    what + " rejected a body the object path writes (" + actual.failure() + ")" + body,
                    actual.failure());
        }
    }

    /**
     * Whether a string of the record is not valid UTF-8: the object path then writes U+FFFD for the bad
     * bytes (it encodes the characters Avro's {@code Utf8} decodes to), the transcoder copies the bytes
     * as they are (documented: "nothing is decoded to chars"), so the rows may differ there.
     */
    static boolean hasInvalidUtf8(Object value) {
        if (value instanceof org.apache.avro.util.Utf8 u) {
            try {
                java.nio.charset.StandardCharsets.UTF_8
                        .newDecoder()
                        .decode(java.nio.ByteBuffer.wrap(u.getBytes(), 0, u.getByteLength()));
                return false;
            } catch (java.nio.charset.CharacterCodingException e) {
                return true;
            }
        }
        if (value instanceof GenericRecord r) {
            for (Schema.Field f : r.getSchema().getFields()) {
                if (hasInvalidUtf8(r.get(f.pos()))) {
                    return true;
                }
            }
        } else if (value instanceof java.util.Collection<?> list) {
            for (Object o : list) {
                if (hasInvalidUtf8(o)) {
                    return true;
                }
            }
        } else if (value instanceof Map<?, ?> map) {
            for (Map.Entry<?, ?> e : map.entrySet()) {
                if (hasInvalidUtf8(e.getKey()) || hasInvalidUtf8(e.getValue())) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Where the transcoder rejects on purpose what the object path takes: a boolean byte other than 0 or 1
     * and a varint with bits past its width (Avro reads them leniently), a negative string or bytes length
     * in a field only the writer has (Avro's skipper skips {@code length <= 0} as nothing, its decoder rejects
     * it: found by fuzzing, RandomCase seed 33, {@code 0b 00}), and a {@code uuid} string not in the canonical
     * 36-character form (documented; {@code UUID.fromString} of the object path takes e.g.
     * {@code BF636E9CBA-A7-F6BD-D7BD-4284C4E2A6A7}, found by fuzzing).
     */
    static boolean stricterOnPurpose(Exception e) {
        String m = String.valueOf(e.getMessage());
        return m.contains("invalid boolean byte")
                || m.contains("malformed int varint")
                || m.contains("malformed long varint")
                || m.contains("negative length")
                || m.contains("malformed uuid string")
                || m.contains("a uuid string of ");
    }

    /** The body inside a larger array, junk around it: reads must stay within the body. */
    private static byte[] frame(byte[] input, int from, int length) {
        byte[] framed = new byte[length + 9];
        Arrays.fill(framed, (byte) 0x81);
        System.arraycopy(input, from, framed, 4, length);
        return framed;
    }

    // ---- explode, filters, shard key ----------------------------------------------------------

    static final Schema ORDER_V2 = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "namespace": "t", "fields": [
              {"name": "id", "type": "long"},
              {"name": "customer", "type": "string"},
              {"name": "status", "type": {"type": "enum", "name": "Status",
                  "symbols": ["NEW", "PAID", "SHIPPED", "CANCELLED"]}},
              {"name": "updated_ms", "type": "long"},
              {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line",
                  "fields": [
                    {"name": "sku", "type": "string"},
                    {"name": "quantity", "type": "int"},
                    {"name": "price_cents", "type": "long"}]}}},
              {"name": "coupon", "type": ["null", "string"], "default": null}
            ]}""");
    /** v1 lacks {@code coupon}, so its column is the reader default. */
    static final Schema ORDER_V1 = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "namespace": "t", "fields": [
              {"name": "id", "type": "long"},
              {"name": "customer", "type": "string"},
              {"name": "status", "type": {"type": "enum", "name": "Status",
                  "symbols": ["NEW", "PAID", "SHIPPED", "CANCELLED"]}},
              {"name": "updated_ms", "type": "long"},
              {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line",
                  "fields": [
                    {"name": "sku", "type": "string"},
                    {"name": "quantity", "type": "int"},
                    {"name": "price_cents", "type": "long"}]}}}
            ]}""");

    private static final Map<String, Integer> STATUS = Map.of("NEW", 0, "PAID", 1, "SHIPPED", 2, "CANCELLED", 3);

    /** One row per line, cancelled orders dropped, a second condition on a string, sharded by id. */
    static final AvroRowMapping LINES = AvroRowMapping.builder(ORDER_V2)
            .explode("lines")
            .column("order_id", "UInt64", "id")
            .index("line_no", "UInt16")
            .column("customer", "String")
            .column("status", "Enum8('NEW' = 0, 'PAID' = 1, 'SHIPPED' = 2, 'CANCELLED' = 3)")
            .column("sku", "String", "lines.sku")
            .column("quantity", "UInt32", "lines.quantity")
            .column("price", "Decimal(18, 2)", "lines.price_cents")
            .column("coupon", "Nullable(String)")
            .column("updated_ms", "Int64")
            .dropWhen("status", "CANCELLED")
            .dropWhen("customer", "drop-me")
            .shardKey("id")
            .build();

    private record Line(GenericRecord order, int index, GenericRecord line) {}

    private static final RowBinaryEncoder<Line> REFERENCE = RowBinaryEncoder.<Line>builder()
            .uint64("order_id", l -> (Long) l.order.get("id"))
            .uint16("line_no", l -> l.index)
            .string("customer", l -> (CharSequence) l.order.get("customer"))
            .enum8("status", STATUS, l -> STATUS.get(l.order.get("status").toString()))
            .string("sku", l -> (CharSequence) l.line.get("sku"))
            .uint32("quantity", l -> (Integer) l.line.get("quantity"))
            .decimal64("price", 2, l -> (Long) l.line.get("price_cents"))
            .nullableString("coupon", l -> (CharSequence) l.order.get("coupon"))
            .int64("updated_ms", l -> (Long) l.order.get("updated_ms"))
            .build();

    private static final AvroRowTranscoder.Builder[] EXPLODE = {
        AvroRowTranscoder.raw(LINES, ORDER_V1), AvroRowTranscoder.raw(LINES, ORDER_V2)
    };
    /** Per thread, as a lane. */
    private static final ThreadLocal<AvroRowTranscoder[]> EXPLODERS =
            ThreadLocal.withInitial(() -> new AvroRowTranscoder[] {EXPLODE[0].build(), EXPLODE[1].build()});

    private static final List<GenericDatumReader<GenericRecord>> ORDER_READERS =
            List.of(new GenericDatumReader<>(ORDER_V1, ORDER_V2), new GenericDatumReader<>(ORDER_V2, ORDER_V2));

    /** The rows and shard key of the reference model: decode, fan out, filter, encode. */
    private record Rows(long key, int rows, byte[] bytes, boolean invalidUtf8) {
        Rows(long key, int rows, byte[] bytes) {
            this(key, rows, bytes, false);
        }
    }

    private static Rows reference(int version, byte[] framed, int length) throws IOException {
        BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(framed, 4, length, null);
        GenericRecord order = ORDER_READERS.get(version).read(null, decoder);
        if (!decoder.isEnd()) {
            throw new IOException("trailing bytes");
        }
        RowBuffer out = new RowBuffer(64);
        long key = (Long) order.get("id");
        boolean invalidUtf8 = hasInvalidUtf8(order);
        if (order.get("status").toString().equals("CANCELLED")
                || order.get("customer").toString().equals("drop-me")) {
            return new Rows(key, 0, out.toByteArray(), invalidUtf8);
        }
        @SuppressWarnings("unchecked")
        List<GenericRecord> lines = (List<GenericRecord>) order.get("lines");
        for (int i = 0; i < lines.size(); i++) {
            REFERENCE.encode(new Line(order, i, lines.get(i)), out);
        }
        return new Rows(key, lines.size(), out.toByteArray(), invalidUtf8);
    }

    @FuzzTest
    void explodeMatchesTheReferenceModel(byte[] input) throws Exception {
        if (input.length < 1) {
            return;
        }
        int version = input[0] & 1;
        boolean route = (input[0] & 2) != 0;
        AvroRowTranscoder transcoder = EXPLODERS.get()[version];
        Schema writer = version == 0 ? ORDER_V1 : ORDER_V2;
        int length = input.length - 1;
        byte[] framed = frame(input, 1, length);
        String what = "the exploding transcoder (writer v" + (version + 1) + (route ? ", routed first" : "") + ")";
        Outcome<Rows> actual = Budget.run(what, length, 1 << 20, 64, () -> {
            Payload payload = new Payload().wrap(framed, 4, length);
            long key = route ? transcoder.shardKey(payload) : 0;
            RowBuffer out = new RowBuffer(16);
            int rows = transcoder.encodeRows(payload, null, out);
            return new Rows(key, rows, out.toByteArray());
        });
        if (!actual.ok()) {
            Budget.expectDeclared(what, actual.failure(), DeserializationException.class, ColumnEncodeException.class);
        }
        if (AvroWork.tooMuchForTheOracle(writer, framed, 4, length)) {
            return;
        }
        Outcome<Rows> expected = Budget.run(
                "the explode reference model", length, Long.MAX_VALUE / 2, 0, () -> reference(version, framed, length));
        String body = "\nbody " + HexFormat.of().formatHex(framed, 4, 4 + length);
        if (actual.ok() && expected.ok()) {
            Rows a = actual.value();
            Rows e = expected.value();
            if (a.rows != e.rows || (!Arrays.equals(a.bytes, e.bytes) && !e.invalidUtf8) || (route && a.key != e.key)) {
                throw new AssertionError(what + " differs from the reference model: rows " + a.rows + " / " + e.rows
                        + ", key " + a.key + " / " + e.key + "\nexpected "
                        + HexFormat.of().formatHex(e.bytes)
                        + "\nactual   " + HexFormat.of().formatHex(a.bytes) + body);
            }
            if (route) {
                KeyHashRouter<Long> objects = KeyHashRouter.byKey(id -> id);
                Payload payload = new Payload().wrap(framed, 4, length);
                int shard = transcoder.shardKeyRouter().shard(payload, null, 3);
                if (shard != objects.shard(e.key, null, 3)) {
                    throw new AssertionError(what + " routes to shard " + shard + ", the object path to "
                            + objects.shard(e.key, null, 3) + body);
                }
            }
        } else if (actual.ok()) {
            throw new AssertionError(
                    what + " wrote rows where the reference model fails (" + expected.failure() + ")" + body,
                    expected.failure());
        } else if (expected.ok() && !stricterOnPurpose(actual.failure())) {
            throw new AssertionError(
                    what + " rejected a body the reference model writes (" + actual.failure() + ")" + body,
                    actual.failure());
        }
    }

    // ---- seeds ----------------------------------------------------------------------------------

    static Map<String, byte[]> randomCaseSeeds() {
        Map<String, byte[]> seeds = new LinkedHashMap<>();
        for (int seed : new int[] {0, 1, 2, 3, 7, 10, 11, 42, 99, 100, 1001, 4097}) {
            RandomCase c = new RandomCase(seed, (seed & 1) != 0);
            for (int r = 0; r < 2; r++) {
                byte[] body = RandomDatum.encode(c.writer, c.record());
                byte[] input = new byte[body.length + 2];
                input[0] = (byte) seed;
                input[1] = (byte) (seed >>> 8);
                System.arraycopy(body, 0, input, 2, body.length);
                seeds.put("case-" + seed + "-" + r, input);
            }
        }
        return seeds;
    }

    static Map<String, byte[]> explodeSeeds() {
        Map<String, byte[]> seeds = new LinkedHashMap<>();
        for (int flags = 0; flags < 4; flags++) {
            Schema writer = (flags & 1) == 0 ? ORDER_V1 : ORDER_V2;
            RandomDatum random = new RandomDatum(77 + flags);
            for (int r = 0; r < 2; r++) {
                byte[] body = RandomDatum.encode(writer, random.record(writer));
                byte[] input = new byte[body.length + 1];
                input[0] = (byte) flags;
                System.arraycopy(body, 0, input, 1, body.length);
                seeds.put("order-" + flags + "-" + r, input);
            }
        }
        return seeds;
    }

    @Test
    void seedCorpusIsCurrent() {
        Map<String, byte[]> random = randomCaseSeeds();
        Corpus.check(TranscoderFuzzTest.class, "rowPlanMatchesTheObjectPath", random);
        Corpus.check(TranscoderFuzzTest.class, "scanPlanMatchesTheObjectPath", random);
        Corpus.check(TranscoderFuzzTest.class, "explodeMatchesTheReferenceModel", explodeSeeds());
    }
}
