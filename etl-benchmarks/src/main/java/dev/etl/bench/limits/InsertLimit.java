package dev.etl.bench.limits;

import dev.etl.bench.BenchArgs;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * I, the inserting side's limit: {@code --rows} rows of the sample's {@code orders} table (order_id,
 * line_no, customer, status, sku, quantity, price Decimal64(2), coupon Nullable(String), updated_ms)
 * POSTed as RowBinary, {@code --batch} rows per insert, by {@code --threads} threads, thread i writing
 * to shard {@code i % shards} (the first replica of each, as the baseline does; the insert is
 * replicated by the server as the pipeline's are). The bodies are built before the clock starts (four
 * distinct ones, reused, so memory stays bounded on 10M-order runs) and sent with
 * {@code insert_deduplicate=0}, so that a reused body is written again instead of being dropped as a
 * duplicate block. No encoding, no decoding: what the servers take at best on this box.
 *
 * <p>Prints {@code insert-limit rows=N batch=B inserts=K ms=T rows_per_s=R} and exits 0; exits 1 when
 * an insert fails.
 *
 * <pre>
 * java -cp etl-benchmarks/target/benchmarks.jar dev.etl.bench.limits.InsertLimit \
 *      --shards http://127.0.0.1:18123,http://127.0.0.1:18125 --database bench --rows 2500000 \
 *      [--batch 200000] [--threads 2]
 * </pre>
 */
public final class InsertLimit {
    private static final String USAGE =
            "usage: --shards URL1,URL2 --database DB --rows N [--batch 200000] [--threads 2]";
    private static final int BODIES = 4;

    private InsertLimit() {}

    public static void main(String[] args) throws Exception {
        // warnings only, on stderr: stdout carries the result line
        BenchArgs.defaultLogging("dev/etl/bench/limits/limits-logback.xml");
        BenchArgs a = new BenchArgs(USAGE, args);
        List<String> shards = List.of(a.get("shards").split(","));
        String database = a.get("database");
        long rows = a.getLong("rows", 0);
        int batch = (int) a.getLong("batch", 200_000);
        int threads = (int) a.getLong("threads", 2);

        byte[][] bodies = new byte[BODIES][];
        long lastSize = rows % batch;
        for (int i = 0; i < BODIES; i++) {
            bodies[i] = body(batch, i);
        }
        byte[] tail = lastSize == 0 ? null : body((int) lastSize, BODIES);
        long inserts = (rows + batch - 1) / batch;

        String query = "INSERT INTO " + database + ".orders FORMAT RowBinary";
        HttpClient client =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        AtomicLong next = new AtomicLong();
        AtomicLong written = new AtomicLong();
        List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> workers = new ArrayList<>();
        long started = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            URI uri = URI.create(shards.get(t % shards.size()) + "/?insert_deduplicate=0&query="
                    + URLEncoder.encode(query, StandardCharsets.UTF_8));
            Thread worker = new Thread(
                    () -> {
                        try {
                            for (long n = next.getAndIncrement();
                                    n < inserts && errors.isEmpty();
                                    n = next.getAndIncrement()) {
                                byte[] body = n == inserts - 1 && tail != null ? tail : bodies[(int) (n % BODIES)];
                                HttpResponse<String> response = client.send(
                                        HttpRequest.newBuilder(uri)
                                                .timeout(Duration.ofMinutes(2))
                                                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                                                .build(),
                                        HttpResponse.BodyHandlers.ofString());
                                if (response.statusCode() != 200) {
                                    throw new IllegalStateException("insert into " + uri.getHost() + ":" + uri.getPort()
                                            + " failed: HTTP " + response.statusCode() + ": " + response.body());
                                }
                                written.addAndGet(n == inserts - 1 && tail != null ? lastSize : batch);
                            }
                        } catch (Throwable e) {
                            errors.add(e);
                        }
                    },
                    "insert-limit-" + t);
            workers.add(worker);
            worker.start();
        }
        for (Thread worker : workers) {
            worker.join();
        }
        long elapsedNs = System.nanoTime() - started;
        if (!errors.isEmpty()) {
            errors.get(0).printStackTrace();
            System.exit(1);
        }
        long ms = Math.max(1, elapsedNs / 1_000_000);
        System.out.printf(
                "insert-limit rows=%d batch=%d inserts=%d threads=%d ms=%d rows_per_s=%d%n",
                written.get(), batch, inserts, threads, ms, written.get() * 1000 / ms);
    }

    /** {@code rows} RowBinary rows shaped like the sample's order lines (2-4 lines an order). */
    static byte[] body(int rows, int seed) {
        SplittableRandom random = new SplittableRandom(seed);
        ByteArrayOutputStream out = new ByteArrayOutputStream(rows * 64);
        long orderId = (long) seed << 40;
        int line = 0;
        int lines = 3;
        for (int i = 0; i < rows; i++) {
            if (line == lines) {
                orderId++;
                line = 0;
                lines = 2 + random.nextInt(3);
            }
            int64(out, orderId);
            out.write(line & 0xff);
            out.write(line >>> 8);
            string(out, "customer-" + (orderId % 100_000));
            out.write(random.nextInt(3)); // NEW, PAID, SHIPPED
            string(out, "sku-" + random.nextInt(10_000));
            int32(out, 1 + random.nextInt(9));
            int64(out, 100 + random.nextInt(100_000)); // Decimal64(2): cents
            if (random.nextInt(4) == 0) {
                out.write(0);
                string(out, "SAVE10");
            } else {
                out.write(1);
            }
            int64(out, 1_700_000_000_000L + orderId);
            line++;
        }
        return out.toByteArray();
    }

    private static void string(ByteArrayOutputStream out, String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        int n = bytes.length;
        while (n >= 0x80) { // LEB128 length
            out.write((n & 0x7f) | 0x80);
            n >>>= 7;
        }
        out.write(n);
        out.write(bytes, 0, bytes.length);
    }

    private static void int32(ByteArrayOutputStream out, int v) {
        for (int i = 0; i < 4; i++) {
            out.write(v >>> (8 * i));
        }
    }

    private static void int64(ByteArrayOutputStream out, long v) {
        for (int i = 0; i < 8; i++) {
            out.write((int) (v >>> (8 * i)));
        }
    }
}
