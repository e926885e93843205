package dev.etl.avro.container;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.avro.binary.MalformedAvroException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.junit.jupiter.api.Test;

class AvroContainerReaderTest {
    private static final Schema SCHEMA = SchemaBuilder.record("Row")
            .namespace("dev.etl.test")
            .fields()
            .requiredLong("id")
            .requiredString("name")
            .name("tags")
            .type()
            .array()
            .items()
            .stringType()
            .noDefault()
            .endRecord();
    private static final int MAX_BLOCK_BYTES = 1 << 20;

    @Test
    void readsEveryRecordOfEveryBuiltInCodecAsAvroWroteIt() throws Exception {
        List<GenericRecord> records = records(500);
        Map<String, CodecFactory> codecs = Map.of(
                "null", CodecFactory.nullCodec(),
                "deflate", CodecFactory.deflateCodec(6),
                "zstandard", CodecFactory.zstandardCodec(3));
        for (Map.Entry<String, CodecFactory> e : codecs.entrySet()) {
            String name = e.getKey();
            byte[] file = write(records, e.getValue(), 1024);
            try (AvroContainerReader reader =
                    AvroContainerReader.open(new ByteArrayInputStream(file), file.length, MAX_BLOCK_BYTES)) {
                assertThat(reader.header().schema()).isEqualTo(SCHEMA);
                assertThat(reader.header().codec()).isEqualTo(name);
                assertThat(readAll(reader, 0)).as(name).isEqualTo(records);
            }
        }
    }

    @Test
    void varintsAndBlocksReadTheSameFromAStreamThatTricklesOneByteAtATime() throws Exception {
        List<GenericRecord> records = records(200);
        byte[] file = write(records, CodecFactory.deflateCodec(1), 512);
        try (AvroContainerReader reader = AvroContainerReader.open(new Trickle(file), -1, MAX_BLOCK_BYTES)) {
            assertThat(readAll(reader, 0)).isEqualTo(records);
        }
    }

    @Test
    void skippedRecordsAreNotHandedOverAndWholeBlocksAreSkippedBySize() throws Exception {
        List<GenericRecord> records = records(300);
        byte[] file = write(records, CodecFactory.nullCodec(), 256);
        try (AvroContainerReader reader =
                AvroContainerReader.open(new ByteArrayInputStream(file), file.length, MAX_BLOCK_BYTES)) {
            assertThat(readAll(reader, 123)).isEqualTo(records.subList(123, 300));
        }
    }

    @Test
    void theHeadroomBeforeEachRecordIsTheHandlersToOverwrite() throws Exception {
        List<GenericRecord> records = records(100);
        byte[] file = write(records, CodecFactory.nullCodec(), 4096);
        List<GenericRecord> read = new ArrayList<>();
        try (AvroContainerReader reader =
                AvroContainerReader.open(new ByteArrayInputStream(file), file.length, MAX_BLOCK_BYTES)) {
            while (!reader.atEnd()) {
                reader.readBlock(0, (array, offset, length) -> {
                    assertThat(offset).isGreaterThanOrEqualTo(AvroContainerReader.HEADROOM);
                    Arrays.fill(array, offset - AvroContainerReader.HEADROOM, offset, (byte) 0x5a);
                    read.add(decode(array, offset, length));
                });
            }
        }
        assertThat(read).isEqualTo(records);
    }

    @Test
    void aReaderResumedMidFileStartsAtTheNextBlock() throws Exception {
        List<GenericRecord> records = records(400);
        byte[] file = write(records, CodecFactory.deflateCodec(6), 512);
        AvroContainerHeader header = AvroContainerHeader.read(new ByteArrayInputStream(file));
        long from = file.length / 2;
        List<GenericRecord> tail;
        try (AvroContainerReader reader = AvroContainerReader.resume(
                header, new ByteArrayInputStream(file, (int) from, file.length), from, file.length, MAX_BLOCK_BYTES)) {
            assertThat(reader.skipToNextBlock(Long.MAX_VALUE)).isTrue();
            assertThat(reader.position()).isGreaterThan(from);
            tail = readAll(reader, 0);
        }
        assertThat(tail).isNotEmpty();
        assertThat(records).endsWith(tail.toArray(new GenericRecord[0]));
    }

