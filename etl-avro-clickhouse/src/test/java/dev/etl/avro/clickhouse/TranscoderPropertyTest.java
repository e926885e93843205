package dev.etl.avro.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.avro.AvroWireFormat;
import dev.etl.avro.binary.AvroCursor;
import dev.etl.clickhouse.ColumnEncodeException;
import dev.etl.sink.RowBuffer;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.SplittableRandom;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

/**
 * The transcoder writes exactly what the object path writes ({@code GenericDatumReader(writer,
 * reader)} then {@code RowBinaryEncoder}), on random reader schemas, random mappings of their nested
 * fields to random compatible columns in a random order, and random records with edge values; with
 * the writer schema equal to the reader, and evolved from it ({@link RandomCase}: removed fields and
 * their defaults, added, reordered, aliased and promoted fields, enum and union evolution). About one field
 * in six is a composite: a map into {@code Map(K, V)}, a record into a {@code Tuple}, an IP address (valid and
 * invalid text, fixed, int, long, bytes) into {@code IPv4}/{@code IPv6}, a union of several types into
 * {@code Variant(...)} and {@code field[branch]} columns ({@link ObjectPath} writes these by the documented
 * rules). Where the object path rejects a value (out of a column's range, more digits than the Decimal, too
 * long for a FixedString, a malformed address), the transcoder must reject it too, with a
 * {@link ColumnEncodeException}.
 *
 * <p>A seeded harness on plain JUnit (as {@code CheckpointerPropertiesTest}, not jqwik): every run
 * uses a fresh base seed; a failure prints the seed and the case, and
 * {@code -Dtranscoder.properties.seed=<seed>} replays exactly that case.
 */
class TranscoderPropertyTest {
    private static final int CASES = 400;
    private static final int RECORDS = 16;

    @Test
    void sameWriterAndReaderSchemaTranscodesLikeTheObjectPath() {
        forEachSeed(seed -> check(seed, false));
    }

    @Test
    void evolvedWriterSchemaTranscodesLikeTheObjectPath() {
        forEachSeed(seed -> check(seed, true));
    }

    /**
     * The two-phase plan that explode, record conditions and a shard key compile to ({@link ScanPlan}:
     * mark every read field, then convert each column from its mark) writes the same rows on the same
     * random cases, evolved or not.
     */
    @Test
    void theScanningPlanTranscodesLikeTheObjectPath() {
        forEachSeed(seed -> check(seed, (seed & 1) == 0, true));
    }

    /**
     * Computed columns compile every mapping into the scanning plan: the random mapping with a string constant
     * before its columns and a number constant after them writes the object path's row between the constants'
     * bytes (issue 33).
     */
    @Test
    void aRandomMappingBetweenConstantColumnsTranscodesLikeTheObjectPath() {
        forEachSeed(seed -> check(seed, (seed & 1) == 0, false, true));
    }

    private interface Property {
        void check(long seed) throws Exception;
    }

    private static void forEachSeed(Property property) {
        Long replay = Long.getLong("transcoder.properties.seed");
        long base = replay != null ? replay : new SplittableRandom().nextLong();
        int cases = replay != null ? 1 : CASES;
        for (int i = 0; i < cases; i++) {
            long seed = base + i;
            try {
                property.check(seed);
            } catch (Throwable e) {
                throw new AssertionError(
                        "failed with seed " + seed + " (replay: -Dtranscoder.properties.seed=" + seed + "): "
                                + e.getMessage(),
                        e);
            }
        }
    }

    private static void check(long seed, boolean evolve) throws Exception {
        check(seed, evolve, false);
    }

    private static void check(long seed, boolean evolve, boolean scanning) throws Exception {
        check(seed, evolve, scanning, false);
    }

    /** {@code 'k''x'} into a String first, {@code -7} into an Int64 last. */
    private static final byte[] BEFORE = {3, 'k', '\'', 'x'};

    private static final byte[] AFTER = {-7, -1, -1, -1, -1, -1, -1, -1};

    private static AvroRowMapping betweenConstants(AvroRowMapping mapping) {
        AvroRowMapping.Builder b =
                AvroRowMapping.builder(mapping.readerSchema()).column("c_before", "String", "'k''x'");
        for (AvroRowMapping.Mapped m : mapping.mapped()) {
            b.column(m.column().name(), m.column().type(), m.path());
        }
        return b.column("c_after", "Int64", "-7").build();
    }

    private static void check(long seed, boolean evolve, boolean scanning, boolean constants) throws Exception {
        RandomCase c = new RandomCase(seed, evolve);
        assertThat(SchemaCompatibility.checkReaderWriterCompatibility(c.reader, c.writer)
                        .getType())
                .as("the generator makes compatible pairs: %s", c)
                .isEqualTo(SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE);
        AvroRowTranscoder transcoder = scanning
                ? null
                : AvroRowTranscoder.raw(constants ? betweenConstants(c.mapping) : c.mapping, c.writer)
                        .build();
        ScanPlan scan = scanning ? new ScanCompiler(c.mapping, c.writer).compile() : null;
        AvroCursor cursor = new AvroCursor();
        ObjectPath reference = new ObjectPath(c.mapping, c.writer);
        for (int i = 0; i < RECORDS; i++) {
            GenericRecord record = c.record();
            byte[] body = AvroWireFormat.raw(c.writer, record);
            byte[] expected;
            try {
                expected = reference.row(body);
                if (constants) {
                    byte[] row = expected;
                    expected = new byte[BEFORE.length + row.length + AFTER.length];
                    System.arraycopy(BEFORE, 0, expected, 0, BEFORE.length);
                    System.arraycopy(row, 0, expected, BEFORE.length, row.length);
                    System.arraycopy(AFTER, 0, expected, BEFORE.length + row.length, AFTER.length);
                }
            } catch (ColumnEncodeException e) {
                expected = null;
            }
            // The body inside a larger array, junk around it: reads must stay within the body.
            byte[] framed = new byte[body.length + 9];
            Arrays.fill(framed, (byte) 0x81);
            System.arraycopy(body, 0, framed, 4, body.length);
            RowBuffer out = new RowBuffer(16);
            out.writeByte(0x55); // rows are appended to what the buffer holds
            byte[] actual;
            try {
                if (scanning) {
                    cursor.ensureMarks(scan.markCount());
                    cursor.wrap(framed, 4, body.length);
                    assertThat(scan.write(cursor, out)).isEqualTo(1);
                } else {
                    transcoder.transcode(framed, 4, body.length, out);
                }
                assertThat(out.array()[0]).isEqualTo((byte) 0x55);
                actual = Arrays.copyOfRange(out.array(), 1, out.length());
            } catch (ColumnEncodeException e) {
                if (expected != null) {
                    throw new AssertionError(
                            "the transcoder rejected record " + i + " that the object path wrote (" + e.getMessage()
                                    + ")\nrecord " + record + "\n" + c,
                            e);
                }
                continue;
            }
            if (expected == null) {
                throw new AssertionError("the transcoder wrote record " + i + " that the object path rejected\nrecord "
                        + record + "\n" + c);
            }
            if (!Arrays.equals(actual, expected)) {
                throw new AssertionError(
                        "record " + i + " differs\nexpected " + HexFormat.of().formatHex(expected) + "\nactual   "
                                + HexFormat.of().formatHex(actual) + "\nrecord " + record + "\n" + c);
            }
        }
    }
}
