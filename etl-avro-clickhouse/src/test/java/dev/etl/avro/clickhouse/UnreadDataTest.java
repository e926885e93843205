package dev.etl.avro.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.avro.binary.AvroCursor;
import dev.etl.avro.binary.MalformedAvroException;
import dev.etl.error.DeserializationException;
import dev.etl.record.Payload;
import dev.etl.sink.RowBuffer;
import java.io.ByteArrayOutputStream;
import java.util.HexFormat;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

/**
 * What the transcoder passes over without writing it (a field no column reads, a field marked for a later
 * column, the fields of a record a condition drops, an inner array while an outer one is counted) gets the
 * decision of the object path, Avro's {@code GenericDatumReader(writer, reader)}: a value the reader schema
 * holds is <em>decoded</em> there, so an enum index out of range or without a reader symbol, a union branch
 * the reader cannot take, and a block whose stated byte size is not its items' are decided as decoding
 * decides (items read one by one, the size ignored); a value only the writer has is <em>skipped</em> there,
 * enum unchecked and a sized block jumped over, and the transcoder skips it the same way. Found by etl-fuzz
 * ({@code fuzz-findings/README.md}); each body here was rejected, or written, against the object path
 * before.
 */
class UnreadDataTest {
    private static Schema parse(String json) {
        return new Schema.Parser().parse(json);
    }

    private static final String ENUM = "{\"type\": \"enum\", \"name\": \"E\", \"symbols\": [\"A\", \"B\", \"C\"]}";

    /** {@code R{id: int, x: <x>, qty: int}}. */
    private static Schema record(String x) {
        return parse("{\"type\": \"record\", \"name\": \"R\", \"fields\": [{\"name\": \"id\", \"type\": \"int\"},"
                + " {\"name\": \"x\", \"type\": " + x + "}, {\"name\": \"qty\", \"type\": \"int\"}]}");
    }

    /** {@code R{id: int, qty: int}}: a reader without {@code x}. */
    private static final Schema WITHOUT_X = parse("{\"type\": \"record\", \"name\": \"R\", \"fields\": ["
            + "{\"name\": \"id\", \"type\": \"int\"}, {\"name\": \"qty\", \"type\": \"int\"}]}");

    private static byte[] hex(String hex) {
        return HexFormat.of().parseHex(hex.replace(" ", ""));
    }

