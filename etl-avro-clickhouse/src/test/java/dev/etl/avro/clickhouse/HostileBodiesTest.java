package dev.etl.avro.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.etl.avro.binary.AvroCursor;
import dev.etl.avro.binary.AvroSkipper;
import dev.etl.avro.binary.MalformedAvroException;
import dev.etl.error.DeserializationException;
import dev.etl.sink.RowBuffer;
import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Supplier;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

/**
 * Bodies written to hurt (issue 35), through every place the transcoder reads an array: a column
 * ({@code ArrayBlocks}, single pass and out of writer order, and through a {@code ScanPlan}), an
 * unmapped field ({@code AvroSkipper}), an inner array while an outer one in several blocks is counted
 * ({@code Conversion.skip}), and the exploded array ({@code ScanPlan}'s scan and emit). A block count of
 * {@code Long.MIN_VALUE} (its negation is itself) is malformed, as Avro 1.12 says, never a negative array
 * length in the row; blocks of billions of items that take no bytes ({@code null}, {@code fixed(0)}, an
 * empty record) are rejected at once, with neither a loop over them nor a row of gigabytes.
 */
class HostileBodiesTest {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** The zig-zag varint of {@code Long.MIN_VALUE}. */
    static final byte[] MIN_COUNT = {-1, -1, -1, -1, -1, -1, -1, -1, -1, 1};

    static final long HUGE = Integer.MAX_VALUE - 8;

    static final String EMPTY = "{\"type\": \"record\", \"name\": \"Empty\", \"fields\": []}";
    static final String NULLS =
            "{\"type\": \"record\", \"name\": \"Nulls\", \"fields\": [{\"name\": \"n\", \"type\": \"null\"},"
                    + " {\"name\": \"f\", \"type\": {\"type\": \"fixed\", \"name\": \"F0\", \"size\": 0}}]}";
    static final String FIXED0 = "{\"type\": \"fixed\", \"name\": \"Nothing\", \"size\": 0}";

    /** {@code Order{id: int, xs: <xs>, qty: int}}. */
    static Schema order(String xs) {
        return new Schema.Parser()
                .parse("{\"type\": \"record\", \"name\": \"Order\", \"fields\": [{\"name\": \"id\", \"type\": \"int\"},"
                        + " {\"name\": \"xs\", \"type\": " + xs + "}, {\"name\": \"qty\", \"type\": \"int\"}]}");
    }

    static String array(String items) {
        return "{\"type\": \"array\", \"items\": " + items + "}";
    }

