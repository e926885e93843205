package dev.etl.it.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.deser.Deserializer;
import dev.etl.internal.record.MutableRecordMeta;
import dev.etl.ops.Chains;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.sink.ChunkConfig;
import dev.etl.sink.Router;
import dev.etl.sink.SinkDefinition;
import dev.etl.test.infra.ClickHouseHttp;
import dev.etl.test.infra.ClickHouseInstance;
import dev.etl.test.infra.ClickHouseTestDatabase;
import dev.etl.test.infra.InfraEndpoints;
import dev.etl.test.memory.MemorySource;
import dev.etl.test.memory.MemorySourceHandle;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Shared plumbing of the ClickHouse fault-injection ITs: rows are 8-byte little-endian ids encoded as
 * {@code (id UInt64, p Int32)}; the rig pushes them to the memory source, keeps the expected
 * {@code count / uniqExact / sum} per shard, and reads it back from a replica.
 */
final class FaultRig {
    static final int PARTITIONS = 8;
    /** Reads in the fault ITs: short, so a frozen server fails a check instead of hanging the test. */
    static final ClickHouseHttp HTTP = new ClickHouseHttp(Duration.ofSeconds(1), Duration.ofSeconds(10));

    static long id(byte[] value) {
        return ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN).getLong(0);
    }

    static byte[] value(long id) {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(id).array();
    }

    static final RowBinaryEncoder<byte[]> ENCODER = RowBinaryEncoder.<byte[]>builder()
            .uint64("id", FaultRig::id)
            .int32("p", v -> (int) Long.remainderUnsigned(id(v), PARTITIONS))
            .build();

    final ClickHouseTestDatabase db;
    final InfraEndpoints infra;
    final String table;
    final Router<byte[]> router;
    final MemorySource source = MemorySource.create();
    final MemorySourceHandle handle = source.handle();
    final long[] count = new long[2];
    final long[] sum = new long[2];
    final long[] end = new long[PARTITIONS];
    private long nextId = 1;

    FaultRig(ClickHouseTestDatabase db, String table, Router<byte[]> router) {
        this.db = db;
        this.infra = db.endpoints();
        this.table = table;
        this.router = router;
        db.execute("CREATE TABLE " + db.table(table) + " ON CLUSTER " + db.cluster()
                + " (id UInt64, p Int32) ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/" + db.name() + "/"
                + table + "', '{replica}') ORDER BY id");
    }

    /** A sink config on this rig's table with every shard's replicas from the endpoints. */
    ClickHouseSinkConfig.Builder sinkConfig() {
        ClickHouseSinkConfig.Builder cfg = ClickHouseSinkConfig.builder().table(db.name(), table);
        for (InfraEndpoints.ClickHouseShard shard : infra.clickhouseShards()) {
            cfg.shard(shard.replicaUrls().toArray(String[]::new));
        }
        return cfg;
    }

    PipelineRuntime pipeline(PipelineConfig config, SinkDefinition sink, MeterRegistry registry, ChunkConfig chunks) {
        return Pipeline.builder(config)
                .meterRegistry(registry)
                .source(source)
                .sink(sink.toBuilder().chunks(chunks).build())
                .chains(ctx -> Chains.from(ctx, Deserializer.bytes()).sink(ENCODER, router))
                .build();
    }

    /** Pushes {@code rows} new ids spread over {@code partitions} (round-robin); returns nothing, tracks the expectation. */
    void push(int rows, int... partitions) {
        for (int i = 0; i < rows; i++) {
            long id = nextId++;
            int partition = partitions[i % partitions.length];
            byte[] v = value(id);
            push(partition, v);
        }
    }

    private void push(int partition, byte[] v) {
        long offset = handle.push(partition, null, v);
        end[partition] = offset + 1;
        int shard = shardOf(v, partition);
        count[shard]++;
        sum[shard] += id(v);
    }

    private int shardOf(byte[] v, int partition) {
        MutableRecordMeta meta = new MutableRecordMeta();
        meta.set(partition, 0, 0, 0);
        return router.shard(v, meta, 2);
    }

    /** Waits until every partition committed everything pushed to it. */
    void awaitAllCommitted(Duration timeout) throws InterruptedException {
        awaitCommitted(new int[] {0, 1, 2, 3, 4, 5, 6, 7}, timeout);
    }

    /** Waits until each of {@code partitions} committed everything pushed to it. */
    void awaitCommitted(int[] partitions, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (int p : partitions) {
            if (end[p] == 0) {
                continue;
            }
            long left = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
            assertThat(handle.awaitCommitted(p, end[p], Duration.ofMillis(left)))
                    .as("partition %d committed up to %d (last committed %d)", p, end[p], handle.lastCommitted(p))
                    .isTrue();
        }
    }

    String expected(int shard) {
        return count[shard] + "\t" + count[shard] + "\t" + sum[shard] + "\n";
    }

    String content(String replicaUrl) {
        return HTTP.execute(replicaUrl, "SELECT count(), uniqExact(id), sum(id) FROM " + db.table(table));
    }

    /**
     * Waits until the replica holds exactly the expected rows of {@code shard} (0-based): issues
     * {@code SYSTEM SYNC REPLICA} (bounded by the reader's timeout) and compares, until {@code timeout}.
     */
    void awaitContent(int shard, String replicaUrl, Duration timeout) {
        String expected = expected(shard);
        String last = null;
        long deadline = System.nanoTime() + timeout.toNanos();
        do {
            try {
                HTTP.execute(replicaUrl, "SYSTEM SYNC REPLICA " + db.table(table));
                last = content(replicaUrl);
                if (expected.equals(last)) {
                    return;
                }
            } catch (RuntimeException e) {
                last = e.toString();
            }
            sleep(200);
        } while (System.nanoTime() - deadline < 0);
        assertThat(last)
                .as("shard %d content on %s (count, uniqExact(id), sum(id)) after %s", shard, replicaUrl, timeout)
                .isEqualTo(expected);
    }

    long[] ends() {
        return Arrays.copyOf(end, PARTITIONS);
    }

    static double healthy(MeterRegistry registry, int shard, String replicaUrl) {
        Gauge g = registry.find("etl.clickhouse.replica.healthy")
                .tags("shard", Integer.toString(shard), "replica", replicaUrl)
                .gauge();
        assertThat(g)
                .as("health gauge of shard %d replica %s", shard, replicaUrl)
                .isNotNull();
        return g.value();
    }

    static double inserts(MeterRegistry registry, int shard, String replicaUrl, String outcome) {
        Counter c = registry.find("etl.clickhouse.inserts")
                .tags("shard", Integer.toString(shard), "replica", replicaUrl, "outcome", outcome)
                .counter();
        return c == null ? 0 : c.count();
    }

    static double sinkRetries(MeterRegistry registry, int shard) {
        return registry.find("etl.sink.retries").tag("shard", Integer.toString(shard)).counters().stream()
                .mapToDouble(Counter::count)
                .sum();
    }

    /** Polls {@code condition} every 20 ms until it holds; false on timeout. */
    static boolean await(BooleanSupplier condition, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            sleep(20);
        }
        return true;
    }

    /** Restores every instance (SIGCONT / restart), even when one of them fails; rethrows the first failure. */
    static void restoreAll(List<ClickHouseInstance> instances) {
        RuntimeException first = null;
        for (ClickHouseInstance instance : instances) {
            try {
                instance.restore();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static double nowSeconds(long startNs) {
        return (System.nanoTime() - startNs) / 1e9;
    }
}