    /** id 1, then {@code x} as given, then qty 7. */
    private static byte[] body(String x) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(2);
        out.writeBytes(hex(x));
        out.write(14);
        return out.toByteArray();
    }

    /** {@code id} and {@code qty} only: {@code x} is not read. */
    private static AvroRowMapping idAndQty(Schema reader) {
        return AvroRowMapping.builder(reader)
                .column("id", "Int32")
                .column("qty", "Int32")
                .build();
    }

    /** {@code x} read after {@code qty} (out of writer order: marked, passed, converted from the mark). */
    private static AvroRowMapping qtyThenX(Schema reader, String xType) {
        return AvroRowMapping.builder(reader)
                .column("qty", "Int32")
                .column("x", xType)
                .column("id", "Int32")
                .build();
    }

    /**
     * The row plan's and the scanning plan's decisions and bytes on {@code body} are the object path's,
     * which is {@code accepted} or not.
     */
    private static void assertLikeTheObjectPath(AvroRowMapping mapping, Schema writer, byte[] body, boolean accepted)
            throws Exception {
        ObjectPath objectPath = new ObjectPath(mapping, writer);
        byte[] expected = null;
        Exception rejected = null;
        try {
            expected = objectPath.row(body);
        } catch (Exception e) {
            rejected = e;
        }
        assertThat(rejected == null)
                .as("the object path accepts %s (%s)", HexFormat.of().formatHex(body), rejected)
                .isEqualTo(accepted);

        AvroRowTranscoder transcoder = AvroRowTranscoder.raw(mapping, writer).build();
        ScanPlan scan = new ScanCompiler(mapping, writer).compile();
        AvroCursor cursor = new AvroCursor();
        cursor.ensureMarks(scan.markCount());
        for (boolean scanning : new boolean[] {false, true}) {
            String what = (scanning ? "the scanning plan" : "the row plan") + " on "
                    + HexFormat.of().formatHex(body);
            RowBuffer out = new RowBuffer(16);
            if (accepted) {
                if (scanning) {
                    cursor.wrap(body, 0, body.length);
                    assertThat(scan.write(cursor, out)).as(what).isEqualTo(1);
                } else {
                    assertThat(transcoder.transcode(body, 0, body.length, out))
                            .as(what)
                            .isEqualTo(1);
                }
                assertThat(HexFormat.of().formatHex(out.toByteArray()))
                        .as(what)
                        .isEqualTo(HexFormat.of().formatHex(expected));
            } else if (scanning) {
                cursor.wrap(body, 0, body.length);
                assertThatThrownBy(() -> scan.write(cursor, out)).as(what).isInstanceOf(MalformedAvroException.class);
            } else {
                assertThatThrownBy(() -> transcoder.transcode(body, 0, body.length, out))
                        .as(what)
                        .isInstanceOf(DeserializationException.class)
                        .hasMessageContaining("does not match writer schema");
            }
        }
    }

    // ---- a record into a Tuple, passed before its column reads it ----------------------------------------

    /**
     * A record mapped whole (a Tuple) whose column comes after a later field's is marked and passed first: the
     * pass must read it as the Tuple conversion does, as the object path decodes the reader's record, so a field
     * only the writer has inside it is skipped as Avro skips it, a sized block jumped over (found by fuzzing,
     * transcoder-row, RandomCase seed 49953: the pass read the writer-only array item by item, as if the reader
     * held it, and ran out of body where Avro and the in-order plan wrote the row).
     */
    @Test
    void aTupleReadFromItsMarkWasPassedAsTheObjectPathDecodesTheRecord() throws Exception {
        Schema writer = parse("""
                {"type": "record", "name": "Root", "fields": [
                  {"name": "t", "type": {"type": "record", "name": "T", "fields": [
                    {"name": "a", "type": "int"},
                    {"name": "extra", "type": {"type": "array", "items": ["null", "long"]}}]}},
                  {"name": "n", "type": "long"}]}""");
        Schema reader = parse("""
                {"type": "record", "name": "Root", "fields": [
                  {"name": "t", "type": {"type": "record", "name": "T", "fields": [{"name": "a", "type": "int"}]}},
                  {"name": "n", "type": "long"}]}""");
        // a = 1; extra: a block of 2 items that states 0 bytes (Avro's skipper jumps it, nothing read), the end;
        // n = 3.
        byte[] body = hex("02 03 00 00 06");
        AvroRowMapping later = AvroRowMapping.builder(reader)
                .column("n", "Int64")
                .column("t", "Tuple(Int32)")
                .build();
        assertLikeTheObjectPath(later, writer, body, true);
        AvroRowMapping inOrder = AvroRowMapping.builder(reader)
                .column("t", "Tuple(Int32)")
                .column("n", "Int64")
                .build();
        assertLikeTheObjectPath(inOrder, writer, body, true);
    }

    // ---- enums --------------------------------------------------------------------------------------

    @Test
    void anUnreadEnumOfTheReaderIsRangeCheckedAsTheObjectPathDecodesIt() throws Exception {
        Schema schema = record(ENUM);
        assertLikeTheObjectPath(idAndQty(schema), schema, body("04"), true); // C
        assertLikeTheObjectPath(idAndQty(schema), schema, body("06"), false); // 3
        assertLikeTheObjectPath(idAndQty(schema), schema, body("0b"), false); // -6, the fuzz finding's
        assertLikeTheObjectPath(idAndQty(schema), schema, body("01"), false); // -1
    }

    @Test
    void anUnreadEnumOnlyTheWriterHasIsSkippedUncheckedAsTheObjectPathSkipsIt() throws Exception {
        Schema writer = record(ENUM);
        assertLikeTheObjectPath(idAndQty(WITHOUT_X), writer, body("06"), true);
        assertLikeTheObjectPath(idAndQty(WITHOUT_X), writer, body("0b"), true);
    }

    @Test
    void anUnreadEnumSymbolTheReaderLacksIsRejectedWithoutAReaderDefaultAndReadWithOne() throws Exception {
        Schema writer = record("{\"type\": \"enum\", \"name\": \"E\", \"symbols\": [\"A\", \"B\", \"NEW\"]}");
        Schema strict = record("{\"type\": \"enum\", \"name\": \"E\", \"symbols\": [\"A\", \"B\"]}");
        Schema lenient =
                record("{\"type\": \"enum\", \"name\": \"E\", \"symbols\": [\"A\", \"B\"], \"default\": \"A\"}");
        assertLikeTheObjectPath(idAndQty(strict), writer, body("02"), true); // B
        assertLikeTheObjectPath(idAndQty(strict), writer, body("04"), false); // NEW: no match, no default
        assertLikeTheObjectPath(idAndQty(lenient), writer, body("04"), true); // NEW read as A
        assertLikeTheObjectPath(idAndQty(lenient), writer, body("06"), false); // out of the writer's range
    }

    @Test
    void anUnreadEnumInsideAnUnreadRecordArrayAndUnionIsChecked() throws Exception {
        Schema schema =
                record("{\"type\": \"array\", \"items\": {\"type\": \"record\", \"name\": \"Inner\", \"fields\": ["
                        + "{\"name\": \"n\", \"type\": \"long\"}, {\"name\": \"e\", \"type\": [\"null\", " + ENUM
                        + "]}]}}");
        // One item {n: 3, e: C}, then {n: 3, e: index 3}.
        assertLikeTheObjectPath(idAndQty(schema), schema, body("02 06 02 04 00"), true);
        assertLikeTheObjectPath(idAndQty(schema), schema, body("02 06 02 06 00"), false);
    }

    // ---- unions -------------------------------------------------------------------------------------

    @Test
    void anUnreadUnionBranchTheReaderCannotTakeIsRejectedWhenItIsWritten() throws Exception {
        Schema writer = record("[\"null\", \"string\", \"int\"]");
        Schema reader = record("[\"null\", \"string\"]");
        assertLikeTheObjectPath(idAndQty(reader), writer, body("02 02 61"), true); // "a"
        assertLikeTheObjectPath(idAndQty(reader), writer, body("00"), true); // null
        assertLikeTheObjectPath(idAndQty(reader), writer, body("04 0a"), false); // the int 5: no reader branch
        assertLikeTheObjectPath(idAndQty(WITHOUT_X), writer, body("04 0a"), true); // the writer's only: skipped
    }

    // ---- blocks whose stated byte size is not their items' ---------------------------------------------

    /** One block of one item (count -1) stating {@code size} bytes, the item 5 (one byte), the end. */
    private static String lyingBlock(int size) {
        return "01 " + String.format("%02x", size * 2) + " 0a 00";
    }

    @Test
    void anUnreadArrayOfTheReaderIsReadItemByItemWhateverItsBlocksStateAsTheObjectPathDecodesIt() throws Exception {
        Schema schema = record("{\"type\": \"array\", \"items\": \"int\"}");
        assertLikeTheObjectPath(idAndQty(schema), schema, body(lyingBlock(1)), true); // the truth
        assertLikeTheObjectPath(idAndQty(schema), schema, body(lyingBlock(0)), true);
        assertLikeTheObjectPath(idAndQty(schema), schema, body(lyingBlock(2)), true);
        // A map, and an array in two blocks whose first lies: [5] then [6].
        Schema map = record("{\"type\": \"map\", \"values\": \"int\"}");
        assertLikeTheObjectPath(idAndQty(map), map, body("01 00 02 6b 0a 00"), true);
        assertLikeTheObjectPath(idAndQty(schema), schema, body("01 06 0a 02 0c 00"), true);
    }

    @Test
    void anUnreadArrayOnlyTheWriterHasIsSkippedByItsStatedSizeAsTheObjectPathSkipsIt() throws Exception {
        Schema writer = record("{\"type\": \"array\", \"items\": \"int\"}");
        assertLikeTheObjectPath(idAndQty(WITHOUT_X), writer, body(lyingBlock(1)), true);
        // Size 2 jumps over the item and the end: the body ends before qty (the object path fails too).
        assertLikeTheObjectPath(idAndQty(WITHOUT_X), writer, body(lyingBlock(2) + " 00"), true);
        assertLikeTheObjectPath(idAndQty(WITHOUT_X), writer, body(lyingBlock(2)), false);
    }

    @Test
    void anArrayReadOutOfWriterOrderIsPassedItemByItemBeforeItsColumnReadsIt() throws Exception {
        Schema schema = record("{\"type\": \"array\", \"items\": \"int\"}");
        for (int size : new int[] {0, 1, 2}) {
            assertLikeTheObjectPath(qtyThenX(schema, "Array(Int32)"), schema, body(lyingBlock(size)), true);
        }
    }

    @Test
    void anInnerArrayWhoseBlockLiesIsCountedAsItIsWrittenWhileTheOuterArrayIsCounted() throws Exception {
        Schema schema = record("{\"type\": \"array\", \"items\": {\"type\": \"array\", \"items\": \"int\"}}");
        AvroRowMapping mapping = AvroRowMapping.builder(schema)
                .column("id", "Int32")
                .column("x", "Array(Array(Int32))")
                .column("qty", "Int32")
                .build();
        // The outer array in two blocks, [[5]] and [[5]], the inner block of the second stating 0 bytes.
        for (int size : new int[] {0, 1, 2}) {
            assertLikeTheObjectPath(mapping, schema, body("02 02 0a 00 02 " + lyingBlock(size) + " 00"), true);
        }
    }

    // ---- what a dropped record holds ---------------------------------------------------------------------

    private static final Schema ORDER = parse("""
            {"type": "record", "name": "Order", "fields": [
              {"name": "id", "type": "long"},
              {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["NEW", "CANCELLED"]}},
              {"name": "priority", "type": {"type": "enum", "name": "Priority", "symbols": ["LOW", "HIGH"]}},
              {"name": "note", "type": {"type": "enum", "name": "Note", "symbols": ["NONE", "GIFT"]}},
              {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line",
                  "fields": [{"name": "sku", "type": "int"}, {"name": "tags", "type":
                      {"type": "array", "items": "int"}}]}}}
            ]}""");

    /** One row per line; cancelled orders dropped; {@code priority} read, {@code note} and {@code tags} not. */
    private static AvroRowTranscoder lines() {
        return AvroRowTranscoder.raw(
                        AvroRowMapping.builder(ORDER)
                                .explode("lines")
                                .column("id", "Int64")
                                .column("priority", "Enum8('LOW' = 1, 'HIGH' = 2)")
                                .column("sku", "Int32", "lines.sku")
                                .dropWhen("status", "CANCELLED")
                                .build(),
                        ORDER)
                .build();
    }

    /** {@code id 1, status, priority, note}, one line {@code sku 3, tags}, end. */
    private static byte[] order(String status, String priority, String note, String tags) {
        return hex("02" + status + priority + note + "02 06" + tags + "00");
    }

    private static int rows(byte[] body) {
        return lines().encodeRows(new Payload().wrap(body, 0, body.length), null, new RowBuffer(16));
    }

    @Test
    void aDroppedRecordIsDecidedAsTheObjectPathDecodesItBeforeTheConditionDropsIt() {
        assertThat(rows(order("00", "02", "02", "00"))).isEqualTo(1);
        assertThat(rows(order("02", "02", "02", "00"))).isZero(); // cancelled
        assertThat(rows(order("02", "02", "02", lyingBlock(0)))).isZero(); // tags [5], its block says 0 bytes
        for (byte[] body : new byte[][] {
            order("02", "04", "00", "00"), // priority index 2 (read by a column, but the record is dropped)
            order("02", "00", "05", "00"), // note index -3 (read by nothing)
            order("02", "00", "00", "01 00 0a"), // tags: a block of one item, stated 0 bytes, then the body ends
        }) {
            assertThatThrownBy(() -> rows(body))
                    .as(HexFormat.of().formatHex(body))
                    .isInstanceOf(DeserializationException.class)
                    .hasMessageContaining("does not match writer schema");
        }
    }

    // ---- schemas that do not resolve ------------------------------------------------------------------

    @Test
    void anUnreadFieldWhoseWriterTypeTheReaderCannotReadFailsEveryRecordAsOnTheObjectPath() throws Exception {
        Schema writer = record("\"string\"");
        Schema reader = record("\"int\"");
        assertLikeTheObjectPath(idAndQty(reader), writer, body("02 61"), false);
    }
}