    @Test
    void aFileThatIsNotAContainerIsMalformedNamingWhy() {
        assertThatThrownBy(() -> AvroContainerHeader.read(new ByteArrayInputStream(new byte[0])))
                .isInstanceOf(MalformedAvroException.class)
                .hasMessageContaining("the object is empty");
        assertThatThrownBy(() -> AvroContainerHeader.read(new ByteArrayInputStream("PAR1xxxx".getBytes())))
                .isInstanceOf(MalformedAvroException.class)
                .hasMessageContaining("bad magic");
        byte[] file = write(records(10), CodecFactory.nullCodec(), 4096);
        assertThatThrownBy(() -> AvroContainerHeader.read(new ByteArrayInputStream(Arrays.copyOf(file, 20))))
                .isInstanceOf(MalformedAvroException.class)
                .hasMessageContaining("the object ends inside");
    }

    @Test
    void aMetadataCountWithMoreThanTenVarintBytesIsAMalformedVarint() {
        byte[] file = {'O', 'b', 'j', 1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 1};
        assertThatThrownBy(() -> AvroContainerHeader.read(new ByteArrayInputStream(file)))
                .isInstanceOf(MalformedAvroException.class)
                .hasMessageContaining("malformed varint (the metadata count) at byte 4");
    }

    @Test
    void aCodecWithoutItsLibraryOrUnknownFailsAtTheHeader() {
        assertThatThrownBy(() -> AvroContainerHeader.read(new ByteArrayInputStream(handMadeHeader("xz"))))
                .isInstanceOf(MalformedAvroException.class)
                .hasMessageContaining("codec xz needs org.tukaani:xz on the class path");
        assertThatThrownBy(() -> AvroContainerHeader.read(new ByteArrayInputStream(handMadeHeader("lzma9"))))
                .isInstanceOf(MalformedAvroException.class)
                .hasMessageContaining("unknown Avro codec 'lzma9'");
    }

