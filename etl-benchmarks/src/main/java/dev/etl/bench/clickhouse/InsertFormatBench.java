package dev.etl.bench.clickhouse;

import dev.etl.clickhouse.ClickHouseCapabilities;
import dev.etl.clickhouse.ClickHouseInsert;
import dev.etl.clickhouse.ClickHouseShardWriter;
import dev.etl.clickhouse.ClickHouseSink;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.ClickHouseTransport;
import dev.etl.clickhouse.InsertFormat;
import dev.etl.clickhouse.ValidationMode;
import dev.etl.sink.BatchConfig;
import dev.etl.sink.ShardWriter;
import dev.etl.test.infra.ClickHouseHttp;
import dev.etl.test.infra.ClickHouseInstance;
import dev.etl.test.infra.InfraEndpoints;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * RowBinary against Native inserts on the local ClickHouse 18.16 servers, in one run: the same sealed
 * batch of each {@link InsertBenchSchema}, written through the sink's own {@link ClickHouseShardWriter}
 * (validated against the table, client-v2 by default) into one MergeTree table per schema and format on
 * one replica, with merges stopped on those tables, formats alternating insert by insert.
 *
 * <p>Per insert it records: wall time (rows/s); the client thread's CPU time for the whole write
 * (transposition and sending); the server's CPU from its {@code system.events}
 * ({@code UserTimeMicroseconds + SystemTimeMicroseconds}, which the server adds for its query threads,
 * microsecond resolution) and from {@code /proc/<pid>/stat} of the server process (utime + stime, all
 * threads, 10 ms ticks, so only its sum over all inserts is meaningful). An insert is <em>clean</em>
 * when nothing else ran on that server meanwhile ({@code Query} advanced by exactly our insert and our
 * reading of the events, {@code MergedRows} not at all); medians are over clean inserts, and how many
 * were not is printed. Separately, per round, the transposition alone: the Native writer with a
 * transport that discards the block, timed by thread CPU.
 *
 * <pre>
 * ./mvnw -o -q -pl etl-benchmarks -am package -DskipTests
 * ETL_INFRA_DIR=... java -cp etl-benchmarks/target/benchmarks.jar dev.etl.bench.clickhouse.InsertFormatBench
 * </pre>
 *
 * System properties: {@code bench.rows} (per batch, default 100000), {@code bench.rounds} (default 12),
 * {@code bench.warmup} (default 3), {@code bench.schemas} (default {@code ORDERS,NUMERIC,TEXT}),
 * {@code bench.transport} ({@code CLIENT_V2} or {@code HTTP}), {@code bench.shard}/{@code bench.replica}
 * (default 1/1), {@code bench.keep} (keep the database).
 */
public final class InsertFormatBench {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final Map<String, String> LOW_CARDINALITY = Map.of("allow_experimental_low_cardinality_type", "1");

    /** What one insert cost. */
    record Sample(long wallNs, long clientCpuNs, long serverCpuUs, long procTicks, boolean clean) {}

    private final String url;
    private final long pid;
    private final ClickHouseHttp http = new ClickHouseHttp(Duration.ofSeconds(2), Duration.ofMinutes(2));

    private InsertFormatBench(String url, long pid) {
        this.url = url;
        this.pid = pid;
    }

    public static void main(String[] args) throws Exception {
        quietLogging();
        int rows = Integer.getInteger("bench.rows", 100_000);
        int rounds = Integer.getInteger("bench.rounds", 12);
        int warmup = Integer.getInteger("bench.warmup", 3);
        int shard = Integer.getInteger("bench.shard", 1);
        int replica = Integer.getInteger("bench.replica", 1);
        ClickHouseSinkConfig.Transport transport =
                ClickHouseSinkConfig.Transport.valueOf(System.getProperty("bench.transport", "CLIENT_V2"));
        List<InsertBenchSchema> schemas = new ArrayList<>();
        for (String s :
                System.getProperty("bench.schemas", "ORDERS,NUMERIC,TEXT").split(",")) {
            schemas.add(InsertBenchSchema.valueOf(s.trim().toUpperCase(Locale.ROOT)));
        }
        String infraDir = System.getProperty("etl.infra.dir", System.getenv().getOrDefault("ETL_INFRA_DIR", ".infra"));
        InfraEndpoints endpoints = InfraEndpoints.load(Path.of(infraDir, InfraEndpoints.FILE_NAME));
        ClickHouseInstance server = ClickHouseInstance.of(endpoints, shard, replica);
        InsertFormatBench bench = new InsertFormatBench(server.url(), server.pid());
        String db = "bench_native_" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd_HHmmss"));
        System.out.printf(
                "InsertFormatBench: %s (%s, pid %d), %d rows per batch, %d warm-up + %d rounds, transport %s,"
                        + " load %s%n",
                server.name(), server.url(), server.pid(), rows, warmup, rounds, transport, loadAverage());
        bench.http.execute(bench.url, "CREATE DATABASE " + db);
        try {
            for (InsertBenchSchema schema : schemas) {
                bench.run(db, schema, rows, rounds, warmup, transport);
            }
        } finally {
            if (!Boolean.getBoolean("bench.keep")) {
                bench.http.execute(bench.url, "DROP DATABASE IF EXISTS " + db);
            }
        }
        System.out.printf("load at the end: %s%n", loadAverage());
    }

