package dev.etl.s3;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericDatumWriter;

/** Avro object container files written by Avro's own {@link DataFileWriter}, with their block layout. */
final class AvroTestFiles {
    private AvroTestFiles() {}

    /**
     * A written file.
     *
     * @param bytes          the file
     * @param records        the values, in order
     * @param boundaries     where each block begins, then the end of the file (known only for files written
     *                       with explicit blocks, else empty)
     * @param blockRecords   how many records each block holds (explicit blocks only)
     */
    record AvroFile(
            byte[] bytes, Schema schema, List<Object> records, List<Long> boundaries, List<Integer> blockRecords) {
        /** The records of blocks before {@code block}. */
        int recordsBefore(int block) {
            int n = 0;
            for (int i = 0; i < block; i++) {
                n += blockRecords.get(i);
            }
            return n;
        }
    }

    /** Writes {@code records} with Avro's writer, letting it cut blocks every {@code syncInterval} bytes. */
    static AvroFile write(
            Schema schema, List<Object> records, CodecFactory codec, int syncInterval, int metadataBytes) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try (DataFileWriter<Object> writer = new DataFileWriter<>(new GenericDatumWriter<>(schema))) {
                writer.setCodec(codec);
                writer.setSyncInterval(syncInterval);
                if (metadataBytes > 0) {
                    writer.setMeta("test.padding", "p".repeat(metadataBytes));
                }
                writer.create(schema, out);
                for (Object record : records) {
                    writer.append(record);
                }
            }
            return new AvroFile(out.toByteArray(), schema, records, List.of(), List.of());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes blocks of exactly the given record counts (one explicit sync after each). */
    static AvroFile writeBlocks(Schema schema, List<Object> records, CodecFactory codec, List<Integer> blockRecords) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            List<Long> boundaries = new ArrayList<>();
            try (DataFileWriter<Object> writer = new DataFileWriter<>(new GenericDatumWriter<>(schema))) {
                writer.setCodec(codec);
                writer.setSyncInterval(1 << 30);
                writer.create(schema, out);
                boundaries.add(writer.sync());
                int next = 0;
                for (int count : blockRecords) {
                    for (int i = 0; i < count; i++) {
                        writer.append(records.get(next++));
                    }
                    boundaries.add(writer.sync());
                }
            }
            return new AvroFile(out.toByteArray(), schema, records, boundaries, blockRecords);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A zig-zag varint. */
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

    /** The length of the varint at {@code at}. */
    static int varintLength(byte[] b, int at) {
        int n = 1;
        while (b[at + n - 1] < 0) {
            n++;
        }
        return n;
    }

    /** Reads the zig-zag varint at {@code at}. */
    static long readVarint(byte[] b, int at) {
        long value = 0;
        int shift = 0;
        int i = at;
        int v;
        do {
            v = b[i++];
            value |= (long) (v & 0x7f) << shift;
            shift += 7;
        } while (v < 0);
        return (value >>> 1) ^ -(value & 1);
    }

    /** The file with block {@code block}'s count and size varints replaced. */
    static byte[] withBlockHeader(AvroFile file, int block, long count, long size) {
        byte[] b = file.bytes();
        int at = (int) (long) file.boundaries().get(block);
        int countLength = varintLength(b, at);
        int sizeLength = varintLength(b, at + countLength);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(b, 0, at);
        out.writeBytes(varint(count));
        out.writeBytes(varint(size));
        out.write(b, at + countLength + sizeLength, b.length - at - countLength - sizeLength);
        return out.toByteArray();
    }

    /** Block {@code block}'s record count and data size as written. */
    static long[] blockHeader(AvroFile file, int block) {
        byte[] b = file.bytes();
        int at = (int) (long) file.boundaries().get(block);
        int countLength = varintLength(b, at);
        return new long[] {
            readVarint(b, at), readVarint(b, at + countLength), at + countLength + varintLength(b, at + countLength)
        };
    }
}