    /** A header naming {@code codec} (Avro's writer cannot write a codec whose library is missing). */
    private static byte[] handMadeHeader(String codec) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(new byte[] {'O', 'b', 'j', 1, 4}); // 4: two entries, zig-zag
        for (String s : List.of("avro.schema", SCHEMA.toString(), "avro.codec", codec)) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            out.writeBytes(varint(b.length));
            out.writeBytes(b);
        }
        out.writeBytes(new byte[1 + 16]); // the end of the map, the sync marker
        return out.toByteArray();
    }

    private static byte[] varint(long value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long z = (value << 1) ^ (value >> 63);
        while ((z & ~0x7fL) != 0) {
            out.write((int) ((z & 0x7f) | 0x80));
            z >>>= 7;
        }
        out.write((int) z);
        return out.toByteArray();
    }

    @Test
    void aCorruptBlockHandsOverNoneOfItsRecords() throws Exception {
        List<GenericRecord> records = records(50);
        byte[] file = write(records, CodecFactory.nullCodec(), 1 << 20);
        long headerLength =
                AvroContainerHeader.read(new ByteArrayInputStream(file)).length();
        byte[] badSync = file.clone();
        badSync[badSync.length - 1] ^= 1;
        assertCorrupt(
                badSync,
                "the sync marker after the block does not match the header's (the block at byte " + headerLength + ")");

        byte[] tooBig = write(records, CodecFactory.nullCodec(), 1 << 20);
        try (AvroContainerReader reader =
                AvroContainerReader.open(new ByteArrayInputStream(tooBig), tooBig.length, 64)) {
            List<Object> handed = new ArrayList<>();
            assertThatThrownBy(() -> reader.readBlock(0, (a, o, l) -> handed.add(o)))
                    .isInstanceOf(MalformedAvroException.class)
                    .hasMessageContaining("bad block size")
                    .hasMessageContaining("(the limit is 64)");
            assertThat(handed).isEmpty();
        }

        byte[] truncated = Arrays.copyOf(file, file.length - 40);
        assertCorrupt(truncated, "the object ends inside");
    }

    @Test
    void aBlockWhoseRecordCountDisagreesWithItsBytesIsCorrupt() throws Exception {
        byte[] file = write(records(50), CodecFactory.nullCodec(), 1 << 20);
        int countAt =
                (int) AvroContainerHeader.read(new ByteArrayInputStream(file)).length();
        assertThat(file[countAt]).as("50 records, zig-zag, one byte").isEqualTo((byte) 100);
        assertCorrupt(withByte(file, countAt, 1), "bad record count -1 (the block at byte " + countAt + ")");
        assertCorrupt(withByte(file, countAt, 98), "bytes follow the block's 49 records");
        assertCorrupt(withByte(file, countAt, 102), "record 50 (at byte ");
    }

    private static byte[] withByte(byte[] file, int at, int value) {
        byte[] copy = file.clone();
        copy[at] = (byte) value;
        return copy;
    }

    private static void assertCorrupt(byte[] file, String message) throws IOException {
        List<Object> handed = new ArrayList<>();
        try (AvroContainerReader reader =
                AvroContainerReader.open(new ByteArrayInputStream(file), -1, MAX_BLOCK_BYTES)) {
            assertThatThrownBy(() -> {
                        while (!reader.atEnd()) {
                            reader.readBlock(0, (a, o, l) -> handed.add(o));
                        }
                    })
                    .isInstanceOf(MalformedAvroException.class)
                    .hasMessageContaining(message);
        }
        assertThat(handed).isEmpty();
    }

    private static List<GenericRecord> readAll(AvroContainerReader reader, long skip) throws IOException {
        List<GenericRecord> out = new ArrayList<>();
        long left = skip;
        while (!reader.atEnd()) {
            left = reader.readBlock(left, (array, offset, length) -> out.add(decode(array, offset, length)));
        }
        return out;
    }

    private static GenericRecord decode(byte[] array, int offset, int length) {
        try {
            BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(array, offset, length, null);
            GenericRecord record = new GenericDatumReader<GenericRecord>(SCHEMA).read(null, decoder);
            assertThat(decoder.isEnd()).as("the body is exactly one record").isTrue();
            return record;
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static List<GenericRecord> records(int n) {
        List<GenericRecord> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            GenericRecord r = new GenericData.Record(SCHEMA);
            r.put("id", (long) i * 7919 - 1_000_000);
            r.put("name", new org.apache.avro.util.Utf8("row-" + i));
            List<org.apache.avro.util.Utf8> tags = new ArrayList<>();
            for (int t = 0; t < i % 4; t++) {
                tags.add(new org.apache.avro.util.Utf8("t" + t));
            }
            r.put("tags", new GenericData.Array<>(SCHEMA.getField("tags").schema(), tags));
            out.add(r);
        }
        return out;
    }

    private static byte[] write(List<GenericRecord> records, CodecFactory codec, int syncInterval) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try (DataFileWriter<GenericRecord> writer = new DataFileWriter<>(new GenericDatumWriter<>(SCHEMA))) {
                writer.setCodec(codec);
                writer.setSyncInterval(syncInterval);
                writer.create(SCHEMA, out);
                for (GenericRecord r : records) {
                    writer.append(r);
                }
            }
            return out.toByteArray();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** Returns at most one byte per read and skips nothing, as a slow network stream may. */
    private static final class Trickle extends FilterInputStream {
        Trickle(byte[] bytes) {
            super(new ByteArrayInputStream(bytes));
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return super.read(b, off, Math.min(len, 1));
        }

        @Override
        public long skip(long n) {
            return 0;
        }
    }
}
