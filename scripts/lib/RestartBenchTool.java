import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import dev.etl.avro.AvroWireFormat;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.sample.OrderLoadGenerator;
import dev.etl.sample.avro.Order;

/**
 * Helper of scripts/restart-sample-bench.sh, compiled by it against the extracted sample-service jar
 * (javac -cp app/sample-service.jar; the jar's manifest brings Kafka, Avro and the etl classes).
 *
 * <pre>
 * feed  --bootstrap B --registry R --topic T [--partitions 8] [--rate 2000]
 *     creates the topic (OrderLoadGenerator.createTopic), registers the sample's v2 Order schema
 *     and produces --rate Avro orders per second (Confluent wire format, 10 slices a second) until
 *     it is killed; prints "feeding" once the first slice was acknowledged.
 * watch --bootstrap B --group G [--above N] [--timeout-ms 120000] --out F
 *     reads the group's committed offsets (sum over all partitions) and writes "baseline=N" to F,
 *     N being --above if given, else the current sum; then polls every 20 ms and, as soon as the
 *     sum exceeds N, appends "committed=S at=EPOCH_MS" and exits 0 (exit 3 on timeout).
 * </pre>
 */
public final class RestartBenchTool {
    private static final String[] SKUS = {"apple", "pear", "plum", "kiwi", "fig", "lime", "date", "yuzu"};

    private RestartBenchTool() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            throw new IllegalArgumentException("usage: feed|watch --option value ...");
        }
        Map<String, String> opts = new HashMap<>();
        for (int i = 1; i + 1 < args.length; i += 2) {
            opts.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        switch (args[0]) {
            case "feed" -> feed(opts);
            case "watch" -> System.exit(watch(opts));
            default -> throw new IllegalArgumentException("unknown command " + args[0]);
        }
    }

    private static void feed(Map<String, String> opts) throws Exception {
        String bootstrap = opts.get("bootstrap");
        String topic = opts.get("topic");
        int rate = Integer.parseInt(opts.getOrDefault("rate", "2000"));
        OrderLoadGenerator.createTopic(bootstrap, topic, Integer.parseInt(opts.getOrDefault("partitions", "8")));
        Schema schema = Order.getClassSchema();
        int schemaId = SchemaRegistryClient.builder(opts.get("registry")).build().register(topic + "-value", schema);

        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        Random random = new Random(42);
        int perSlice = Math.max(1, rate / 10);
        long id = 0;
        boolean announced = false;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            long next = System.nanoTime();
            while (true) {
                for (int i = 0; i < perSlice; i++) {
                    id++;
                    byte[] key = Long.toString(id).getBytes(StandardCharsets.UTF_8);
                    byte[] value = AvroWireFormat.confluent(schemaId, schema, order(schema, id, random));
                    producer.send(new ProducerRecord<>(topic, key, value));
                }
                if (!announced) {
                    producer.flush();
                    System.out.println("feeding " + rate + " orders/s to " + topic);
                    System.out.flush();
                    announced = true;
                }
                next += TimeUnit.MILLISECONDS.toNanos(100);
                long sleep = next - System.nanoTime();
                if (sleep > 0) {
                    TimeUnit.NANOSECONDS.sleep(sleep);
                }
            }
        }
    }

    /** An order as OrderLoadGenerator makes them (schema v2, 1-4 lines, a tenth cancelled). */
    private static GenericRecord order(Schema schema, long id, Random random) {
        Schema lineSchema = schema.getField("lines").schema().getElementType();
        GenericRecord order = new GenericData.Record(schema);
        order.put("id", id);
        order.put("customer", "customer-" + random.nextInt(5_000));
        String status = random.nextInt(10) == 0 ? "CANCELLED" : random.nextBoolean() ? "PAID" : "NEW";
        order.put("status", new GenericData.EnumSymbol(schema.getField("status").schema(), status));
        order.put("updated_ms", System.currentTimeMillis());
        int lineCount = 1 + random.nextInt(4);
        List<GenericRecord> lines = new java.util.ArrayList<>(lineCount);
        for (int i = 0; i < lineCount; i++) {
            GenericRecord line = new GenericData.Record(lineSchema);
            line.put("sku", SKUS[random.nextInt(SKUS.length)]);
            line.put("quantity", 1 + random.nextInt(9));
            line.put("price_cents", 50L + random.nextInt(10_000));
            lines.add(line);
        }
        order.put("lines", lines);
        order.put("coupon", random.nextInt(4) == 0 ? "SAVE10" : null);
        return order;
    }

    private static int watch(Map<String, String> opts) throws Exception {
        String group = opts.get("group");
        Path out = Path.of(opts.get("out"));
        long timeoutMs = Long.parseLong(opts.getOrDefault("timeout-ms", "120000"));
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, opts.get("bootstrap")))) {
            long baseline = opts.containsKey("above") ? Long.parseLong(opts.get("above")) : committed(admin, group);
            write(out, "baseline=" + baseline, false);
            long deadline = System.currentTimeMillis() + timeoutMs;
            while (System.currentTimeMillis() < deadline) {
                long sum = committed(admin, group);
                if (sum > baseline) {
                    write(out, "committed=" + sum + " at=" + System.currentTimeMillis(), true);
                    return 0;
                }
                Thread.sleep(20);
            }
            write(out, "timeout", true);
            return 3;
        }
    }

    private static long committed(Admin admin, String group) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
        return offsets.values().stream().filter(o -> o != null).mapToLong(OffsetAndMetadata::offset).sum();
    }

    private static void write(Path out, String line, boolean append) throws IOException {
        try (PrintStream ps = new PrintStream(Files.newOutputStream(out, append
                ? new java.nio.file.OpenOption[] {java.nio.file.StandardOpenOption.CREATE,
                        java.nio.file.StandardOpenOption.APPEND}
                : new java.nio.file.OpenOption[0]), true, StandardCharsets.UTF_8)) {
            ps.println(line);
        }
    }
}
