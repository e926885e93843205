package dev.etl.avro;

import java.io.IOException;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a deserializer produces: generic records, a generated specific class, or a user mapping of
 * generic records. Builds the {@link BodyDecoder} for a writer schema — the compiled fast path when
 * {@link FastDecoderCompiler} supports the pair, else Avro's resolving reader. Immutable; shared by
 * the lanes' deserializers (each builds its own decoders).
 */
abstract class AvroTarget<T> {
    private static final Logger log = LoggerFactory.getLogger(AvroTarget.class);

    final Schema reader;
    final GenericData model;

    AvroTarget(Schema reader, GenericData model) {
        this.reader = reader;
        this.model = model;
    }

    BodyDecoder<T> decoderFor(Schema writer, boolean fastPath, String label) {
        if (fastPath) {
            try {
                BodyDecoder<T> fast = new BodyDecoder.Fast<>(FastDecoderCompiler.compile(writer, reader, model));
                log.debug("Avro writer schema {} -> reader {}: fast path", label, reader.getFullName());
                return wrap(fast);
            } catch (FastDecoderCompiler.Unsupported e) {
                log.info(
                        "Avro writer schema {} -> reader {}: resolving reader ({})",
                        label,
                        reader.getFullName(),
                        e.getMessage());
            }
        }
        return wrap(resolving(writer));
    }

    abstract BodyDecoder<T> resolving(Schema writer);

    BodyDecoder<T> wrap(BodyDecoder<T> decoder) {
        return decoder;
    }

    static AvroTarget<GenericRecord> generic(Schema reader) {
        return new AvroTarget<>(reader, GenericData.get()) {
            @Override
            BodyDecoder<GenericRecord> resolving(Schema writer) {
                return new BodyDecoder.Resolving<>(new GenericDatumReader<GenericRecord>(writer, reader, model));
            }
        };
    }

    static <T extends SpecificRecord> AvroTarget<T> specific(Class<T> type) {
        GeneratedClassTrust.trust(type);
        SpecificData specificData = SpecificData.getForClass(type);
        Schema reader = specificData.getSchema(type);
        return new AvroTarget<>(reader, specificData) {
            @Override
            BodyDecoder<T> resolving(Schema writer) {
                return new BodyDecoder.Resolving<>(new SpecificDatumReader<T>(writer, reader, specificData));
            }
        };
    }

    /** Decodes generic records (fast path where possible), then applies {@code mapper}. */
    static <T> AvroTarget<T> mapped(Schema reader, AvroRecordMapper<T> mapper) {
        AvroTarget<GenericRecord> generic = generic(reader);
        return new AvroTarget<>(reader, GenericData.get()) {
            @Override
            BodyDecoder<T> decoderFor(Schema writer, boolean fastPath, String label) {
                return new Mapped<>(generic.decoderFor(writer, fastPath, label), mapper);
            }

            @Override
            BodyDecoder<T> resolving(Schema writer) {
                return new Mapped<>(generic.resolving(writer), mapper);
            }
        };
    }

    /** A failure of the user's mapper (not of the body). */
    static final class MappingException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        MappingException(Exception cause) {
            super(cause);
        }
    }

    private static final class Mapped<T> extends BodyDecoder<T> {
        private final BodyDecoder<GenericRecord> decoder;
        private final AvroRecordMapper<T> mapper;
        private GenericRecord scratch;

        Mapped(BodyDecoder<GenericRecord> decoder, AvroRecordMapper<T> mapper) {
            this.decoder = decoder;
            this.mapper = mapper;
        }

        @Override
        T decode(byte[] array, int offset, int length, T reuse) throws IOException {
            GenericRecord record = decoder.decode(array, offset, length, scratch);
            scratch = record;
            try {
                return mapper.map(record);
            } catch (Exception e) {
                throw new MappingException(e);
            }
        }

        @Override
        boolean fast() {
            return decoder.fast();
        }
    }
}