    private void run(
            String db,
            InsertBenchSchema schema,
            int rows,
            int rounds,
            int warmup,
            ClickHouseSinkConfig.Transport transport)
            throws IOException {
        byte[] bytes = schema.rowBinary(schema.rows(1, rows, 16_003));
        BenchBatch batch = BenchBatch.of(bytes, rows);
        Map<InsertFormat, ShardWriter> writers = new HashMap<>();
        for (InsertFormat format : InsertFormat.values()) {
            String table =
                    schema.name().toLowerCase(Locale.ROOT) + "_" + format.name().toLowerCase(Locale.ROOT);
            http.execute(
                    url,
                    "CREATE TABLE " + db + "." + table + " " + schema.columns() + " ENGINE = MergeTree ORDER BY ("
                            + schema.orderBy() + ")",
                    LOW_CARDINALITY);
            http.execute(url, "SYSTEM STOP MERGES " + db + "." + table);
            ClickHouseSinkConfig config = ClickHouseSinkConfig.builder()
                    .table(db, table)
                    .shard(url)
                    .format(format)
                    .transport(transport)
                    .validation(ValidationMode.FULL)
                    .socketTimeout(Duration.ofMinutes(2))
                    .batch(new BatchConfig(rows, 256L << 20, Duration.ofSeconds(1)))
                    .build();
            writers.put(
                    format,
                    ClickHouseSink.definition("bench", "bench", config, schema.encoder(), new SimpleMeterRegistry())
                            .writers()
                            .apply(0));
        }
        ClickHouseShardWriter transposeOnly = discardingWriter(schema);
        Map<InsertFormat, List<Sample>> samples = new HashMap<>();
        List<Long> transposeCpuNs = new ArrayList<>();
        for (int round = -warmup; round < rounds; round++) {
            InsertFormat[] order = (round & 1) == 0
                    ? new InsertFormat[] {InsertFormat.ROW_BINARY, InsertFormat.NATIVE}
                    : new InsertFormat[] {InsertFormat.NATIVE, InsertFormat.ROW_BINARY};
            for (InsertFormat format : order) {
                Sample s = insert(writers.get(format), batch);
                if (round >= 0) {
                    samples.computeIfAbsent(format, k -> new ArrayList<>()).add(s);
                }
            }
            long c0 = THREADS.getCurrentThreadCpuTime();
            transposeOnly.write(batch);
            if (round >= 0) {
                transposeCpuNs.add(THREADS.getCurrentThreadCpuTime() - c0);
            }
        }
        for (ShardWriter w : writers.values()) {
            w.close();
        }
        report(schema, rows, bytes.length, samples, transposeCpuNs);
    }

    private Sample insert(ShardWriter writer, BenchBatch batch) throws IOException {
        long[] e0 = events();
        long p0 = procTicks();
        long c0 = THREADS.getCurrentThreadCpuTime();
        long t0 = System.nanoTime();
        writer.write(batch);
        long t1 = System.nanoTime();
        long c1 = THREADS.getCurrentThreadCpuTime();
        long p1 = procTicks();
        long[] e1 = events();
        // clean: the server ran our insert and our second events query, and no merge
        boolean clean = e1[2] - e0[2] == 2 && e1[3] == e0[3];
        return new Sample(t1 - t0, c1 - c0, (e1[0] - e0[0]) + (e1[1] - e0[1]), p1 - p0, clean);
    }

    /** {@code UserTimeMicroseconds, SystemTimeMicroseconds, Query, MergedRows} of the server. */
    private long[] events() {
        String body = http.execute(
                url,
                "SELECT event, value FROM system.events WHERE event IN ('UserTimeMicroseconds', "
                        + "'SystemTimeMicroseconds', 'Query', 'MergedRows') FORMAT TabSeparated");
        long[] v = new long[4];
        for (String line : body.split("\n")) {
            String[] kv = line.split("\t");
            if (kv.length != 2) {
                continue;
            }
            long value = Long.parseLong(kv[1].trim());
            switch (kv[0]) {
                case "UserTimeMicroseconds" -> v[0] = value;
                case "SystemTimeMicroseconds" -> v[1] = value;
                case "Query" -> v[2] = value;
                case "MergedRows" -> v[3] = value;
                default -> {}
            }
        }
        return v;
    }

