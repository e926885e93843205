package dev.etl.sample;

import dev.etl.avro.AvroWireFormat;
import dev.etl.avro.SchemaRegistryClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Produces N deterministic orders in Confluent wire format, half written with schema v1 (no coupon)
 * and half with v2, so the service's v2 reader exercises schema evolution. Prints the totals the
 * table must hold afterwards.
 *
 * <p>It is in the service's executable jar; run it through Spring Boot's {@code PropertiesLauncher}
 * (it is a plain main: no Spring context is started):
 *
 * <pre>
 * java -cp sample-service/target/sample-service.jar -Dloader.main=dev.etl.sample.OrderLoadGenerator \
 *      org.springframework.boot.loader.launch.PropertiesLauncher \
 *      --bootstrap 127.0.0.1:19092 --registry http://127.0.0.1:18081/apis/ccompat/v7 --topic orders --orders 100000
 * </pre>
 */
public final class OrderLoadGenerator {
    private static final String[] SKUS = {"apple", "pear", "plum", "kiwi", "fig", "lime", "date", "yuzu"};

    private OrderLoadGenerator() {}

    /** What the generator produced, and what the table must hold after FINAL. */
    public record Totals(long orders, long cancelled, long expectedOrders, long expectedLines) {
        void print(PrintStream out) {
            out.println("produced.orders=" + orders);
            out.println("produced.cancelled=" + cancelled);
            out.println("expected.orders=" + expectedOrders);
            out.println("expected.lines=" + expectedLines);
        }
    }

    public static void main(String[] args) throws Exception {
        // Before the first logger exists: warnings only (Kafka's clients are chatty at INFO).
        if (System.getProperty("logback.configurationFile") == null) {
            System.setProperty("logback.configurationFile", "generator-logback.xml");
        }
        Map<String, String> opts = parse(args, USAGE);
        String bootstrap = require(opts, "bootstrap");
        String registry = require(opts, "registry");
        String topic = opts.getOrDefault("topic", "orders");
        long orders = Long.parseLong(opts.getOrDefault("orders", "100000"));
        int partitions = Integer.parseInt(opts.getOrDefault("partitions", "8"));
        long seed = Long.parseLong(opts.getOrDefault("seed", "42"));

        createTopic(bootstrap, topic, partitions);
        SchemaRegistryClient client = SchemaRegistryClient.builder(registry).build();
        long started = System.nanoTime();
        Totals totals = produce(bootstrap, client, topic, orders, seed);
        double seconds = (System.nanoTime() - started) / 1e9;
        System.err.printf("produced %d orders to %s (%d partitions) in %.1f s%n", orders, topic, partitions, seconds);
        totals.print(System.out);
        if (opts.containsKey("totals-file")) {
            try (PrintStream file = new PrintStream(
                    Files.newOutputStream(Path.of(opts.get("totals-file"))), true, StandardCharsets.UTF_8)) {
                totals.print(file);
            }
        }
    }

    /** Produces {@code count} orders and waits until the broker acknowledged all of them. */
    public static Totals produce(String bootstrap, SchemaRegistryClient registry, String topic, long count, long seed)
            throws IOException, InterruptedException, ExecutionException {
        Schema v1 = load("/schemas/order-v1.avsc");
        Schema v2 = dev.etl.sample.avro.Order.getClassSchema();
        String subject = topic + "-value";
        int v1Id = registry.register(subject, v1);
        int v2Id = registry.register(subject, v2);

        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");

        Random random = new Random(seed);
        long cancelled = 0;
        long lines = 0;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            List<java.util.concurrent.Future<?>> pending = new ArrayList<>();
            for (long id = 1; id <= count; id++) {
                boolean useV2 = (id & 1) == 0;
                Schema schema = useV2 ? v2 : v1;
                GenericRecord order = order(schema, id, random, useV2);
                boolean isCancelled = "CANCELLED".equals(order.get("status").toString());
                if (isCancelled) {
                    cancelled++;
                } else {
                    lines += ((List<?>) order.get("lines")).size();
                }
                byte[] key = Long.toString(id).getBytes(StandardCharsets.UTF_8);
                byte[] value = AvroWireFormat.confluent(useV2 ? v2Id : v1Id, schema, order);
                pending.add(producer.send(new ProducerRecord<>(topic, key, value)));
                if (pending.size() >= 10_000) {
                    drain(pending);
                }
            }
            drain(pending);
        }
        return new Totals(count, cancelled, count - cancelled, lines);
    }

    /** Order {@code id}, drawn from {@code random}: the same seed and ids give the same orders. */
    static GenericRecord order(Schema schema, long id, Random random, boolean withCoupon) {
        Schema lineSchema = schema.getField("lines").schema().getElementType();
        GenericRecord order = new GenericData.Record(schema);
        order.put("id", id);
        order.put("customer", "customer-" + random.nextInt(5_000));
        String status = random.nextInt(10) == 0 ? "CANCELLED" : random.nextBoolean() ? "PAID" : "NEW";
        order.put("status", new GenericData.EnumSymbol(schema.getField("status").schema(), status));
        order.put("updated_ms", 1_700_000_000_000L + id);
        int lineCount = 1 + random.nextInt(4);
        List<GenericRecord> lines = new ArrayList<>(lineCount);
        for (int i = 0; i < lineCount; i++) {
            GenericRecord line = new GenericData.Record(lineSchema);
            line.put("sku", SKUS[random.nextInt(SKUS.length)]);
            line.put("quantity", 1 + random.nextInt(9));
            line.put("price_cents", 50L + random.nextInt(10_000));
            lines.add(line);
        }
        order.put("lines", lines);
        if (withCoupon) {
            order.put("coupon", random.nextInt(4) == 0 ? "SAVE10" : null);
        }
        return order;
    }

    private static void drain(List<java.util.concurrent.Future<?>> pending)
            throws InterruptedException, ExecutionException {
        for (java.util.concurrent.Future<?> f : pending) {
            try {
                f.get(60, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                throw new IllegalStateException("the broker did not acknowledge a send within 60 s", e);
            }
        }
        pending.clear();
    }

    /** Creates the topic if it does not exist. */
    public static void createTopic(String bootstrap, String topic, int partitions)
            throws InterruptedException, ExecutionException {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
                    .all()
                    .get();
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
    }

    static Schema load(String resource) throws IOException {
        try (InputStream in = OrderLoadGenerator.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException("missing resource " + resource);
            }
            return new Schema.Parser().parse(in);
        }
    }

    private static final String USAGE = "--bootstrap H:P --registry URL [--topic orders] [--orders N] "
            + "[--partitions 8] [--seed 42] [--totals-file F]";

    /** {@code --name value} pairs. */
    static Map<String, String> parse(String[] args, String usage) {
        Map<String, String> opts = new java.util.HashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("usage: " + usage + "; got " + String.join(" ", args));
            }
            opts.put(args[i].substring(2), args[++i]);
        }
        return opts;
    }

    static String require(Map<String, String> opts, String key) {
        String value = opts.get(key);
        if (value == null) {
            throw new IllegalArgumentException("--" + key + " is required");
        }
        return value;
    }
}
