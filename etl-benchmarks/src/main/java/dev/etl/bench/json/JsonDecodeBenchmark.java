package dev.etl.bench.json;

import dev.etl.internal.record.MutableRecordMeta;
import dev.etl.json.JsonDeserializer;
import dev.etl.record.Collector;
import dev.etl.record.Payload;
import java.io.ByteArrayOutputStream;
import java.util.Random;
import java.util.concurrent.TimeUnit;
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
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.MappingIterator;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@link JsonDeserializer} against Jackson databind alone, on the same bytes, into the same type, in
 * the same run: one 15-field event per message ({@code single*}), ten per message as NDJSON
 * ({@code ndjson*}) and as a top-level array ({@code array*}), and the {@code JsonNode} tree
 * ({@code tree*}). Databind alone is what a hand-written consumer does: one reused
 * {@code ObjectReader}, {@code readValue(byte[], offset, length)} per document (per line for NDJSON,
 * split by hand), {@code readValues} (a {@code MappingIterator}) for the array.
 *
 * <p>Cycles through 1024 distinct messages so values and lengths vary like real data. Every variant
 * folds each emitted value's id into a field, so neither side can drop work. Run with
 * {@code -prof gc} for {@code gc.alloc.rate.norm}; see {@code docs/BENCHMARKS.md}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class JsonDecodeBenchmark {
    /** The event: the same fields as the Avro benchmark's {@code BenchEvent}. */
    public record JsonEvent(
            long id,
            long timestampMs,
            int userId,
            String sessionId,
            String country,
            String device,
            double price,
            int quantity,
            float discount,
            boolean paid,
            String campaign,
            double score,
            String page,
            String referrer,
            int version) {}

    private static final int MESSAGES = 1024;
    static final int DOCUMENTS_PER_BATCH = 10;

    private final byte[][] singles = new byte[MESSAGES][];
    private final byte[][] ndjson = new byte[MESSAGES][];
    private final byte[][] arrays = new byte[MESSAGES][];
    private int next;

    private ObjectReader reader;
    private ObjectReader treeReader;
    private JsonDeserializer<JsonEvent> single;
    private JsonDeserializer<JsonEvent> lines;
    private JsonDeserializer<JsonEvent> array;
    private JsonDeserializer<JsonNode> tree;

    private final Payload key = new Payload();
    private final Payload value = new Payload();
    private final MutableRecordMeta meta = new MutableRecordMeta();
    private long folded;
    private final Collector<JsonEvent> events = e -> folded += e.id();
    private final Collector<JsonNode> trees = n -> folded += n.size();

    @Setup
    public void setUp() {
        JsonMapper mapper = JsonMapper.builder().build();
        Random random = new Random(7);
        long singleBytes = 0;
        long lineBytes = 0;
        for (int m = 0; m < MESSAGES; m++) {
            singles[m] = mapper.writeValueAsBytes(event(random, m));
            singleBytes += singles[m].length;
            ByteArrayOutputStream lineOut = new ByteArrayOutputStream();
            ByteArrayOutputStream arrayOut = new ByteArrayOutputStream();
            arrayOut.write('[');
            for (int d = 0; d < DOCUMENTS_PER_BATCH; d++) {
                byte[] doc = mapper.writeValueAsBytes(event(random, m * DOCUMENTS_PER_BATCH + d));
                lineOut.writeBytes(doc);
                lineOut.write('\n');
                if (d > 0) {
                    arrayOut.write(',');
                }
                arrayOut.writeBytes(doc);
            }
            arrayOut.write(']');
            ndjson[m] = lineOut.toByteArray();
            arrays[m] = arrayOut.toByteArray();
            lineBytes += ndjson[m].length;
        }
        System.out.printf(
                "%n%d messages: single %.1f bytes on average, NDJSON %.1f bytes (%d documents)%n",
                MESSAGES, (double) singleBytes / MESSAGES, (double) lineBytes / MESSAGES, DOCUMENTS_PER_BATCH);

        reader = mapper.readerFor(JsonEvent.class);
        treeReader = mapper.readerFor(JsonNode.class);
        single = JsonDeserializer.forType(JsonEvent.class).mapper(mapper).build();
        lines = JsonDeserializer.forType(JsonEvent.class)
                .ndjson()
                .mapper(mapper)
                .build();
        array = JsonDeserializer.forType(JsonEvent.class).array().mapper(mapper).build();
        tree = JsonDeserializer.tree().mapper(mapper).build();
    }

    static JsonEvent event(Random random, int i) {
        return new JsonEvent(
                1_000_000_000L + random.nextInt(1 << 30),
                1_767_000_000_000L + random.nextInt(86_400_000),
                random.nextInt(5_000_000),
                Long.toHexString(random.nextLong() | Long.MIN_VALUE),
                i % 3 == 0 ? "NO" : i % 3 == 1 ? "DE" : "US",
                new String[] {"ios", "android", "web", "tv"}[random.nextInt(4)],
                random.nextInt(100_000) / 100.0,
                1 + random.nextInt(5),
                random.nextInt(30) / 100f,
                random.nextBoolean(),
                random.nextInt(4) == 0 ? "spring-sale" : null,
                random.nextDouble(),
                "/product/" + random.nextInt(100_000) + "/reviews",
                null,
                3);
    }

    private int nextIndex() {
        int i = next;
        next = (i + 1) & (MESSAGES - 1);
        return i;
    }

    // ---- one document per message -------------------------------------------------------------

    @Benchmark
    public long singleDatabind() {
        byte[] body = singles[nextIndex()];
        JsonEvent e = reader.readValue(body, 0, body.length);
        return folded += e.id();
    }

    @Benchmark
    public long singleDeserializer() {
        single.deserialize(key, value.wrap(singles[nextIndex()]), meta, events);
        return folded;
    }

    // ---- ten documents per message, one per line ----------------------------------------------

    @Benchmark
    public long ndjsonDatabind() {
        byte[] body = ndjson[nextIndex()];
        int start = 0;
        for (int i = 0; i < body.length; i++) {
            if (body[i] == '\n') {
                if (i > start) {
                    JsonEvent e = reader.readValue(body, start, i - start);
                    folded += e.id();
                }
                start = i + 1;
            }
        }
        return folded;
    }

    @Benchmark
    public long ndjsonDeserializer() {
        lines.deserialize(key, value.wrap(ndjson[nextIndex()]), meta, events);
        return folded;
    }

    // ---- ten documents per message, as a top-level array --------------------------------------

    @Benchmark
    public long arrayDatabind() {
        byte[] body = arrays[nextIndex()];
        try (MappingIterator<JsonEvent> it = reader.readValues(body, 0, body.length)) {
            while (it.hasNextValue()) {
                folded += it.nextValue().id();
            }
        }
        return folded;
    }

    @Benchmark
    public long arrayDeserializer() {
        array.deserialize(key, value.wrap(arrays[nextIndex()]), meta, events);
        return folded;
    }

    // ---- the tree, one document per message ---------------------------------------------------

    @Benchmark
    public long treeDatabind() {
        byte[] body = singles[nextIndex()];
        JsonNode n = treeReader.readValue(body, 0, body.length);
        return folded += n.size();
    }

    @Benchmark
    public long treeDeserializer() {
        tree.deserialize(key, value.wrap(singles[nextIndex()]), meta, trees);
        return folded;
    }
}
