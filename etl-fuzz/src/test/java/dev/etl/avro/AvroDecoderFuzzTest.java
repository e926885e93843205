package dev.etl.avro;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.etl.avro.binary.AvroSkipper;
import dev.etl.avro.binary.MalformedAvroException;
import dev.etl.error.DeserializationException;
import dev.etl.fuzz.AvroWork;
import dev.etl.fuzz.Budget;
import dev.etl.fuzz.Budget.Outcome;
import dev.etl.fuzz.Corpus;
import dev.etl.fuzz.RandomDatum;
import dev.etl.record.Payload;
import java.io.IOException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.junit.jupiter.api.Test;

/**
 * The fast Avro decoder ({@link FastDecoderCompiler}'s tree of {@link ValueReader}s and
 * {@link CompositeReaders}, with {@link AvroSkipper} for the fields a reader removed) against Avro's own
 * {@code GenericDatumReader(writer, reader)} on arbitrary bytes.
 *
 * <p>Input: the first byte picks a (writer, reader) pair of {@link #CASES} (modulo their number), the
 * rest is the body. Per input, within {@link Budget}'s time and allocation bounds:
 * <ul>
 * <li>the fast decoder either returns a record or throws {@link MalformedAvroException}, nothing else;</li>
 * <li>same decision as Avro (a body Avro reads in full, trailing bytes being an error for both), and
 *     when both accept, equal records; decoding into a reused record gives the same record. The fast
 *     path may reject more than Avro only where it is stricter on purpose: a boolean byte other than 0
 *     or 1, a varint whose last byte carries bits past 32 (int) or 64 (long), which Avro silently
 *     truncates, and a negative length in a removed field, which Avro's skipper takes as empty;</li>
 * <li>through the public {@link AvroDeserializer} (raw framing), only a
 *     {@link DeserializationException}.</li>
 * </ul>
 * Inputs on which Avro's reader would walk more than {@link AvroWork#LIMIT} collection items are
 * judged on the bounds and the exception type only. The allocation bound grows with the array items that
 * take no bytes the body claims ({@link AvroWork#zeroByteItems}), which the decoders materialise up to
 * {@link AvroLimits#maxZeroByteItems()} per record.
 */
class AvroDecoderFuzzTest {
    /** (writer, reader) pairs; every pair is compatible and compiles to the fast path. */
    static final List<Schema[]> CASES;

    static {
        Schema event = parse(FuzzSchemas.EVENT);
        Schema eventReader = parse(FuzzSchemas.EVENT_READER);
        Schema zero = parse(FuzzSchemas.ZERO);
        Schema zeroDropped = parse(FuzzSchemas.ZERO_DROPPED);
        Schema node = parse(FuzzSchemas.NODE);
        Schema nodeReader = parse(FuzzSchemas.NODE_READER);
        Schema strings = parse(FuzzSchemas.STRINGS);
        CASES = List.of(
                new Schema[] {event, event},
                new Schema[] {event, eventReader},
                new Schema[] {zero, zero},
                new Schema[] {zero, zeroDropped},
                new Schema[] {node, nodeReader},
                new Schema[] {strings, strings});
        for (Schema[] c : CASES) {
            if (SchemaCompatibility.checkReaderWriterCompatibility(c[1], c[0]).getType()
                    != SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE) {
                throw new IllegalStateException("incompatible case " + c[0].getName() + " -> " + c[1].getName());
            }
        }
    }

    /**
     * Per thread: the deserializer serves one thread, as a lane (regression mode runs each input on a
     * thread of its own, for the timeout).
     */
    private static final ThreadLocal<Map<Integer, Decoders>> DECODERS = ThreadLocal.withInitial(java.util.HashMap::new);

    /** One case's decoders, compiled once per JVM (compiling is not what is fuzzed). */
    private static final class Decoders {
        final Schema writer;
        final Schema reader;
        final BodyDecoder<GenericRecord> fast;
        final GenericDatumReader<GenericRecord> avro;
        final AvroDeserializer<GenericRecord> deserializer;
        /** A record decoded from a valid seed: the "previous record" decoding into a reused one starts from. */
        GenericRecord previous;

        Decoders(Schema writer, Schema reader) {
            this.writer = writer;
            this.reader = reader;
            try {
                this.fast = new BodyDecoder.Fast<>(FastDecoderCompiler.compile(writer, reader, GenericData.get()));
            } catch (FastDecoderCompiler.Unsupported e) {
                throw new IllegalStateException("the fuzz case must compile to the fast path", e);
            }
            this.avro = new GenericDatumReader<>(writer, reader);
            this.deserializer = AvroDeserializer.generic(reader).raw(writer).build();
        }
    }

