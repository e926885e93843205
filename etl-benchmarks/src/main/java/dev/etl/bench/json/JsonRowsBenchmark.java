package dev.etl.bench.json;

import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.ClickHouseTableSchema;
import dev.etl.json.clickhouse.JsonRowTranscoder;
import dev.etl.sink.RowBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.Set;
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
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/**
 * JSON → RowBinary by column name (issue 33): {@link JsonRowTranscoder} over an order-shaped message (a
 * nested customer, an enum, a decimal, an ISO timestamp, arrays, a map, a nullable, a UUID, a double of 4
 * decimals, and two fields no column takes: 13 columns, ~520 bytes), 256 distinct messages cycled. {@code jacksonTree}
 * is Jackson's {@code readTree} of the same bytes: the tree the transcoder does not build, before any
 * value is written. Run with {@code -prof gc} for {@code gc.alloc.rate.norm}; see
 * {@code docs/BENCHMARKS.md}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class JsonRowsBenchmark {
    static final ClickHouseTableSchema ORDERS = ClickHouseTableSchema.of(
            List.of(
                    new ClickHouseColumn("order_id", "UInt64"),
                    new ClickHouseColumn("customer_id", "String"),
                    new ClickHouseColumn("customer_name", "String"),
                    new ClickHouseColumn("status", "Enum8('new' = 1, 'paid' = 2, 'shipped' = 3)"),
                    new ClickHouseColumn("created_at", "DateTime64(3)"),
                    new ClickHouseColumn("total", "Decimal(18, 2)"),
                    new ClickHouseColumn("currency", "LowCardinality(String)"),
                    new ClickHouseColumn("skus", "Array(String)"),
                    new ClickHouseColumn("quantities", "Array(UInt16)"),
                    new ClickHouseColumn("tags", "Map(String, String)"),
                    new ClickHouseColumn("note", "Nullable(String)"),
                    new ClickHouseColumn("trace_id", "UUID"),
                    new ClickHouseColumn("score", "Float64")),
            Set.of());

    private static final String[] STATUS = {"new", "paid", "shipped"};
    private static final String[] NAMES = {"Ann Example", "Bob \\\"Bobby\\\" Tables", "Zoë Ünal", "李雷"};

    private byte[][] messages;
    /** The same orders with a score of 17 significant digits (Double.toString of a random double). */
    private byte[][] longDoubles;

    private JsonRowTranscoder transcoder;
    private ObjectReader tree;
    private RowBuffer out;
    private int next;

    @Setup
    public void setUp() {
        Random random = new Random(33);
        messages = new byte[256][];
        longDoubles = new byte[256][];
        for (int i = 0; i < messages.length; i++) {
            messages[i] = order(random, false).getBytes(StandardCharsets.UTF_8);
            longDoubles[i] = order(random, true).getBytes(StandardCharsets.UTF_8);
        }
        transcoder = JsonRowTranscoder.builder(ORDERS)
                .field("customer_id", "customer.id")
                .field("customer_name", "customer.name")
                .build();
        tree = JsonMapper.builder().build().readerFor(JsonNode.class);
        out = new RowBuffer(1 << 16);
    }

    static String order(Random random, boolean longDouble) {
        int lines = 1 + random.nextInt(4);
        StringBuilder skus = new StringBuilder();
        StringBuilder quantities = new StringBuilder();
        StringBuilder lineObjects = new StringBuilder();
        for (int l = 0; l < lines; l++) {
            String sku = "SKU-" + random.nextInt(100_000);
            int qty = 1 + random.nextInt(9);
            skus.append(l > 0 ? ", " : "").append('"').append(sku).append('"');
            quantities.append(l > 0 ? ", " : "").append(qty);
            lineObjects
                    .append(l > 0 ? ", " : "")
                    .append("{\"sku\": \"")
                    .append(sku)
                    .append("\", \"qty\": ")
                    .append(qty)
                    .append(", \"price\": ")
                    .append(random.nextInt(10_000) / 100.0)
                    .append('}');
        }
        return "{\"order_id\": " + (1_000_000_000_000L + random.nextInt(1_000_000_000))
                + ", \"customer\": {\"id\": \"c-" + random.nextInt(1_000_000) + "\", \"name\": \""
                + NAMES[random.nextInt(NAMES.length)] + "\", \"tier\": \"gold\"}"
                + ", \"status\": \"" + STATUS[random.nextInt(STATUS.length)] + "\""
                + ", \"created_at\": \"2024-05-" + (10 + random.nextInt(20)) + "T" + (10 + random.nextInt(14)) + ":"
                + (10 + random.nextInt(50)) + ":" + (10 + random.nextInt(50)) + "." + (100 + random.nextInt(900))
                + "Z\""
                + ", \"total\": " + random.nextInt(1_000_000) / 100.0
                + ", \"currency\": \"EUR\""
                + ", \"lines\": [" + lineObjects + "]"
                + ", \"skus\": [" + skus + "]"
                + ", \"quantities\": [" + quantities + "]"
                + ", \"tags\": {\"channel\": \"web\", \"promo\": \"spring-" + random.nextInt(10) + "\"}"
                + ", \"note\": " + (random.nextBoolean() ? "null" : "\"leave at the door\"")
                + ", \"trace_id\": \"" + new java.util.UUID(random.nextLong(), random.nextLong()) + "\""
                + ", \"score\": " + (longDouble ? Double.toString(random.nextDouble()) : random.nextInt(10_000) / 1e4)
                + "}";
    }

    @Benchmark
    public int transcoder() {
        byte[] message = messages[next++ & 255];
        out.reset();
        transcoder.transcode(message, 0, message.length, out);
        return out.length();
    }

    /**
     * A double of more than 15 significant digits is beyond the exact fast path: the JDK's parser reads it,
     * from a String (allocates).
     */
    @Benchmark
    public int transcoderLongDoubles() {
        byte[] message = longDoubles[next++ & 255];
        out.reset();
        transcoder.transcode(message, 0, message.length, out);
        return out.length();
    }

    @Benchmark
    public Object jacksonTree() {
        byte[] message = messages[next++ & 255];
        return tree.readValue(message, 0, message.length);
    }
}
