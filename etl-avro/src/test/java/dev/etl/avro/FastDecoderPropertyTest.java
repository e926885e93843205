package dev.etl.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.avro.binary.MalformedAvroException;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.stream.LongStream;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The compiled fast path decodes exactly what Avro's {@code GenericDatumReader(writer, reader)}
 * decodes, on random records of a schema with every type, with and without schema evolution, with
 * and without reuse — and rejects every truncation and any trailing byte.
 *
 * <p>Seeded: each seed is a reproducible case (the test name shows it); 300 seeds × 8 records.
 */
class FastDecoderPropertyTest {
    private static final Schema V1 = TestSchemas.parse(TestSchemas.EVENT_V1);
    private static final Schema V2 = TestSchemas.parse(TestSchemas.EVENT_V2_READER);

    static LongStream seeds() {
        return LongStream.range(0, 300).map(i -> i * 0x9E3779B97F4A7C15L);
    }

    static LongStream fewerSeeds() {
        return seeds().limit(100);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void sameSchemaDecodesLikeGenericDatumReader(long seed) throws Exception {
        assertFastMatchesAvro(V1, V1, seed);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void evolvedReaderDecodesLikeGenericDatumReader(long seed) throws Exception {
        assertFastMatchesAvro(V1, V2, seed);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("fewerSeeds")
    void everyTruncationAndTrailingByteIsRejected(long seed) throws Exception {
        byte[] body = AvroWireFormat.raw(V1, new RandomData(seed).record(V1));
        BodyDecoder<GenericRecord> fast = fast(V1, V2);
        for (int length = 0; length < body.length; length++) {
            int cut = length;
            assertThatThrownBy(() -> fast.decode(body, 0, cut, null))
                    .as("prefix of %d/%d bytes", cut, body.length)
                    .isInstanceOf(MalformedAvroException.class);
        }
        byte[] longer = Arrays.copyOf(body, body.length + 1);
        assertThatThrownBy(() -> fast.decode(longer, 0, longer.length, null))
                .isInstanceOf(MalformedAvroException.class)
                .hasMessageContaining("trailing");
    }

    private static void assertFastMatchesAvro(Schema writer, Schema reader, long seed) throws IOException {
        RandomData random = new RandomData(seed);
        List<GenericRecord> records = random.records(writer, 8);
        BodyDecoder<GenericRecord> fast = fast(writer, reader);
        GenericDatumReader<GenericRecord> avro = new GenericDatumReader<>(writer, reader);
        GenericRecord reused = null;
        for (GenericRecord record : records) {
            byte[] body = AvroWireFormat.raw(writer, record);
            GenericRecord expected = avro.read(null, DecoderFactory.get().binaryDecoder(body, null));

            // The body sits inside a larger array with junk around it: reads must stay within it.
            byte[] framed = new byte[body.length + 7];
            Arrays.fill(framed, (byte) 0x80);
            System.arraycopy(body, 0, framed, 3, body.length);
            assertThat(fast.decode(framed, 3, body.length, null)).as("fresh").isEqualTo(expected);

            reused = fast.decode(framed, 3, body.length, reused);
            assertThat(reused).as("into the previous record").isEqualTo(expected);
        }
    }

    private static BodyDecoder<GenericRecord> fast(Schema writer, Schema reader) {
        try {
            return new BodyDecoder.Fast<>(FastDecoderCompiler.compile(writer, reader, GenericData.get()));
        } catch (FastDecoderCompiler.Unsupported e) {
            throw new AssertionError("fast path should support " + writer.getFullName() + ": " + e.getMessage(), e);
        }
    }
}
