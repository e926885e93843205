package dev.etl.bench.e2e;

import dev.etl.avro.AvroWireFormat;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.bench.BenchArgs;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Freshness of a running pipeline, measured from the outside ({@code scripts/freshness-bench.sh}):
 * produces orders (the sample's v2 {@code Order} schema) at a steady rate with the wall-clock time of
 * the send in {@code updated_ms}, and polls every replica of every shard for the orders that became
 * visible since the last poll. An order's latency is the start of the first poll that saw it minus the
 * moment it was handed to the producer (one JVM, one clock), so it is late by up to one poll period.
 *
 * <p>Open loop: the i-th order is due at {@code start + i / rate} whatever the pipeline does (a producer
 * that falls behind its schedule says so). The first {@code --warmup-s} seconds are produced but not
 * counted; then {@code --duration-s} seconds are measured, and the program waits (at most
 * {@code --settle-s}) until every measured order is on both replicas of its shard. No cancelled orders:
 * every order must become visible.
 *
 * <p>Each replica is polled by its own thread, {@code SELECT order_id FROM <db>.orders WHERE order_id > G
 * AND line_no = 0 FORMAT RowBinary}, where G is the highest id below which every order is already on both
 * replicas of its shard (so a poll reads a few seconds of orders, through the primary key). Reported:
 * <ul>
 *   <li><b>visible</b>: the first replica of its shard that showed the order (the one the sink wrote,
 *       or the other if replication was faster than the next poll);
 *   <li><b>replicated</b>: both replicas of its shard showed it;
 *   <li>the difference of the two (replication as seen from the outside);
 * </ul>
 * p50/p90/p99/p99.9/max of each. With {@code --metrics URL} (the pipeline's {@code /actuator/prometheus})
 * it also prints what the pipeline's own meters counted over the measured window: the means of its
 * timers (insert and write durations, block ages) and its counters (polls, records, inserts, blocks,
 * commits), which is where the time goes.
 *
 * <pre>
 * java -cp etl-benchmarks/target/benchmarks.jar dev.etl.bench.e2e.FreshnessBench \
 *      --bootstrap 127.0.0.1:19092 --registry http://127.0.0.1:18081/apis/ccompat/v7 --topic fresh \
 *      --schema sample-service/src/main/avro/Order.avsc --database fresh_db \
 *      --shards 'http://127.0.0.1:18123|http://127.0.0.1:18124,http://127.0.0.1:18125|http://127.0.0.1:18126' \
 *      --rate 5000 --warmup-s 15 --duration-s 60 --poll-ms 100 --metrics http://127.0.0.1:8080/actuator/prometheus
 * </pre>
 *
 * Prints {@code freshness ...} result lines on stdout and exits 0; 3 when some measured order was not
 * visible on both replicas within {@code --settle-s}; 1 on errors.
 */
public final class FreshnessBench {
    private static final String USAGE = "usage: --bootstrap H:P --registry URL --topic T --schema Order.avsc"
            + " --database DB --shards 'R1|R2,R3|R4' [--rate 5000] [--warmup-s 15] [--duration-s 60]"
            + " [--poll-ms 100] [--settle-s 30] [--metrics URL]";
    private static final String[] SKUS = {"apple", "pear", "plum", "kiwi", "fig", "lime", "date", "yuzu"};

    private FreshnessBench() {}

    public static void main(String[] args) throws Exception {
        BenchArgs.defaultLogging("dev/etl/bench/limits/limits-logback.xml");
        BenchArgs a = new BenchArgs(USAGE, args);
        long rate = a.getLong("rate", 5000);
        long warmupS = a.getLong("warmup-s", 15);
        long durationS = a.getLong("duration-s", 60);
        long pollMs = a.getLong("poll-ms", 100);
        long settleS = a.getLong("settle-s", 30);
        String metrics = a.get("metrics", "");
        int warmup = Math.toIntExact(rate * warmupS);
        int total = Math.toIntExact(rate * (warmupS + durationS));

        List<Replica> replicas = new ArrayList<>();
        String[] shards = a.get("shards").split(",");
        for (int s = 0; s < shards.length; s++) {
            for (String url : shards[s].split("\\|")) {
                replicas.add(new Replica(s, URI.create(url + "/"), total));
            }
        }
        Watch watch = new Watch(replicas, a.get("database"), total, pollMs);
        watch.check();

        Schema schema = new Schema.Parser().parse(Path.of(a.get("schema")).toFile());
        SchemaRegistryClient registry =
                SchemaRegistryClient.builder(a.get("registry")).build();
        int schemaId = registry.register(a.get("topic") + "-value", schema);
        Producer producer = new Producer(a.get("bootstrap"), a.get("topic"), schema, schemaId, rate, total, warmup);

        watch.start();
        producer.start();
        // The measured window starts when the first measured order is due.
        long measureStartNs = producer.startNs + TimeUnit.SECONDS.toNanos(warmupS);
        sleepUntil(measureStartNs);
        Map<String, Double> before = metrics.isEmpty() ? Map.of() : scrapeOrEmpty(metrics);
        LagSampler lag = metrics.isEmpty() ? null : new LagSampler(metrics);
        if (lag != null) {
            lag.start();
        }
        producer.join(TimeUnit.SECONDS.toMillis(warmupS + durationS + 120));
        if (lag != null) {
            lag.stopped = true;
            lag.join(10_000);
        }
        if (producer.isAlive() || producer.failure != null) {
            throw new IllegalStateException("the producer did not finish", producer.failure);
        }
        long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(settleS);
        while (watch.replicatedThrough() < total && System.nanoTime() - deadlineNs < 0) {
            Thread.sleep(pollMs);
        }
        Map<String, Double> after = metrics.isEmpty() ? Map.of() : scrapeOrEmpty(metrics);
        watch.stop();

        long[] visible = new long[total - warmup];
        long[] replicated = new long[total - warmup];
        long[] replication = new long[total - warmup];
        int nVisible = 0;
        int nReplicated = 0;
        for (int id = warmup + 1; id <= total; id++) {
            long produced = producer.sentNs[id - 1];
            long first = Long.MAX_VALUE;
            long both = 0;
            for (int s = 0; s < shards.length; s++) {
                long shardFirst = Long.MAX_VALUE;
                long shardLast = 0;
                boolean all = true;
                for (Replica r : replicas) {
                    if (r.shard == s) {
                        long seen = r.seenNs.get(id - 1);
                        if (seen == 0) {
                            all = false;
                        } else {
                            shardFirst = Math.min(shardFirst, seen);
                            shardLast = Math.max(shardLast, seen);
                        }
                    }
                }
                if (shardFirst != Long.MAX_VALUE) {
                    first = Math.min(first, shardFirst);
                    if (all) {
                        both = shardLast;
                    }
                }
            }
            if (first != Long.MAX_VALUE) {
                visible[nVisible++] = first - produced;
                if (both != 0) {
                    replication[nReplicated] = both - first;
                    replicated[nReplicated++] = both - produced;
                }
            }
        }
        int measured = total - warmup;
        System.out.printf(
                "freshness rate=%d/s warmup_s=%d measured_s=%d orders=%d visible=%d replicated=%d poll_ms=%d"
                        + " producer_behind_max_ms=%.1f%n",
                rate, warmupS, durationS, measured, nVisible, nReplicated, pollMs, producer.maxBehindNs / 1e6);
        printPercentiles("visible (first replica of its shard)", visible, nVisible);
        printPercentiles("replicated (both replicas of its shard)", replicated, nReplicated);
        printPercentiles("replication (both minus first)", replication, nReplicated);
        if (lag != null) {
            System.out.printf(
                    "freshness source lag (etl_source_lag_records, sampled every 500 ms while producing): max %.0f"
                            + " records on a partition; %d of %d samples at or above 10,000 (a partition 'behind')%n",
                    lag.max, lag.behindSamples, lag.samples);
        }
        if (!before.isEmpty() && !after.isEmpty()) {
            printMetrics(before, after);
        }
        System.out.flush();
        if (nReplicated < measured) {
            System.out.printf(
                    "freshness INCOMPLETE: %d of %d measured orders not on both replicas after %d s%n",
                    measured - nReplicated, measured, settleS);
            System.exit(3);
        }
        System.exit(0);
    }

    private static void printPercentiles(String what, long[] ns, int n) {
        if (n == 0) {
            System.out.printf("freshness %-42s none%n", what);
            return;
        }
        long[] sorted = Arrays.copyOf(ns, n);
        Arrays.sort(sorted);
        System.out.printf(
                "freshness %-42s p50=%5d ms p90=%5d ms p99=%5d ms p99.9=%5d ms max=%5d ms%n",
                what,
                ms(sorted, 0.50),
                ms(sorted, 0.90),
                ms(sorted, 0.99),
                ms(sorted, 0.999),
                sorted[n - 1] / 1_000_000);
    }

    private static long ms(long[] sorted, double q) {
        int i = (int) Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1);
        return sorted[Math.max(0, i)] / 1_000_000;
    }

    /**
     * The pipeline's meters over the window: per timer family (summed over its tags) the count and mean,
     * per counter the increase; the {@code _max} gauges as of the end.
     */
    private static void printMetrics(Map<String, Double> before, Map<String, Double> after) {
        for (Map.Entry<String, Double> e : after.entrySet()) {
            String name = e.getKey();
            double delta = e.getValue() - before.getOrDefault(name, 0.0);
            if (name.endsWith("_seconds_count") && delta > 0) {
                String family = name.substring(0, name.length() - "_count".length());
                double sum = after.getOrDefault(family + "_sum", 0.0) - before.getOrDefault(family + "_sum", 0.0);
                System.out.printf(
                        "freshness metric %-60s count=%.0f mean=%.1f ms max=%.1f ms%n",
                        family, delta, sum / delta * 1000, after.getOrDefault(family + "_max", Double.NaN) * 1000);
            } else if (name.endsWith("_total") && delta > 0) {
                System.out.printf("freshness metric %-60s +%.0f%n", name, delta);
            } else if (name.endsWith("_count") && !name.endsWith("_seconds_count") && delta > 0) {
                String family = name.substring(0, name.length() - "_count".length());
                double sum = after.getOrDefault(family + "_sum", 0.0) - before.getOrDefault(family + "_sum", 0.0);
                System.out.printf("freshness metric %-60s count=%.0f mean=%.1f%n", family, delta, sum / delta);
            }
        }
    }

    /** {@link #scrape}, or nothing (said on stderr) when the pipeline does not answer: the latencies still count. */
    private static Map<String, Double> scrapeOrEmpty(String url) throws InterruptedException {
        try {
            return scrape(url);
        } catch (IOException e) {
            System.err.println("scraping " + url + " failed, no meters for this run: " + e);
            return Map.of();
        }
    }

    /** {@code etl_*} samples of a Prometheus scrape, summed over their tags (the lane's, shard's, ...). */
    private static Map<String, Double> scrape(String url) throws IOException, InterruptedException {
        HttpClient client =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpResponse<String> response = client.send(
                HttpRequest.newBuilder(URI.create(url))
                        .timeout(Duration.ofSeconds(30))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        Map<String, Double> values = new TreeMap<>();
        for (String line : response.body().split("\n")) {
            if (!line.startsWith("etl_")) {
                continue;
            }
            int brace = line.indexOf('{');
            int space = line.lastIndexOf(' ');
            String name = line.substring(0, brace >= 0 ? brace : line.indexOf(' '));
            double value;
            try {
                value = Double.parseDouble(line.substring(space + 1));
            } catch (NumberFormatException e) {
                continue;
            }
            if (name.endsWith("_max")) {
                values.merge(name, value, Math::max);
            } else if (!Double.isNaN(value)) {
                values.merge(name, value, Double::sum);
            }
        }
        return values;
    }

    /**
     * Samples the pipeline's per-partition source lag every 500 ms: whether some partition was ever behind
     * (at least 10,000 records waiting, where deterministic blocks linger longer) at the measured rate.
     */
    private static final class LagSampler extends Thread {
        private final HttpClient client =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        private final URI url;
        volatile boolean stopped;
        double max;
        int samples;
        int behindSamples;

        LagSampler(String url) {
            super("freshness-lag");
            this.url = URI.create(url);
            setDaemon(true);
        }

        @Override
        public void run() {
            while (!stopped) {
                try {
                    String body = client.send(
                                    HttpRequest.newBuilder(url)
                                            .timeout(Duration.ofSeconds(5))
                                            .build(),
                                    HttpResponse.BodyHandlers.ofString())
                            .body();
                    double sampleMax = 0;
                    for (String line : body.split("\n")) {
                        if (line.startsWith("etl_source_lag_records{")) {
                            sampleMax =
                                    Math.max(sampleMax, Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)));
                        }
                    }
                    samples++;
                    max = Math.max(max, sampleMax);
                    if (sampleMax >= 10_000) {
                        behindSamples++;
                    }
                    Thread.sleep(500);
                } catch (IOException | NumberFormatException e) {
                    System.err.println("lag sample failed: " + e);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    private static void sleepUntil(long ns) {
        long left;
        while ((left = ns - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
        }
    }

    /** The open-loop producer: order {@code i} (from 1) due at {@code startNs + (i - 1) / rate}. */
    private static final class Producer extends Thread {
        final long[] sentNs;
        final long startNs;
        private final KafkaProducer<byte[], byte[]> producer;
        private final String topic;
        private final Schema schema;
        private final int schemaId;
        private final long rate;
        private final int total;
        private final int warmup;
        /** How far behind its schedule the producer sent a measured order, at most. */
        volatile long maxBehindNs;

        volatile Throwable failure;

        Producer(String bootstrap, String topic, Schema schema, int schemaId, long rate, int total, int warmup) {
            super("freshness-producer");
            Properties props = new Properties();
            props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            props.put(ProducerConfig.ACKS_CONFIG, "all");
            props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
            props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
            this.producer = new KafkaProducer<>(props);
            this.topic = topic;
            this.schema = schema;
            this.schemaId = schemaId;
            this.rate = rate;
            this.total = total;
            this.warmup = warmup;
            this.sentNs = new long[total];
            // Warm the producer's metadata and the encoder before the schedule starts.
            producer.partitionsFor(topic);
            warmEncoder(50_000);
            this.startNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
        }

        @Override
        public void run() {
            Random random = new Random(42);
            Schema lineSchema = schema.getField("lines").schema().getElementType();
            Schema statusSchema = schema.getField("status").schema();
            try (producer) {
                for (int i = 0; i < total; i++) {
                    long id = i + 1L;
                    long dueNs = startNs + i * 1_000_000_000L / rate;
                    sleepUntil(dueNs);
                    byte[] value = encode(random, id, lineSchema, statusSchema);
                    long now = System.nanoTime();
                    sentNs[i] = now;
                    if (i >= warmup && now - dueNs > maxBehindNs) {
                        maxBehindNs = now - dueNs;
                    }
                    producer.send(
                            new ProducerRecord<>(topic, Long.toString(id).getBytes(StandardCharsets.UTF_8), value));
                }
                producer.flush();
            } catch (Throwable t) {
                failure = t;
            }
        }

        /** Encodes {@code count} orders and throws them away: the encoder is compiled before the schedule starts. */
        void warmEncoder(int count) {
            Random random = new Random(7);
            Schema lineSchema = schema.getField("lines").schema().getElementType();
            Schema statusSchema = schema.getField("status").schema();
            for (int i = 0; i < count; i++) {
                encode(random, i, lineSchema, statusSchema);
            }
        }

        private byte[] encode(Random random, long id, Schema lineSchema, Schema statusSchema) {
            GenericRecord order = new GenericData.Record(schema);
            order.put("id", id);
            order.put("customer", "customer-" + random.nextInt(5_000));
            order.put("status", new GenericData.EnumSymbol(statusSchema, random.nextBoolean() ? "PAID" : "NEW"));
            int lineCount = 1 + random.nextInt(4);
            List<GenericRecord> lines = new ArrayList<>(lineCount);
            for (int l = 0; l < lineCount; l++) {
                GenericRecord line = new GenericData.Record(lineSchema);
                line.put("sku", SKUS[random.nextInt(SKUS.length)]);
                line.put("quantity", 1 + random.nextInt(9));
                line.put("price_cents", 50L + random.nextInt(10_000));
                lines.add(line);
            }
            order.put("lines", lines);
            order.put("coupon", null);
            order.put("updated_ms", System.currentTimeMillis());
            return AvroWireFormat.confluent(schemaId, schema, order);
        }
    }

    /** One replica: its shard, its URL, and when each order (by id - 1) was first seen there (0: not yet). */
    private record Replica(int shard, URI url, AtomicLongArray seenNs) {
        Replica(int shard, URI url, int total) {
            this(shard, url, new AtomicLongArray(total));
        }
    }

    /** The pollers, one thread per replica, and the watermark G that bounds what they read. */
    private static final class Watch {
        private final List<Replica> replicas;
        private final String database;
        private final int total;
        private final long pollNs;
        private final HttpClient client =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        private final List<Thread> threads = new ArrayList<>();
        /** Every order with an id up to this is on both replicas of its shard. Advanced by the pollers. */
        private long replicatedThrough;

        private volatile boolean stopped;

        Watch(List<Replica> replicas, String database, int total, long pollMs) {
            this.replicas = replicas;
            this.database = database;
            this.total = total;
            this.pollNs = TimeUnit.MILLISECONDS.toNanos(pollMs);
        }

        /** The table answers on every replica (and the client is warm). */
        void check() throws IOException, InterruptedException {
            for (Replica r : replicas) {
                query(r, 0);
            }
        }

        void start() {
            for (Replica r : replicas) {
                Thread t =
                        new Thread(() -> poll(r), "freshness-watch-" + r.url().getPort());
                t.setDaemon(true);
                t.start();
                threads.add(t);
            }
        }

        void stop() throws InterruptedException {
            stopped = true;
            for (Thread t : threads) {
                t.join(10_000);
            }
        }

        synchronized long replicatedThrough() {
            return replicatedThrough;
        }

        /** Moves the watermark over every order that is on all replicas of some shard. */
        private synchronized long advance() {
            long g = replicatedThrough;
            outer:
            while (g < total) {
                int shard = -1;
                for (Replica r : replicas) {
                    if (r.seenNs().get((int) g) != 0) {
                        shard = r.shard();
                        break;
                    }
                }
                if (shard < 0) {
                    break;
                }
                for (Replica r : replicas) {
                    if (r.shard() == shard && r.seenNs().get((int) g) == 0) {
                        break outer;
                    }
                }
                g++;
            }
            replicatedThrough = g;
            return g;
        }

        private void poll(Replica r) {
            long next = System.nanoTime();
            while (!stopped) {
                sleepUntil(next);
                next += pollNs;
                long g = advance();
                long sentNs = System.nanoTime();
                try {
                    ByteBuffer ids = query(r, g);
                    while (ids.remaining() >= 8) {
                        long id = ids.getLong();
                        if (id >= 1 && id <= total) {
                            r.seenNs().compareAndSet((int) (id - 1), 0, sentNs);
                        }
                    }
                } catch (IOException e) {
                    System.err.println("poll of " + r.url() + " failed: " + e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                if (System.nanoTime() - next > 0) {
                    next = System.nanoTime(); // a slow answer: poll again at once, do not catch up
                }
            }
        }

        private ByteBuffer query(Replica r, long above) throws IOException, InterruptedException {
            String sql = "SELECT order_id FROM " + database + ".orders WHERE order_id > " + above
                    + " AND line_no = 0 FORMAT RowBinary";
            HttpResponse<byte[]> response = client.send(
                    HttpRequest.newBuilder(r.url())
                            .timeout(Duration.ofSeconds(5))
                            .POST(HttpRequest.BodyPublishers.ofString(sql))
                            .build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            if (response.statusCode() != 200) {
                throw new IOException(r.url() + " answered " + response.statusCode() + ": "
                        + new String(response.body(), StandardCharsets.UTF_8));
            }
            return ByteBuffer.wrap(response.body()).order(ByteOrder.LITTLE_ENDIAN);
        }
    }
}