    /** utime + stime of the server process, in clock ticks. */
    private long procTicks() throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]); // fields 14 and 15 of stat(5)
    }

    private static ClickHouseShardWriter discardingWriter(InsertBenchSchema schema) {
        ClickHouseTransport discard = new ClickHouseTransport() {
            @Override
            public long insert(URI replica, ClickHouseInsert insert, byte[] body, int length) {
                return WRITTEN_UNKNOWN;
            }

            @Override
            public String query(URI replica, String sql) {
                throw new UnsupportedOperationException(sql);
            }
        };
        ClickHouseSinkConfig config = ClickHouseSinkConfig.builder()
                .table("bench", "t")
                .shard("http://127.0.0.1:1")
                .format(InsertFormat.NATIVE)
                .batch(new BatchConfig(1_000_000, 256L << 20, Duration.ofSeconds(1)))
                .build();
        return new ClickHouseShardWriter(
                config,
                schema.encoder().columns(),
                0,
                "bench",
                "bench",
                ClickHouseCapabilities.legacy("18.16.1"),
                discard,
                new SimpleMeterRegistry(),
                System::nanoTime,
                () -> {});
    }

    private static void report(
            InsertBenchSchema schema,
            int rows,
            int bytes,
            Map<InsertFormat, List<Sample>> samples,
            List<Long> transposeCpuNs) {
        List<Sample> rb = samples.get(InsertFormat.ROW_BINARY);
        List<Sample> nat = samples.get(InsertFormat.NATIVE);
        List<Sample> rbClean = rb.stream().filter(Sample::clean).toList();
        List<Sample> natClean = nat.stream().filter(Sample::clean).toList();
        double rbWall = median(rbClean.isEmpty() ? rb : rbClean, Sample::wallNs);
        double natWall = median(natClean.isEmpty() ? nat : natClean, Sample::wallNs);
        double rbClient = median(rb, Sample::clientCpuNs) / rows;
        double natClient = median(nat, Sample::clientCpuNs) / rows;
        double rbServer = median(rbClean.isEmpty() ? rb : rbClean, Sample::serverCpuUs) * 1000.0 / rows;
        double natServer = median(natClean.isEmpty() ? nat : natClean, Sample::serverCpuUs) * 1000.0 / rows;
        long hz = 100; // USER_HZ on Linux
        double rbProc = rb.stream().mapToLong(Sample::procTicks).sum() * (1e9 / hz) / ((double) rows * rb.size());
        double natProc = nat.stream().mapToLong(Sample::procTicks).sum() * (1e9 / hz) / ((double) rows * nat.size());
        double transpose = median(
                        transposeCpuNs.stream()
                                .map(v -> new Sample(0, v, 0, 0, true))
                                .toList(),
                        Sample::clientCpuNs)
                / rows;
        System.out.printf(
                "%n%s: %d rows, %d bytes of RowBinary (%.1f B/row); clean inserts RowBinary %d/%d, Native %d/%d%n",
                schema, rows, bytes, (double) bytes / rows, rbClean.size(), rb.size(), natClean.size(), nat.size());
        System.out.println("| measure | RowBinary | Native | Native / RowBinary |");
        System.out.println("|---|---|---|---|");
        System.out.printf(
                "| rows/s (median insert wall time) | %.2fM | %.2fM | %.2f |%n",
                rows / rbWall * 1e3, rows / natWall * 1e3, rbWall / natWall);
        System.out.printf(
                "| server CPU, system.events (ns/row) | %.1f | %.1f | %.2f |%n",
                rbServer, natServer, natServer / rbServer);
        System.out.printf(
                "| server CPU, /proc all threads (ns/row, sum) | %.1f | %.1f | %.2f |%n",
                rbProc, natProc, natProc / rbProc);
        System.out.printf(
                "| client CPU of the write, thread (ns/row) | %.1f | %.1f | %.2f |%n",
                rbClient, natClient, natClient / rbClient);
        System.out.printf("| of which transposition, thread CPU (ns/row) | — | %.1f | — |%n", transpose);
        System.out.printf(
                "| client + server CPU (ns/row) | %.1f | %.1f | %.2f |%n",
                rbClient + rbServer, natClient + natServer, (natClient + natServer) / (rbClient + rbServer));
        System.out.printf(
                "raw (wall ms / client cpu ms / server cpu ms / clean): RowBinary %s%n  Native %s%n",
                describe(rb), describe(nat));
    }

    private static String describe(List<Sample> samples) {
        StringBuilder sb = new StringBuilder();
        for (Sample s : samples) {
            sb.append(String.format(
                    Locale.ROOT,
                    "%.0f/%.0f/%.0f%s ",
                    s.wallNs() / 1e6,
                    s.clientCpuNs() / 1e6,
                    s.serverCpuUs() / 1e3,
                    s.clean() ? "" : "*"));
        }
        return sb.toString().trim();
    }

    private static double median(List<Sample> samples, java.util.function.ToLongFunction<Sample> f) {
        long[] v = samples.stream().mapToLong(f).toArray();
        Arrays.sort(v);
        return v.length == 0
                ? Double.NaN
                : v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2.0;
    }

    /** client-v2's DEBUG wire log would cost more CPU than the inserts; the validator's MergeTree warnings are expected. */
    private static void quietLogging() {
        ch.qos.logback.classic.Logger root =
                (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.setLevel(ch.qos.logback.classic.Level.WARN);
        ((ch.qos.logback.classic.Logger)
                        org.slf4j.LoggerFactory.getLogger("dev.etl.clickhouse.ClickHouseSchemaValidator"))
                .setLevel(ch.qos.logback.classic.Level.ERROR);
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "unknown";
        }
    }
}
