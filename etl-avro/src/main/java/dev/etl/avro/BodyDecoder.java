package dev.etl.avro;

import dev.etl.avro.binary.AvroCursor;
import dev.etl.avro.binary.MalformedAvroException;
import java.io.IOException;

/**
 * Decodes one Avro body written with one writer schema into the reader's representation. One
 * instance per (lane, writer schema): it owns a reusable cursor or {@code BinaryDecoder}.
 *
 * <p>Must consume the body exactly: trailing bytes mean the writer schema does not describe the
 * body, and are an error like a truncated body.
 */
abstract class BodyDecoder<T> {
    /**
     * @param reuse the value this lane emitted last (or null); may be filled in and returned
     * @throws MalformedAvroException or IOException/RuntimeException when the body does not match
     */
    abstract T decode(byte[] array, int offset, int length, T reuse) throws IOException;

    /** Whether this is the compiled fast path (false: Avro's resolving {@code DatumReader}). */
    abstract boolean fast();

    static MalformedAvroException trailing(int remaining, int length) {
        return new MalformedAvroException(
                remaining + " trailing byte(s) after the record (body is " + length + " bytes)");
    }

    /** The compiled fast path: a {@link RecordReader} over an {@link AvroCursor}. */
    static final class Fast<T> extends BodyDecoder<T> {
        private final RecordReader reader;
        private final AvroCursor in = new AvroCursor();

        Fast(RecordReader reader) {
            this.reader = reader;
        }

        @Override
        @SuppressWarnings("unchecked")
        T decode(byte[] array, int offset, int length, T reuse) {
            AvroCursor in = this.in;
            in.wrap(array, offset, length);
            Object value = reader.read(in, reuse);
            if (in.remaining() != 0) {
                throw trailing(in.remaining(), length);
            }
            return (T) value;
        }

        @Override
        boolean fast() {
            return true;
        }
    }

    /** Avro's own resolving reader ({@code GenericDatumReader(writer, reader)} or its specific form). */
    static final class Resolving<T> extends BodyDecoder<T> {
        private final org.apache.avro.io.DatumReader<T> reader;
        private org.apache.avro.io.BinaryDecoder decoder;

        Resolving(org.apache.avro.io.DatumReader<T> reader) {
            this.reader = reader;
        }

        @Override
        T decode(byte[] array, int offset, int length, T reuse) throws IOException {
            org.apache.avro.io.BinaryDecoder decoder =
                    org.apache.avro.io.DecoderFactory.get().binaryDecoder(array, offset, length, this.decoder);
            this.decoder = decoder;
            T value = reader.read(reuse, decoder);
            if (!decoder.isEnd()) {
                throw new MalformedAvroException("trailing byte(s) after the record (body is " + length + " bytes)");
            }
            return value;
        }

        @Override
        boolean fast() {
            return false;
        }
    }
}
