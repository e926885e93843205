package dev.etl.bench.avro;

import dev.etl.avro.AvroDeserializer;
import dev.etl.avro.AvroWireFormat;
import dev.etl.bench.avro.generated.BenchDevice;
import dev.etl.bench.avro.generated.BenchEvent;
import dev.etl.internal.record.MutableRecordMeta;
import dev.etl.record.Collector;
import dev.etl.record.Payload;
import java.io.IOException;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Decoding one ~80-byte, 15-field Avro record (same writer and reader schema): Avro's
 * {@code GenericDatumReader} and {@code SpecificDatumReader} (each reusing its decoder and record,
 * their best case), against {@link AvroDeserializer}'s compiled fast path into a generic record and
 * into the generated class, and the deserializer with the fast path off (framework overhead).
 *
 * <p>Cycles through 1024 distinct pre-encoded records so boxing and string lengths vary as in real
 * data (a single repeated record would flatter branch prediction). Run with {@code -prof gc} for
 * {@code gc.alloc.rate.norm}; see {@code docs/BENCHMARKS.md}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class AvroDecodeBenchmark {
    private static final int RECORDS = 1024;

    private final byte[][] bodies = new byte[RECORDS][];
    private int next;

    private GenericDatumReader<GenericRecord> genericReader;
    private SpecificDatumReader<BenchEvent> specificReader;
    private BinaryDecoder decoder;
    private GenericRecord genericReuse;
    private BenchEvent specificReuse;

    private AvroDeserializer<GenericRecord> fastGeneric;
    private AvroDeserializer<BenchEvent> fastSpecific;
    private AvroDeserializer<GenericRecord> deserializerResolving;
    private final Payload key = new Payload();
    private final Payload value = new Payload();
    private final MutableRecordMeta meta = new MutableRecordMeta();
    private Object last;
    private final Collector<Object> sink = v -> last = v;

    @Setup
    public void setUp() {
        Schema schema = BenchEvent.getClassSchema();
        Random random = new Random(7);
        long bytes = 0;
        for (int i = 0; i < RECORDS; i++) {
            bodies[i] = AvroWireFormat.raw(schema, event(random, i));
            bytes += bodies[i].length;
        }
        System.out.printf("%n%d records, %.1f bytes on average%n", RECORDS, (double) bytes / RECORDS);

        fastSpecific = AvroDeserializer.specific(BenchEvent.class).raw(schema).build();
        fastGeneric = AvroDeserializer.generic(schema).raw(schema).build();
        deserializerResolving =
                AvroDeserializer.generic(schema).raw(schema).fastPath(false).build();
        genericReader = new GenericDatumReader<>(schema, schema);
        specificReader = new SpecificDatumReader<>(schema, schema, SpecificData.getForClass(BenchEvent.class));
    }

    public static BenchEvent event(Random random, int i) {
        return BenchEvent.newBuilder()
                .setId(1_000_000_000L + random.nextInt(1 << 30))
                .setTimestampMs(1_767_000_000_000L + random.nextInt(86_400_000))
                .setUserId(random.nextInt(5_000_000))
                .setSessionId(Long.toHexString(random.nextLong() | Long.MIN_VALUE))
                .setCountry(i % 3 == 0 ? "NO" : i % 3 == 1 ? "DE" : "US")
                .setDevice(BenchDevice.values()[random.nextInt(4)])
                .setPrice(random.nextInt(100_000) / 100.0)
                .setQuantity(1 + random.nextInt(5))
                .setDiscount(random.nextInt(30) / 100f)
                .setPaid(random.nextBoolean())
                .setCampaign(random.nextInt(4) == 0 ? "spring-sale" : null)
                .setScore(random.nextDouble())
                .setPage("/product/" + random.nextInt(100_000) + "/reviews")
                .setReferrer(null)
                .setVersion(3)
                .build();
    }

    private byte[] nextBody() {
        int i = next;
        next = (i + 1) & (RECORDS - 1);
        return bodies[i];
    }

    @Benchmark
    public Object genericDatumReader() throws IOException {
        byte[] body = nextBody();
        decoder = DecoderFactory.get().binaryDecoder(body, 0, body.length, decoder);
        return genericReuse = genericReader.read(genericReuse, decoder);
    }

    @Benchmark
    public Object specificDatumReader() throws IOException {
        byte[] body = nextBody();
        decoder = DecoderFactory.get().binaryDecoder(body, 0, body.length, decoder);
        return specificReuse = specificReader.read(specificReuse, decoder);
    }

    @Benchmark
    public Object fastPathGeneric() {
        fastGeneric.deserialize(key, value.wrap(nextBody()), meta, sink);
        return last;
    }

    @Benchmark
    public Object fastPathSpecific() {
        fastSpecific.deserialize(key, value.wrap(nextBody()), meta, sink);
        return last;
    }

    @Benchmark
    public Object deserializerWithoutFastPath() {
        deserializerResolving.deserialize(key, value.wrap(nextBody()), meta, sink);
        return last;
    }
}
