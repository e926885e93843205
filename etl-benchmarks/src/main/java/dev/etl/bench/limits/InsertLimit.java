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
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * I, the inserting side's limit: {@code --rows} rows of the sample's {@code orders} table (order_id,
 * line_no, customer, status, sku, quantity, price Decimal64(2), coupon Nullable(String), updated_ms)
 * POSTed as RowBinary, {@code --batch} rows per insert, by {@code --threads} threads, thread i writing
 * to shard {@code i % shards} (the first replica of each, as the baseline does; the insert is
 * replicated by the server as the pipeline's are). No encoding, no decoding, no Kafka: what the
 * servers take at best on this box for the rows a run writes.
 *
 * <p>{@code --keys distinct} (the default) writes what a pipeline writes: every row a new
 * (order_id, line_no), shaped like {@code OrderLoadGenerator}'s order lines (1-4 lines an order, 5,000
 * customers, 8 SKUs, quantities 1-9, prices 0.50-100.49, a coupon on a quarter of the even orders),
 * order ids ascending within a body, with the server's default settings ({@code insert_deduplicate}
 * on for a Replicated table, as the pipeline's inserts). Each thread builds one body of {@code --batch}
 * rows before the clock starts and, before each POST, moves its order ids (and {@code updated_ms},
 * which follows the id) past every id sent so far, in place: about a millisecond per 200,000 rows,
 * inside the clock. At the end the shards must hold exactly the rows sent (a dropped or duplicated
 * block fails the run).
 *
 * <p>{@code --keys reused}, the definition before 2026-12-04: four bodies reused, sent with
 * {@code insert_deduplicate=0} so a repeated body is written again. Their rows repeat the same keys,
 * and the table's ReplacingMergeTree merges collapse them, so the servers' merges do a fraction of the
 * work that a run's distinct rows cost: kept only to compare the two definitions.
 *
 * <p>{@code --table order_headers} writes rows of the sample's {@code order_headers} table instead (order_id,
 * customer, status, line_count UInt16, quantity UInt32, total Decimal64(2), coupon, updated_ms): one row per
 * order, the sums of the same 1-4 lines, for the paths {@code scripts/bench.sh} compares with
 * {@code BENCH_PATHS=1}, whose runs write that table.
 *
 * <p>Prints {@code insert-limit rows=N batch=B inserts=K ms=T rows_per_s=R keys=K} and exits 0; exits 1
 * when an insert fails or the shards do not hold what was sent.
 *
 * <pre>
 * java -cp etl-benchmarks/target/benchmarks.jar dev.etl.bench.limits.InsertLimit \
 *      --shards http://127.0.0.1:18123,http://127.0.0.1:18125 --database bench --rows 2500000 \
 *      (or --shards 'http://127.0.0.1:18123|http://127.0.0.1:18124,...': POSTs round-robin over a shard's replicas)
 *      [--batch 200000] [--threads 2] [--keys distinct|interleaved|reused] [--table orders|order_headers]
 * </pre>
 */
public final class InsertLimit {
    private static final String USAGE =
            "usage: --shards URL1,URL2 --database DB --rows N [--batch 200000] [--threads 2]"
                    + " [--keys distinct|interleaved|reused] [--table orders|order_headers]";
    private static final int REUSED_BODIES = 4;
    /** {@code --keys interleaved}: POSTs that share an id range, as many as the bench topic's partitions. */
    private static final int INTERLEAVE = 8;

    private static final String[] SKUS = {"apple", "pear", "plum", "kiwi", "fig", "lime", "date", "yuzu"};
    private static final long UPDATED_BASE = 1_700_000_000_000L;

    private InsertLimit() {}

    public static void main(String[] args) throws Exception {
        // warnings only, on stderr: stdout carries the result line
        BenchArgs.defaultLogging("dev/etl/bench/limits/limits-logback.xml");
        BenchArgs a = new BenchArgs(USAGE, args);
        // Per shard its replicas' URLs, '|'-separated: a thread's POSTs go round-robin over them (as the
        // sink spreads its batches); a shard given one URL gets every POST on that replica.
        List<List<String>> shards = new ArrayList<>();
        for (String shard : a.get("shards").split(",")) {
            shards.add(List.of(shard.split("\\|")));
        }
        String database = a.get("database");
        long rows = a.getLong("rows", 0);
        int batch = (int) a.getLong("batch", 200_000);
        int threads = (int) a.getLong("threads", 2);
        String keys = a.get("keys", "distinct");
        if (!keys.equals("distinct") && !keys.equals("reused") && !keys.equals("interleaved")) {
            throw new IllegalArgumentException("--keys must be distinct, interleaved or reused, got '" + keys + "'");
        }
        String table = a.get("table", "orders");
        if (!table.equals("orders") && !table.equals("order_headers")) {
            throw new IllegalArgumentException("--table must be orders or order_headers, got '" + table + "'");
        }
        boolean headers = table.equals("order_headers");
        boolean distinct = !keys.equals("reused");
        boolean interleaved = keys.equals("interleaved");
        long inserts = (rows + batch - 1) / batch;
        int lastSize = (int) (rows - (inserts - 1) * batch);

        // Built before the clock starts.
        Body[] perThread = new Body[threads];
        byte[][] reused = new byte[REUSED_BODIES][];
        if (distinct) {
            for (int t = 0; t < threads; t++) {
                perThread[t] = headers ? Body.orderHeaders(batch) : Body.orderLines(batch);
            }
        } else {
            for (int i = 0; i < REUSED_BODIES; i++) {
                reused[i] = (headers ? Body.orderHeaders(batch) : Body.orderLines(batch)).shifted((long) i << 40);
            }
        }
        byte[] reusedTail = distinct
                ? null
                : (headers ? Body.orderHeaders(lastSize) : Body.orderLines(lastSize))
                        .shifted((long) REUSED_BODIES << 40);
        long ordersPerBody = distinct ? perThread[0].orders : 0;

        String query = "INSERT INTO " + database + "." + table + " FORMAT RowBinary";
        HttpClient client =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        AtomicLong next = new AtomicLong();
        AtomicLong written = new AtomicLong();
        List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
        List<Thread> workers = new ArrayList<>();
        long started = System.nanoTime();
        AtomicLong[] writtenPerShard = new AtomicLong[shards.size()];
        for (int i = 0; i < writtenPerShard.length; i++) {
            writtenPerShard[i] = new AtomicLong();
        }
        for (int t = 0; t < threads; t++) {
            Body own = perThread[t];
            int shard = t % shards.size();
            List<URI> replicas = new ArrayList<>();
            for (String replica : shards.get(shard)) {
                replicas.add(URI.create(replica + "/?" + (distinct ? "" : "insert_deduplicate=0&") + "query="
                        + URLEncoder.encode(query, StandardCharsets.UTF_8)));
            }
            Thread worker = new Thread(
                    () -> {
                        try {
                            int posts = 0;
                            for (long n = next.getAndIncrement();
                                    n < inserts && errors.isEmpty();
                                    n = next.getAndIncrement()) {
                                int size = n == inserts - 1 ? lastSize : batch;
                                HttpRequest.BodyPublisher publisher;
                                if (distinct) {
                                    // POST n: order ids n * ordersPerBody + 1 ... (every POST its own range)
                                    if (interleaved) {
                                        // POSTs 8g .. 8g+7 share one id range, each every 8th id of it
                                        // (residue n % 8), as the blocks of 8 partitions do
                                        own.moveInPlace((n / INTERLEAVE) * ordersPerBody * INTERLEAVE, INTERLEAVE, (int)
                                                (n % INTERLEAVE));
                                    } else {
                                        own.moveInPlace(n * ordersPerBody, 1, 0);
                                    }
                                    publisher = HttpRequest.BodyPublishers.ofByteArray(own.bytes, 0, own.end(size));
                                } else {
                                    publisher = HttpRequest.BodyPublishers.ofByteArray(
                                            n == inserts - 1 ? reusedTail : reused[(int) (n % REUSED_BODIES)]);
                                }
                                URI uri = replicas.get(posts++ % replicas.size());
                                HttpResponse<String> response = client.send(
                                        HttpRequest.newBuilder(uri)
                                                .timeout(Duration.ofMinutes(2))
                                                .POST(publisher)
                                                .build(),
                                        HttpResponse.BodyHandlers.ofString());
                                if (response.statusCode() != 200) {
                                    throw new IllegalStateException("insert into " + uri.getHost() + ":" + uri.getPort()
                                            + " failed: HTTP " + response.statusCode() + ": " + response.body());
                                }
                                written.addAndGet(size);
                                writtenPerShard[shard].addAndGet(size);
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
        if (distinct) {
            // Per shard, one of its replicas must hold every row sent to it (replication may take a
            // moment when the POSTs went to several replicas): after the clock, bounded.
            for (int i = 0; i < shards.size(); i++) {
                long held = 0;
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (held != writtenPerShard[i].get() && System.nanoTime() < deadline) {
                    held = 0;
                    for (String replica : shards.get(i)) {
                        held = Math.max(
                                held,
                                Long.parseLong(query(client, replica, "SELECT count() FROM " + database + "." + table)
                                        .trim()));
                    }
                    if (held != writtenPerShard[i].get()) {
                        Thread.sleep(200);
                    }
                }
                if (held != writtenPerShard[i].get()) {
                    System.err.println("insert-limit: shard " + (i + 1) + " holds " + held + " rows, "
                            + writtenPerShard[i].get() + " were sent (a block dropped as a duplicate or lost)");
                    System.exit(1);
                }
            }
        }
        long ms = Math.max(1, elapsedNs / 1_000_000);
        System.out.printf(
                "insert-limit rows=%d batch=%d inserts=%d threads=%d ms=%d rows_per_s=%d keys=%s%n",
                written.get(), batch, inserts, threads, ms, written.get() * 1000 / ms, keys);
    }

    private static String query(HttpClient client, String url, String sql) throws Exception {
        HttpResponse<String> response = client.send(
                HttpRequest.newBuilder(URI.create(url + "/"))
                        .timeout(Duration.ofSeconds(30))
                        .POST(HttpRequest.BodyPublishers.ofString(sql))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException(
                    sql + " on " + url + ": HTTP " + response.statusCode() + ": " + response.body());
        }
        return response.body();
    }

    /**
     * RowBinary order lines with the positions of each row's order id and {@code updated_ms}, so the
     * body can be moved to another id range in place. Ids start at 1 and ascend.
     */
    static final class Body {
        final byte[] bytes;
        /** Per row: where its order_id starts; its updated_ms starts at updatedAt[row]. */
        final int[] idAt;

        final int[] updatedAt;
        final int[] rowEnd;
        final long[] ids;
        /** Distinct orders in the body (its largest id). */
        final long orders;

        private Body(byte[] bytes, int[] idAt, int[] updatedAt, int[] rowEnd, long[] ids) {
            this.bytes = bytes;
            this.idAt = idAt;
            this.updatedAt = updatedAt;
            this.rowEnd = rowEnd;
            this.ids = ids;
            this.orders = ids.length == 0 ? 0 : ids[ids.length - 1];
        }

        /** {@code rows} rows shaped like the generator's order lines of orders 1, 2, ... (none cancelled). */
        static Body orderLines(int rows) {
            SplittableRandom random = new SplittableRandom(42);
            ByteArrayOutputStream out = new ByteArrayOutputStream(rows * 48);
            int[] idAt = new int[rows];
            int[] updatedAt = new int[rows];
            int[] rowEnd = new int[rows];
            long[] ids = new long[rows];
            long orderId = 0;
            int line = 0;
            int lines = 0;
            String customer = null;
            int status = 0;
            boolean coupon = false;
            for (int i = 0; i < rows; i++) {
                if (line == lines) {
                    orderId++;
                    line = 0;
                    lines = 1 + random.nextInt(4);
                    customer = "customer-" + random.nextInt(5_000);
                    status = random.nextBoolean() ? 1 : 0; // PAID or NEW
                    coupon = (orderId & 1) == 0 && random.nextInt(4) == 0;
                }
                ids[i] = orderId;
                idAt[i] = out.size();
                int64(out, orderId);
                out.write(line & 0xff);
                out.write(line >>> 8);
                string(out, customer);
                out.write(status);
                string(out, SKUS[random.nextInt(SKUS.length)]);
                int32(out, 1 + random.nextInt(9));
                int64(out, 50 + random.nextInt(10_000)); // Decimal64(2): cents
                rowEnd[i] = couponAndUpdated(out, coupon, orderId, updatedAt, i);
                line++;
            }
            return new Body(out.toByteArray(), idAt, updatedAt, rowEnd, ids);
        }

        /**
         * {@code rows} rows of {@code order_headers} for orders 1, 2, ... (none cancelled): each the header of an
         * order drawn as {@link #orderLines} draws one (1-4 lines, quantities 1-9, prices 0.50-100.49), its
         * lines counted and summed.
         */
        static Body orderHeaders(int rows) {
            SplittableRandom random = new SplittableRandom(42);
            ByteArrayOutputStream out = new ByteArrayOutputStream(rows * 56);
            int[] idAt = new int[rows];
            int[] updatedAt = new int[rows];
            int[] rowEnd = new int[rows];
            long[] ids = new long[rows];
            for (int i = 0; i < rows; i++) {
                long orderId = i + 1;
                int lines = 1 + random.nextInt(4);
                String customer = "customer-" + random.nextInt(5_000);
                int status = random.nextBoolean() ? 1 : 0; // PAID or NEW
                boolean coupon = (orderId & 1) == 0 && random.nextInt(4) == 0;
                long quantity = 0;
                long totalCents = 0;
                for (int l = 0; l < lines; l++) {
                    int q = 1 + random.nextInt(9);
                    quantity += q;
                    totalCents += q * (50L + random.nextInt(10_000));
                }
                ids[i] = orderId;
                idAt[i] = out.size();
                int64(out, orderId);
                string(out, customer);
                out.write(status);
                out.write(lines & 0xff); // UInt16
                out.write(lines >>> 8);
                int32(out, (int) quantity);
                int64(out, totalCents); // Decimal64(2): cents
                rowEnd[i] = couponAndUpdated(out, coupon, orderId, updatedAt, i);
            }
            return new Body(out.toByteArray(), idAt, updatedAt, rowEnd, ids);
        }

        /**
         * The last two columns of both tables' rows, {@code coupon Nullable(String)} and {@code updated_ms}
         * (recorded in {@code updatedAt[row]}); returns where the row ends.
         */
        private static int couponAndUpdated(
                ByteArrayOutputStream out, boolean coupon, long orderId, int[] updatedAt, int row) {
            if (coupon) {
                out.write(0);
                string(out, "SAVE10");
            } else {
                out.write(1);
            }
            updatedAt[row] = out.size();
            int64(out, UPDATED_BASE + orderId);
            return out.size();
        }

        /** Byte length of the first {@code rows} rows. */
        int end(int rows) {
            return rows == 0 ? 0 : rowEnd[rows - 1];
        }

        /**
         * Moves every row to order id {@code base + (ids[row] - 1) * stride + residue + 1} (and its
         * {@code updated_ms} with it), in place: stride 1 and residue 0 shift the body by {@code base}.
         */
        void moveInPlace(long base, int stride, int residue) {
            for (int i = 0; i < ids.length; i++) {
                long id = base + (ids[i] - 1) * stride + residue + 1;
                putLong(bytes, idAt[i], id);
                putLong(bytes, updatedAt[i], UPDATED_BASE + id);
            }
        }

        /** A copy moved by {@code shift} (for the reused bodies). */
        byte[] shifted(long shift) {
            moveInPlace(shift, 1, 0);
            return bytes.clone();
        }

        private static void putLong(byte[] b, int at, long v) {
            for (int i = 0; i < 8; i++) {
                b[at + i] = (byte) (v >>> (8 * i));
            }
        }
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
