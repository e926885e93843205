package dev.etl.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.etl.avro.binary.AvroCursor;
import dev.etl.avro.binary.AvroSkipper;
import dev.etl.avro.binary.MalformedAvroException;
import dev.etl.error.DeserializationException;
import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bodies written to hurt (issue 35): an array block count of {@code Long.MIN_VALUE}, whose negation is
 * itself, and blocks of billions of items that take no bytes ({@code null}, an empty record, a
 * {@code fixed} of size 0), which cost a few bytes of input each. Every one is a malformed body, read
 * or skipped, on the fast path as on Avro's resolving reader (the reference), rejected at once: no loop
 * over the items claimed, no allocation for them.
 */
class HostileBodiesTest {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** The zig-zag varint of {@code Long.MIN_VALUE}: {@code FF FF FF FF FF FF FF FF FF 01}. */
    static final byte[] MIN_COUNT = {-1, -1, -1, -1, -1, -1, -1, -1, -1, 1};

    /** The largest block count Avro's limits let through. */
    static final long HUGE = Integer.MAX_VALUE - 8;

    /** Element types whose values take no bytes. */
    static final List<String> ZERO_BYTE_ELEMENTS = List.of(
            "\"null\"",
            "{\"type\": \"record\", \"name\": \"Empty\", \"fields\": []}",
            "{\"type\": \"fixed\", \"name\": \"Nothing\", \"size\": 0}",
            "{\"type\": \"record\", \"name\": \"Nulls\", \"fields\": [{\"name\": \"a\", \"type\": \"null\"},"
                    + " {\"name\": \"b\", \"type\": {\"type\": \"fixed\", \"name\": \"F0\", \"size\": 0}}]}");

    static Schema writer(String junkType) {
        return TestSchemas.parse(
                "{\"type\": \"record\", \"name\": \"Order\", \"fields\": [{\"name\": \"id\", \"type\": \"int\"},"
                        + " {\"name\": \"junk\", \"type\": " + junkType
                        + "}, {\"name\": \"qty\", \"type\": \"int\"}]}");
    }

    /** The writer without {@code junk}: a compatible reader that skips it. */
    static final Schema WITHOUT_JUNK = TestSchemas.parse("""
            {"type": "record", "name": "Order", "fields": [{"name": "id", "type": "int"}, {"name": "qty", "type": "int"}]}""");

    static String array(String items) {
        return "{\"type\": \"array\", \"items\": " + items + "}";
    }

