package dev.etl.bench.e2e;

import dev.etl.bench.BenchArgs;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The clock of one {@code scripts/bench.sh} run: samples {@code SELECT count()} of the run's table on
 * every replica until the shards hold the expected rows, with one JVM and kept-alive connections for
 * the whole run. A shell loop forking {@code curl} for each replica every 0.2 s cost about a tenth of a
 * core on these two-core machines, CPU the pipeline under test lost and the limits C and I did not.
 *
 * <p>Started before the pipeline, it prints {@code ready} once its client is warm, then waits for
 * {@code --start-file} to hold {@code <start epoch ms> <pipeline pid>} (written by the script right
 * after it launched the pipeline), and from then on samples every {@code --poll-ms}. Per shard the
 * replica with more rows counts (the etl sink spreads its batches over both replicas, so a shard is
 * complete once one replica holds all of its rows). Prints one line
 * {@code watch first_ms=F rows_at_first=R last_ms=L} (times from the pipeline's start) and exits 0;
 * exits 2 when the pipeline process ended first, 3 at {@code --timeout-s}, each with a line saying so.
 *
 * <pre>
 * java -cp etl-benchmarks/target/benchmarks.jar dev.etl.bench.e2e.RowCountWatch \
 *      --shards 'http://127.0.0.1:18123|http://127.0.0.1:18124,http://127.0.0.1:18125|http://127.0.0.1:18126' \
 *      --database bench_x --expected 22509193 --start-file /tmp/start --poll-ms 200 --timeout-s 900
 * </pre>
 *
 * <p>{@code --table} names the table (default {@code orders}; {@code order_headers} for the paths of
 * {@code BENCH_PATHS=1}).
 */
public final class RowCountWatch {
    private static final String USAGE = "usage: --shards 'R1|R2,R3|R4' --database DB --expected ROWS --start-file F"
            + " [--table orders] [--poll-ms 200] [--timeout-s 240]";

    private RowCountWatch() {}

    public static void main(String[] args) throws Exception {
        BenchArgs.defaultLogging("dev/etl/bench/limits/limits-logback.xml");
        BenchArgs a = new BenchArgs(USAGE, args);
        List<List<URI>> shards = new ArrayList<>();
        String query = "SELECT count() FROM " + a.get("database") + "." + a.get("table", "orders");
        for (String shard : a.get("shards").split(",")) {
            List<URI> replicas = new ArrayList<>();
            for (String replica : shard.split("\\|")) {
                replicas.add(URI.create(replica + "/"));
            }
            shards.add(replicas);
        }
        long expected = a.getLong("expected", -1);
        Path startFile = Path.of(a.get("start-file"));
        long pollMs = a.getLong("poll-ms", 200);
        long timeoutMs = a.getLong("timeout-s", 240) * 1000;
        HttpClient client =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

        // Warm the client (class loading, connections) before the pipeline starts; the table exists.
        if (rows(client, shards, query) < 0) {
            System.out.println("watch failed: the replicas do not answer " + query);
            System.exit(1);
        }
        System.out.println("ready");
        System.out.flush();

        long waitUntil = System.currentTimeMillis() + 120_000;
        String start = null;
        while (start == null) {
            if (Files.exists(startFile)) {
                String content =
                        Files.readString(startFile, StandardCharsets.UTF_8).trim();
                if (content.split("\\s+").length == 2) {
                    start = content;
                }
            }
            if (start == null) {
                if (System.currentTimeMillis() > waitUntil) {
                    System.out.println("watch failed: no start in " + startFile + " after 120 s");
                    System.exit(1);
                }
                Thread.sleep(5);
            }
        }
        long startMs = Long.parseLong(start.split("\\s+")[0]);
        Optional<ProcessHandle> pipeline = ProcessHandle.of(Long.parseLong(start.split("\\s+")[1]));

        long firstMs = -1;
        long rowsAtFirst = 0;
        while (true) {
            Thread.sleep(pollMs);
            if (pipeline.isEmpty() || !pipeline.get().isAlive()) {
                System.out.println("watch pipeline-exited");
                System.exit(2);
            }
            long rows = rows(client, shards, query);
            long now = System.currentTimeMillis() - startMs;
            if (rows > 0 && firstMs < 0) {
                firstMs = now;
                rowsAtFirst = rows;
            }
            if (rows >= expected) {
                System.out.printf("watch first_ms=%d rows_at_first=%d last_ms=%d%n", firstMs, rowsAtFirst, now);
                return;
            }
            if (now >= timeoutMs) {
                System.out.println("watch timeout rows=" + rows);
                System.exit(3);
            }
        }
    }

    /** Rows per shard (the larger count of its replicas), summed; -1 if a replica did not answer. */
    private static long rows(HttpClient client, List<List<URI>> shards, String query) throws InterruptedException {
        long sum = 0;
        for (List<URI> replicas : shards) {
            long max = 0;
            for (URI replica : replicas) {
                try {
                    HttpResponse<String> response = client.send(
                            HttpRequest.newBuilder(replica)
                                    .timeout(Duration.ofSeconds(2))
                                    .POST(HttpRequest.BodyPublishers.ofString(query))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
                    if (response.statusCode() != 200) {
                        return -1;
                    }
                    max = Math.max(max, Long.parseLong(response.body().trim()));
                } catch (IOException | NumberFormatException e) {
                    return -1;
                }
            }
            sum += max;
        }
        return sum;
    }
}