    /** id 1, then {@code xs} as given, then qty 7. */
    static byte[] body(byte[]... xs) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(2);
        for (byte[] part : xs) {
            out.writeBytes(part);
        }
        out.write(14);
        return out.toByteArray();
    }

    static byte[] hugeBlocks(int blocks) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < blocks; i++) {
            out.writeBytes(varint(HUGE));
        }
        out.write(0);
        return out.toByteArray();
    }

    static byte[] varint(long value) {
        long v = (value << 1) ^ (value >> 63);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        while ((v & ~0x7fL) != 0) {
            out.write((int) ((v & 0x7f) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
        return out.toByteArray();
    }

    static byte[] bytes(int... values) {
        byte[] b = new byte[values.length];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) values[i];
        }
        return b;
    }

    static AvroRowTranscoder transcoder(Schema writer, AvroRowMapping.Builder mapping) {
        return AvroRowTranscoder.raw(mapping.build(), writer).build();
    }

    /**
     * Transcodes {@code body} within a second, on a thread of its own (a loop over billions of items
     * fails the test instead of hanging it), allocating less than 1 MiB, and expects a malformed body.
     */
    static void assertMalformedQuickly(Supplier<AvroRowTranscoder> transcoder, byte[] body, String messagePart) {
        AvroRowTranscoder t = transcoder.get(); // compiled here; its lane is the thread of the first call
        assertTimeoutPreemptively(Duration.ofSeconds(1), () -> {
            RowBuffer out = new RowBuffer(256);
            long thread = Thread.currentThread().getId();
            long before = THREADS.getThreadAllocatedBytes(thread);
            RuntimeException thrown = null;
            try {
                t.transcode(body, 0, body.length, out);
            } catch (RuntimeException e) {
                thrown = e;
            }
            long allocated = THREADS.getThreadAllocatedBytes(thread) - before;
            assertThat(thrown)
                    .isInstanceOf(DeserializationException.class)
                    .hasMessageContaining("does not match writer schema")
                    .hasMessageContaining(messagePart);
            assertThat(allocated).as("bytes allocated to reject the body").isLessThan(1L << 20);
        });
    }

    /** Mappings of {@code order(array(items))} that read {@code xs} in each way the transcoder has. */
    static List<Supplier<AvroRowTranscoder>> everyWayToReadXs(String items, String xsColumnType) {
        Schema writer = order(array(items));
        return List.of(
                // RowPlan: a column in writer order (ArrayBlocks in the row loop).
                () -> transcoder(
                        writer,
                        AvroRowMapping.builder(writer)
                                .column("id", "Int32")
                                .column("xs", xsColumnType)
                                .column("qty", "Int32")),
                // RowPlan: out of writer order (marked and skipped by AvroSkipper, then converted from the mark).
                () -> transcoder(
                        writer,
                        AvroRowMapping.builder(writer)
                                .column("qty", "Int32")
                                .column("xs", xsColumnType)
                                .column("id", "Int32")),
                // RowPlan: not mapped (AvroSkipper).
                () -> transcoder(
                        writer,
                        AvroRowMapping.builder(writer).column("id", "Int32").column("qty", "Int32")),
                // ScanPlan (a shard key): a column, and not mapped.
                () -> transcoder(
                        writer,
                        AvroRowMapping.builder(writer)
                                .column("id", "Int32")
                                .column("xs", xsColumnType)
                                .shardKey("qty")),
                () -> transcoder(
                        writer,
                        AvroRowMapping.builder(writer).column("id", "Int32").shardKey("qty")));
    }

    @Test
    void aBlockCountOfLongMinValueIsMalformedWhereverTheArrayIsRead() {
        for (Supplier<AvroRowTranscoder> t : everyWayToReadXs("\"int\"", "Array(Int32)")) {
            assertMalformedQuickly(t, body(MIN_COUNT, bytes(0, 0)), "invalid block count -9223372036854775808");
            assertMalformedQuickly(t, body(MIN_COUNT, bytes(0)), "-9223372036854775808");
        }
    }

    @Test
    void aBlockCountOfLongMinValueIsMalformedInTheExplodedArray() {
        Schema writer = order(array(
                "{\"type\": \"record\", \"name\": \"Line\", \"fields\": [{\"name\": \"sku\", \"type\": \"int\"}]}"));
        Supplier<AvroRowTranscoder> explode = () -> transcoder(
                writer,
                AvroRowMapping.builder(writer)
                        .explode("xs")
                        .column("id", "Int32")
                        .column("sku", "Int32", "xs.sku"));
        assertMalformedQuickly(explode, body(MIN_COUNT, bytes(0, 0)), "invalid block count -9223372036854775808");
    }

    @Test
    void aBlockCountOfLongMinValueIsMalformedInAnInnerArrayWhileTheOuterIsCounted() {
        Schema writer = order(array(array("\"int\"")));
        Supplier<AvroRowTranscoder> nested = () -> transcoder(
                writer, AvroRowMapping.builder(writer).column("id", "Int32").column("xs", "Array(Array(Int32))"));
        // The outer array in two blocks of one inner array each: the first holds [5], the second the hostile one.
        byte[] xs = {2, 2, 10, 0, 2};
        assertMalformedQuickly(nested, body(xs, MIN_COUNT, bytes(0, 0, 0)), "invalid block count -9223372036854775808");
    }

    @Test
    void billionsOfItemsThatTakeNoBytesAreRejectedAtOnceWhereverTheArrayIsRead() {
        List<String[]> elements = List.of(
                new String[] {"\"null\"", "Array(Nullable(String))"},
                new String[] {FIXED0, "Array(FixedString(16))"},
                new String[] {FIXED0, "Array(String)"});
        for (String[] element : elements) {
            for (Supplier<AvroRowTranscoder> t : everyWayToReadXs(element[0], element[1])) {
                for (int blocks : new int[] {1, 64}) {
                    assertMalformedQuickly(
                            t,
                            body(hugeBlocks(blocks)),
                            "array items that take no bytes in the record (" + HUGE + " in the block");
                }
            }
        }
        for (String record : List.of(EMPTY, NULLS)) {
            Schema writer = order(array(record));
            assertMalformedQuickly(
                    () -> transcoder(writer, AvroRowMapping.builder(writer).column("id", "Int32")),
                    body(hugeBlocks(64)),
                    "array items that take no bytes");
        }
    }

    @Test
    void billionsOfItemsThatTakeNoBytesAreRejectedInAnInnerArrayWhileTheOuterIsCounted() {
        Schema writer = order(array(array("\"null\"")));
        Supplier<AvroRowTranscoder> nested = () -> transcoder(
                writer,
                AvroRowMapping.builder(writer).column("id", "Int32").column("xs", "Array(Array(Nullable(String)))"));
        byte[] xs = {2, 2, 0, 2};
        assertMalformedQuickly(nested, body(xs, hugeBlocks(64), bytes(0)), "array items that take no bytes");
    }

    @Test
    void anExplodedArrayOfBillionsOfElementsThatTakeNoBytesIsRejectedBeforeAnyRow() {
        for (String record : List.of(EMPTY, NULLS)) {
            Schema writer = order(array(record));
            Supplier<AvroRowTranscoder> explode = () -> transcoder(
                    writer,
                    AvroRowMapping.builder(writer)
                            .explode("xs")
                            .column("id", "Int32")
                            .index("line", "UInt32"));
            assertMalformedQuickly(explode, body(hugeBlocks(1)), "array items that take no bytes");
            assertMalformedQuickly(explode, body(hugeBlocks(64)), "array items that take no bytes");
        }
    }

    @Test
    void aNegativeBlockByteSizeIsMalformedWhenTheItemsAreRead() {
        Schema writer = order(array("\"int\""));
        // One block of one item (count -1) whose byte size says -1, then the item 5 and the end.
        assertMalformedQuickly(
                () -> transcoder(writer, AvroRowMapping.builder(writer).column("xs", "Array(Int32)")),
                body(bytes(1, 1, 10, 0)),
                "negative block size -1");
    }

    @Test
    void anArrayOfItemsThatTakeNoBytesUpToTheRecordsLimitIsWrittenAndOneMoreIsRejected() {
        int limit = dev.etl.avro.AvroLimits.maxZeroByteItems();
        Schema writer = order(array("\"null\""));
        AvroRowTranscoder t =
                transcoder(writer, AvroRowMapping.builder(writer).column("xs", "Array(Nullable(String))"));
        // In two blocks: counted first (the skip pass of the blocks is not counted twice), then written.
        byte[] atLimit = body(varint(limit - 1), varint(1), bytes(0));
        RowBuffer out = new RowBuffer(64);
        assertThat(t.transcode(atLimit, 0, atLimit.length, out)).isEqualTo(1);
        assertThat(out.length()).isEqualTo(3 + limit); // the LEB128 count 2^20, then a null flag per item
        byte[] overLimit = body(varint(limit), varint(1), bytes(0));
        assertThatThrownBy(() -> t.transcode(overLimit, 0, overLimit.length, new RowBuffer(64)))
                .isInstanceOf(DeserializationException.class)
                .hasMessageContaining("more than " + limit + " array items that take no bytes in the record");
        out.reset();
        assertThat(t.transcode(atLimit, 0, atLimit.length, out))
                .as("the budget is per record")
                .isEqualTo(1);
    }

    @Test
    void anExplodedArrayOfElementsThatTakeNoBytesUpToTheLimitIsOneRowEach() {
        int limit = dev.etl.avro.AvroLimits.maxZeroByteItems();
        Schema writer = order(array(EMPTY));
        AvroRowTranscoder t = transcoder(
                writer,
                AvroRowMapping.builder(writer)
                        .explode("xs")
                        .column("id", "Int32")
                        .index("line", "UInt32"));
        byte[] atLimit = body(varint(limit), bytes(0));
        RowBuffer out = new RowBuffer(64);
        assertThat(t.transcode(atLimit, 0, atLimit.length, out)).isEqualTo(limit);
        byte[] overLimit = body(varint(limit), varint(1), bytes(0));
        assertThatThrownBy(() -> t.transcode(overLimit, 0, overLimit.length, new RowBuffer(64)))
                .isInstanceOf(DeserializationException.class)
                .hasMessageContaining("array items that take no bytes");
    }

    @Test
    void theCursorCountsTheItemsOfAllBlocksOfOneCollection() {
        // Blocks of 3 and 2 items (the second with its byte size), then 3 and 3.
        byte[] five = {6, 2, 4, 6, 3, 4, 8, 10, 0};
        byte[] six = {6, 2, 4, 6, 6, 8, 10, 12, 0};
        Conversion int32 =
                Conversion.builder(Conversion.OP_INT_TO_INT32, "Int32").build();
        RowBuffer out = new RowBuffer(64);
        ArrayBlocks.write(int32, cursor(five), out);
        assertThat(HexFormat.of().formatHex(out.toByteArray()))
                .isEqualTo("05" + "01000000" + "02000000" + "03000000" + "04000000" + "05000000");
        assertThatThrownBy(() -> ArrayBlocks.write(int32, cursor(six), new RowBuffer(64)))
                .isInstanceOf(MalformedAvroException.class)
                .hasMessage("an array or map of more than 5 items (6 with the block at byte 4; "
                        + dev.etl.avro.AvroLimits.MAX_COLLECTION_ITEMS_PROPERTY + ")");
        Schema ints = new Schema.Parser().parse("{\"type\": \"array\", \"items\": \"int\"}");
        AvroCursor in = cursor(five);
        AvroSkipper.skip(ints, in);
        assertThat(in.remaining()).isZero();
        assertThatThrownBy(() -> AvroSkipper.skip(ints, cursor(six))).isInstanceOf(MalformedAvroException.class);
    }

    private static AvroCursor cursor(byte[] body) {
        AvroCursor in = new AvroCursor(5, 100);
        in.wrap(body, 0, body.length);
        return in;
    }
}