    private static Decoders decoders(int index) {
        return DECODERS.get().computeIfAbsent(index, i -> {
            Decoders d = new Decoders(CASES.get(i)[0], CASES.get(i)[1]);
            byte[] seed = RandomDatum.encode(d.writer, new RandomDatum(i).record(d.writer));
            try {
                d.previous = d.fast.decode(seed, 0, seed.length, null);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            return d;
        });
    }

    @FuzzTest
    void fastDecoderMatchesGenericDatumReader(byte[] input) throws Exception {
        if (input.length == 0) {
            return;
        }
        int index = (input[0] & 0xff) % CASES.size();
        Decoders d = decoders(index);
        // The body inside a larger array with junk around it: reads must stay within the body.
        int length = input.length - 1;
        byte[] framed = new byte[length + 6];
        Arrays.fill(framed, (byte) 0x81);
        System.arraycopy(input, 1, framed, 3, length);
        String what = "the fast decoder (" + d.writer.getName() + " -> " + d.reader.getName() + ")";
        // The decoders materialise the array items that take no bytes (nulls, empty records) up to AvroLimits'
        // per-record bound (2^20 by default: about what a 1 MiB message of one-byte items holds, documented),
        // which the input's size does not bound: each such item the body claims is allowed 96 bytes on top of
        // the input's allowance. An empty record is a GenericData.Record and its values array (40 bytes), and
        // every item a reference in a list that grows by half (up to 3 times over: 12 to 24 bytes); measured:
        // 57.6 bytes an empty record (found by fuzzing with 32 an item, which nulls alone take).
        long fixed = (1 << 20) + 96 * AvroWork.zeroByteItems(d.writer, framed, 3, length);

        Outcome<GenericRecord> fast = Budget.run(what, length, fixed, 64, () -> d.fast.decode(framed, 3, length, null));
        if (!fast.ok()) {
            Budget.expectDeclared(what, fast.failure(), MalformedAvroException.class);
        }
        Outcome<GenericRecord> reused = Budget.run(
                what + " into a reused record",
                length,
                fixed,
                64,
                () -> d.fast.decode(framed, 3, length, GenericData.get().deepCopy(d.reader, d.previous)));
        Outcome<Object> deserialized = Budget.run(what + " through AvroDeserializer", length, fixed, 64, () -> {
            Object[] out = new Object[1];
            d.deserializer.deserialize(
                    new Payload(), new Payload().wrap(framed, 3, length), null, value -> out[0] = value);
            return out[0];
        });
        if (!deserialized.ok()) {
            Budget.expectDeclared(
                    what + " through AvroDeserializer", deserialized.failure(), DeserializationException.class);
        }
        if (fast.ok() != reused.ok() || fast.ok() != deserialized.ok()) {
            throw new AssertionError(what + ": fresh " + fast + ", into a reused record " + reused
                    + ", through AvroDeserializer " + deserialized + "\nbody " + hex(framed, 3, length));
        }
        if (fast.ok()) {
            assertEqual(what + " into a reused record", fast.value(), reused.value(), framed, length);
            assertEqual(what + " through AvroDeserializer", fast.value(), deserialized.value(), framed, length);
        }

        if (AvroWork.tooMuchForTheOracle(d.writer, framed, 3, length)) {
            return;
        }
        Outcome<GenericRecord> avro = Budget.run("Avro's GenericDatumReader", length, Long.MAX_VALUE / 2, 0, () -> {
            BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(framed, 3, length, null);
            GenericRecord record = d.avro.read(null, decoder);
            if (!decoder.isEnd()) {
                throw new IOException("trailing bytes");
            }
            return record;
        });
        if (fast.ok() && avro.ok()) {
            assertEqual(what + " against GenericDatumReader", avro.value(), fast.value(), framed, length);
        } else if (fast.ok()) {
            throw new AssertionError(
                    what + " accepted a body that GenericDatumReader rejects (" + avro.failure() + ")\nbody "
                            + hex(framed, 3, length) + "\ndecoded " + fast.value(),
                    avro.failure());
        } else if (avro.ok() && !stricterOnPurpose(fast.failure())) {
            throw new AssertionError(
                    what + " rejected a body that GenericDatumReader reads (" + fast.failure() + ")\nbody "
                            + hex(framed, 3, length) + "\nAvro read " + avro.value(),
                    fast.failure());
        }
    }

    /**
     * Rejections where the fast path is deliberately stricter than Avro's lenient reads: a boolean byte other
     * than 0 or 1, a varint carrying bits past its width, and a negative string or bytes length in a field the
     * reader removed (Avro's skipper skips {@code length <= 0} as nothing; its decoder rejects it).
     */
    static boolean stricterOnPurpose(Exception e) {
        String m = String.valueOf(e.getMessage());
        return m.startsWith("invalid boolean byte")
                || m.startsWith("negative length")
                || m.startsWith("malformed int varint")
                || m.startsWith("malformed long varint");
    }

    private static void assertEqual(String what, Object expected, Object actual, byte[] framed, int length) {
        if (!expected.equals(actual)) {
            throw new AssertionError(what + " differs\nbody     " + hex(framed, 3, length) + "\nexpected " + expected
                    + "\nactual   " + actual);
        }
    }

    static String hex(byte[] b, int offset, int length) {
        return HexFormat.of().formatHex(b, offset, offset + length);
    }

    static Schema parse(String json) {
        return new Schema.Parser().parse(json);
    }

    /** Three valid bodies per case, each prefixed with its case byte. */
    static Map<String, byte[]> seeds() {
        Map<String, byte[]> seeds = new LinkedHashMap<>();
        for (int i = 0; i < CASES.size(); i++) {
            Schema writer = CASES.get(i)[0];
            RandomDatum random = new RandomDatum(1000 + i);
            for (int r = 0; r < 3; r++) {
                byte[] body = RandomDatum.encode(writer, random.record(writer));
                byte[] input = new byte[body.length + 1];
                input[0] = (byte) i;
                System.arraycopy(body, 0, input, 1, body.length);
                seeds.put(writer.getName().toLowerCase(java.util.Locale.ROOT) + "-" + i + "-" + r, input);
            }
        }
        return seeds;
    }

    @Test
    void seedCorpusIsCurrent() {
        Corpus.check(AvroDecoderFuzzTest.class, "fastDecoderMatchesGenericDatumReader", seeds());
    }
}
