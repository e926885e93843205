package dev.etl.it.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.clickhouse.ClickHouseSink;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.deser.Deserializer;
import dev.etl.ops.Chains;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.RunReport;
import dev.etl.sink.BatchConfig;
import dev.etl.sink.KeyHashRouter;
import dev.etl.test.infra.ClickHouseHttp;
import dev.etl.test.infra.ClickHouseTestDatabase;
import dev.etl.test.infra.InfraEndpoints;
import dev.etl.test.infra.InfraServer;
import dev.etl.test.infra.LocalInfra;
import dev.etl.test.memory.MemorySource;
import dev.etl.test.memory.MemorySourceHandle;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Memory source → chain → ClickHouse sink on the real 2 × 2 cluster, through the engine's shard workers. */
@LocalInfra(InfraServer.CLICKHOUSE)
class ClickHousePipelineIT {
    private static final int PARTITIONS = 8;
    private static final int ROWS = 1_000_000;
    private static final int MAX_BATCH_ROWS = 50_000;

    private static long id(byte[] value) {
        return (long) ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN).getLong(0);
    }

    static final RowBinaryEncoder<byte[]> ENCODER = RowBinaryEncoder.<byte[]>builder()
            .uint64("id", ClickHousePipelineIT::id)
            .int32("partition_hint", v -> (int) (id(v) % PARTITIONS))
            .build();

    static final KeyHashRouter<byte[]> ROUTER = KeyHashRouter.byKey(ClickHousePipelineIT::id);

    @Test
    void millionRowsLandOnTheirShardsWithEveryIdPresent(ClickHouseTestDatabase db, InfraEndpoints infra)
            throws Exception {
        db.execute("CREATE TABLE " + db.table("ids") + " ON CLUSTER " + db.cluster()
                + " (id UInt64, partition_hint Int32) ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/"
                + db.name() + "/ids', '{replica}') ORDER BY id");
        ClickHouseSinkConfig.Builder cfg = ClickHouseSinkConfig.builder()
                .table(db.name(), "ids")
                .batch(new BatchConfig(MAX_BATCH_ROWS, 32L << 20, Duration.ofMillis(200)));
        for (InfraEndpoints.ClickHouseShard shard : infra.clickhouseShards()) {
            cfg.shard(shard.replicaUrls().toArray(String[]::new));
        }
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        PipelineConfig config = PipelineConfig.builder("ch-it")
                .lanes(2)
                .ioThreads(2)
                .checkpointInterval(Duration.ofMillis(200))
                .build();
        MemorySource source = MemorySource.create();
        MemorySourceHandle handle = source.handle();
        PipelineRuntime runtime = Pipeline.builder(config)
                .meterRegistry(registry)
                .source(source)
                .sink(ClickHouseSink.definition("clickhouse", "ch-it", cfg.build(), ENCODER, registry))
                .chains(ctx -> Chains.from(ctx, Deserializer.bytes()).sink(ENCODER, ROUTER))
                .build();

        long[] expectedCount = new long[2];
        long[] expectedSum = new long[2];
        long[] last = new long[PARTITIONS];
        handle.assign(0, 0, 1, 2, 3);
        handle.assign(1, 4, 5, 6, 7);
        long started = System.nanoTime();
        runtime.start();
        for (long id = 1; id <= ROWS; id++) {
            byte[] value = ByteBuffer.allocate(8)
                    .order(ByteOrder.LITTLE_ENDIAN)
                    .putLong(id)
                    .array();
            int shard = ROUTER.shard(value, null, 2);
            expectedCount[shard]++;
            expectedSum[shard] += id;
            int partition = (int) (id % PARTITIONS);
            last[partition] = handle.push(partition, null, value);
        }
        for (int p = 0; p < PARTITIONS; p++) {
            assertThat(handle.awaitCommitted(p, last[p] + 1, Duration.ofSeconds(120)))
                    .as("partition %d committed", p)
                    .isTrue();
        }
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        runtime.shutdownHandle().trigger();
        RunReport report = runtime.awaitTermination(Duration.ofSeconds(30));
        assertThat(report.exitCode()).isZero();

        for (int shard = 0; shard < 2; shard++) {
            String url = infra.clickhouseShard(shard + 1).replicaUrl(1);
            // the sink spreads inserts over both replicas: a commit means one replica has the rows, and
            // replica 1 may still be fetching the other's parts (it flaked under load without this)
            ClickHouseHttp.query(url, "SYSTEM SYNC REPLICA " + db.table("ids"));
            assertThat(ClickHouseHttp.query(url, "SELECT count(), uniqExact(id), sum(id) FROM " + db.table("ids")))
                    .as("shard %d", shard)
                    .isEqualTo(expectedCount[shard] + "\t" + expectedCount[shard] + "\t" + expectedSum[shard] + "\n");
        }
        DistributionSummary batchRows =
                registry.get("etl.sink.batch.rows").summaries().iterator().next();
        for (DistributionSummary s : registry.get("etl.sink.batch.rows").summaries()) {
            assertThat(s.max()).isLessThanOrEqualTo(MAX_BATCH_ROWS);
        }
        System.out.printf(
                "ClickHousePipelineIT: %d rows committed in %d ms (%.0f rows/s incl. push), %d batches on one shard%n",
                ROWS, elapsedMs, ROWS * 1000.0 / elapsedMs, batchRows.count());
    }
}
