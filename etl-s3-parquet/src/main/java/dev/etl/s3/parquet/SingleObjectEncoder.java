package dev.etl.s3.parquet;

import dev.etl.s3.AvroRows;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/**
 * Encodes records of one schema as Avro single-object rows ({@link AvroRows}) into one reused buffer,
 * with one reused encoder: the header is written once, each {@link #encode} rewrites only the body. The
 * schema is registered in the shared writer schemas when this is built, before the first row leaves.
 * Not thread-safe; the array is valid until the next {@link #encode}.
 */
final class SingleObjectEncoder {
    private final RowBuffer buffer = new RowBuffer();
    private final GenericDatumWriter<GenericRecord> writer;
    private final BinaryEncoder encoder;

    SingleObjectEncoder(Schema schema) {
        long fingerprint = AvroRows.register(schema);
        AvroRows.writeHeader(buffer.array, 0, fingerprint);
        writer = new GenericDatumWriter<>(schema, GenericData.get());
        encoder = EncoderFactory.get().directBinaryEncoder(buffer, null);
    }

    /** Encodes {@code record}; the row is {@code array()[0, returned length)}. */
    int encode(GenericRecord record) throws IOException {
        buffer.count = AvroRows.HEADER_LENGTH;
        writer.write(record, encoder);
        encoder.flush();
        return buffer.count;
    }

    byte[] array() {
        return buffer.array;
    }

    /** A growable byte array whose prefix (the header) survives growth and resets. */
    private static final class RowBuffer extends OutputStream {
        byte[] array = new byte[1024];
        int count;

        @Override
        public void write(int b) {
            ensure(1);
            array[count++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            ensure(len);
            System.arraycopy(b, off, array, count, len);
            count += len;
        }

        private void ensure(int more) {
            if (count + more > array.length) {
                array = Arrays.copyOf(array, Math.max(array.length * 2, count + more));
            }
        }
    }
}