    /** id 1, then {@code junk} as given, then qty 7. */
    static byte[] body(byte[]... junk) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(2);
        for (byte[] part : junk) {
            out.writeBytes(part);
        }
        out.write(14);
        return out.toByteArray();
    }

    /** The payload: 64 blocks of {@link #HUGE} items, then the end of the array (382 bytes with its record). */
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

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    private static AvroDeserializer<GenericRecord> deserializer(Schema reader, Schema writer, boolean fastPath) {
        return AvroDeserializer.generic(reader).raw(writer).fastPath(fastPath).build();
    }

    /**
     * Decodes {@code body} within a second, on a thread of its own (a decoder that loops over billions of
     * items fails the test instead of hanging it), allocating less than 1 MiB, and expects a malformed body.
     */
    static <T> void assertRejectedQuickly(
            java.util.function.Supplier<AvroDeserializer<T>> deserializer, byte[] body, String... messageParts) {
        AvroDeserializer<T> d = deserializer.get(); // its lane is the thread of the first call
        assertTimeoutPreemptively(Duration.ofSeconds(1), () -> {
            long thread = Thread.currentThread().getId();
            long before = THREADS.getThreadAllocatedBytes(thread);
            Exception thrown = null;
            try {
                Fixtures.decode(d, body);
            } catch (Exception e) {
                thrown = e;
            }
            long allocated = THREADS.getThreadAllocatedBytes(thread) - before;
            assertThat(thrown).isInstanceOf(DeserializationException.class).hasMessageContainingAll(messageParts);
            assertThat(allocated).as("bytes allocated to reject the body").isLessThan(1L << 20);
        });
    }

    @ParameterizedTest(name = "fastPath={0}")
    @ValueSource(booleans = {true, false})
    void aBlockCountOfLongMinValueIsMalformedReadOrSkipped(boolean fastPath) {
        Schema writer = writer(array("\"int\""));
        byte[] countOnly = body(MIN_COUNT, new byte[] {0});
        byte[] withSize = body(MIN_COUNT, new byte[] {0, 0});
        for (Schema reader : List.of(writer, WITHOUT_JUNK)) {
            for (byte[] b : List.of(countOnly, withSize)) {
                assertRejectedQuickly(() -> deserializer(reader, writer, fastPath), b, "-9223372036854775808");
            }
        }
        Schema map = writer("{\"type\": \"map\", \"values\": \"int\"}");
        for (Schema reader : List.of(map, WITHOUT_JUNK)) {
            assertRejectedQuickly(() -> deserializer(reader, map, fastPath), withSize, "-9223372036854775808");
        }
    }

    @ParameterizedTest(name = "fastPath={0}")
    @ValueSource(booleans = {true, false})
    void aNegativeBlockByteSizeIsMalformedWhenTheItemsAreRead(boolean fastPath) {
        Schema writer = writer(array("\"int\""));
        // One block of one item (count -1) whose byte size says -1, then the item 5 and the end.
        assertRejectedQuickly(() -> deserializer(writer, writer, fastPath), body(new byte[] {1, 1, 10, 0}), "negative");
    }

    @ParameterizedTest(name = "fastPath={0}")
    @ValueSource(booleans = {true, false})
    void billionsOfItemsThatTakeNoBytesAreRejectedAtOnceReadOrSkipped(boolean fastPath) {
        for (String element : ZERO_BYTE_ELEMENTS) {
            Schema writer = writer(array(element));
            for (Schema reader : List.of(writer, WITHOUT_JUNK)) {
                for (int blocks : new int[] {1, 64}) {
                    assertRejectedQuickly(
                            () -> deserializer(reader, writer, fastPath),
                            body(hugeBlocks(blocks)),
                            AvroLimits.MAX_ZERO_BYTE_ITEMS_PROPERTY);
                }
            }
        }
    }

    @Test
    void theFastPathDecodesUpToTheLimitOfItemsThatTakeNoBytesPerRecordAndNotOneMore() throws Exception {
        Schema writer = TestSchemas.parse("""
                {"type": "record", "name": "Nulls", "fields": [
                  {"name": "a", "type": {"type": "array", "items": "null"}},
                  {"name": "b", "type": {"type": "array", "items": {"type": "fixed", "name": "F0", "size": 0}}}]}""");
        int limit = AvroLimits.maxZeroByteItems();
        assertThat(limit).isEqualTo(AvroLimits.DEFAULT_MAX_ZERO_BYTE_ITEMS);
        int half = limit / 2;
        // Both arrays together hold the limit (the second in two blocks); one more item is over it.
        byte[] atLimit = concat(varint(half), new byte[] {0}, varint(half - 1), varint(1), new byte[] {0});
        byte[] overLimit = concat(varint(half), new byte[] {0}, varint(half), varint(1), new byte[] {0});
        AvroDeserializer<GenericRecord> d = deserializer(writer, writer, true);

        List<GenericRecord> decoded = Fixtures.decode(d, atLimit);
        assertThat((List<?>) decoded.get(0).get("a")).hasSize(half);
        assertThat((List<?>) decoded.get(0).get("b")).hasSize(half);
        assertThatThrownBy(() -> Fixtures.decode(d, overLimit))
                .isInstanceOf(DeserializationException.class)
                .hasMessageContaining("more than " + limit + " array items that take no bytes");
        // The budget is per record: the next record at the limit decodes again.
        assertThat((List<?>) Fixtures.decode(d, atLimit).get(0).get("b")).hasSize(half);
    }

    /**
     * The bound holds for a body that does not start the array (behind a Confluent header, or a view into a
     * larger array): the reader counts a block's first item by the cursor's absolute position. Found by the
     * fuzz regression corpus when the decoder moved onto the shared cursor and compared a relative one.
     */
    @Test
    void itemsThatTakeNoBytesAreBoundedInABodyAtAnOffset() {
        ValueReader nulls = new CompositeReaders.Array(
                TestSchemas.parse("{\"type\": \"array\", \"items\": \"null\"}"),
                GenericData.get(),
                new ValueReader.Primitive(ValueReader.OP_NULL));
        byte[] huge = hugeBlocks(1);
        byte[] framed = new byte[7 + huge.length];
        System.arraycopy(huge, 0, framed, 7, huge.length);
        AvroCursor in = new AvroCursor();
        in.wrap(framed, 7, huge.length);
        assertTimeoutPreemptively(
                Duration.ofSeconds(1),
                () -> assertThatThrownBy(() -> nulls.read(in, null))
                        .isInstanceOf(MalformedAvroException.class)
                        .hasMessageContaining("array items that take no bytes"));
    }

    @Test
    void theItemsOfAllBlocksOfOneCollectionCountTowardsItsLimit() {
        Schema ints = TestSchemas.parse("{\"type\": \"array\", \"items\": \"int\"}");
        Schema map = TestSchemas.parse("{\"type\": \"map\", \"values\": \"int\"}");
        ValueReader array =
                new CompositeReaders.Array(ints, GenericData.get(), new ValueReader.Primitive(ValueReader.OP_INT));
        ValueReader strings =
                new CompositeReaders.MapReader(GenericData.get(), false, new ValueReader.Primitive(ValueReader.OP_INT));
        // Blocks of 3 and 2 items (the second with its byte size), then 3 and 3.
        byte[] five = {6, 2, 4, 6, 3, 4, 8, 10, 0};
        byte[] six = {6, 2, 4, 6, 6, 8, 10, 12, 0};
        byte[] fiveEntries = {6, 2, 'a', 2, 2, 'b', 4, 2, 'c', 6, 4, 2, 'd', 8, 2, 'e', 10, 0};
        byte[] sixEntries = {6, 2, 'a', 2, 2, 'b', 4, 2, 'c', 6, 6, 2, 'd', 8, 2, 'e', 10, 2, 'f', 12, 0};

        assertThat((List<?>) array.read(input(five), null)).hasSize(5);
        assertThatThrownBy(() -> array.read(input(six), null))
                .isInstanceOf(MalformedAvroException.class)
                .hasMessage("an array or map of more than 5 items (6 with the block at byte 4; "
                        + AvroLimits.MAX_COLLECTION_ITEMS_PROPERTY + ")");
        assertThat((java.util.Map<?, ?>) strings.read(input(fiveEntries), null)).hasSize(5);
        assertThatThrownBy(() -> strings.read(input(sixEntries), null)).isInstanceOf(MalformedAvroException.class);
        AvroCursor in = input(five);
        AvroSkipper.skip(ints, in);
        assertThat(in.remaining()).isZero();
        assertThatThrownBy(() -> AvroSkipper.skip(ints, input(six))).isInstanceOf(MalformedAvroException.class);
    }

    private static AvroCursor input(byte[] body) {
        AvroCursor in = new AvroCursor(5, 100);
        in.wrap(body, 0, body.length);
        return in;
    }

    @Test
    void aLimitPropertyThatIsNotANonNegativeIntegerIsIgnored() {
        assertThat(AvroLimits.limit("p", null, 7)).isEqualTo(7);
        assertThat(AvroLimits.limit("p", "1000", 7)).isEqualTo(1000);
        assertThat(AvroLimits.limit("p", " 0 ", 7)).isZero();
        assertThat(AvroLimits.limit("p", "-1", 7)).isEqualTo(7);
        assertThat(AvroLimits.limit("p", "lots", 7)).isEqualTo(7);
        assertThat(AvroLimits.limit("p", "99999999999", 7)).isEqualTo(AvroLimits.DEFAULT_MAX_COLLECTION_ITEMS);
    }
}
