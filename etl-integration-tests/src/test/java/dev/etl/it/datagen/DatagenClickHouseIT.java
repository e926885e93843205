package dev.etl.it.datagen;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.clickhouse.ClickHouseSink;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.datagen.DatagenSource;
import dev.etl.datagen.RecordGenerator;
import dev.etl.deser.Deserializer;
import dev.etl.ops.Chains;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.RunReport;
import dev.etl.record.Payload;
import dev.etl.sink.BatchConfig;
import dev.etl.sink.KeyHashRouter;
import dev.etl.test.infra.ClickHouseHttp;
import dev.etl.test.infra.ClickHouseTestDatabase;
import dev.etl.test.infra.InfraEndpoints;
import dev.etl.test.infra.InfraServer;
import dev.etl.test.infra.LocalInfra;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Sizing a cluster without a broker: a bounded datagen run into the real 2 × 2 ClickHouse cluster
 * (ReplicatedMergeTree, deterministic blocks as shipped), ended by the source when everything is committed.
 * Every id 0 … N-1 lands exactly once over the two shards, and the run's exit code is 0.
 */
@LocalInfra(InfraServer.CLICKHOUSE)
class DatagenClickHouseIT {
    private static final int RECORDS = 1_000_000;

    /** Value: the id (8 bytes little-endian) and an amount; key: the id big-endian (routing). */
    static final RecordGenerator ORDERS = (partition, sequence, random, out) -> {
        out.key().writeLongBE(out.id());
        out.value().writeLongLE(out.id()).writeLongLE(random.nextLong(100, 100_000));
    };

    static long longLE(Payload value, int offset) {
        long v = 0;
        for (int i = 7; i >= 0; i--) {
            v = (v << 8) | (value.get(offset + i) & 0xff);
        }
        return v;
    }

    static final RowBinaryEncoder<Payload> ROWS = RowBinaryEncoder.<Payload>builder()
            .uint64("id", (v) -> longLE(v, 0))
            .int64("amount_cents", (v) -> longLE(v, 8))
            .build();

    @Test
    void aBoundedRunLandsEveryIdOnceAndEndsWithExitCodeZero(ClickHouseTestDatabase db, InfraEndpoints infra)
            throws Exception {
        db.execute("CREATE TABLE " + db.table("orders") + " ON CLUSTER " + db.cluster()
                + " (id UInt64, amount_cents Int64) ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/"
                + db.name() + "/orders', '{replica}') ORDER BY id");
        ClickHouseSinkConfig.Builder cfg = ClickHouseSinkConfig.builder()
                .table(db.name(), "orders")
                .batch(new BatchConfig(100_000, 32L << 20, Duration.ofMillis(500)));
        for (InfraEndpoints.ClickHouseShard shard : infra.clickhouseShards()) {
            cfg.shard(shard.replicaUrls().toArray(String[]::new));
        }
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        PipelineConfig config = PipelineConfig.builder("datagen-it")
                .lanes(2)
                .checkpointInterval(Duration.ofMillis(200))
                .build();
        DatagenSource source = DatagenSource.builder(ORDERS)
                .partitions(8)
                .records(RECORDS)
                .lanes(2)
                .seed(7)
                .pipeline("datagen-it")
                .meterRegistry(registry)
                .build();
        PipelineRuntime runtime = Pipeline.builder(config)
                .meterRegistry(registry)
                .source(source)
                .sink(ClickHouseSink.definition("clickhouse", "datagen-it", cfg.build(), ROWS, registry))
                .chains(ctx -> Chains.from(ctx, Deserializer.payload()).sink(ROWS, KeyHashRouter.byRecordKey()))
                .build();
        source.onDone(runtime::shutdown);

        long started = System.nanoTime();
        runtime.start();
        RunReport report = runtime.awaitTermination(Duration.ofMinutes(5));
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

        assertThat(report).as("the run ended by itself").isNotNull();
        assertThat(report.exitCode()).isZero();
        assertThat(source.isDone()).isTrue();
        long count = 0;
        long unique = 0;
        long sum = 0;
        for (int shard = 1; shard <= 2; shard++) {
            // the sink spreads inserts over both replicas; replica 1 may still be fetching the other's parts
            ClickHouseHttp.query(
                    infra.clickhouseShard(shard).replicaUrl(1), "SYSTEM SYNC REPLICA " + db.table("orders"));
            String[] row = ClickHouseHttp.query(
                            infra.clickhouseShard(shard).replicaUrl(1),
                            "SELECT count(), uniqExact(id), sum(id) FROM " + db.table("orders"))
                    .trim()
                    .split("\t");
            count += Long.parseLong(row[0]);
            unique += Long.parseLong(row[1]);
            sum += Long.parseLong(row[2]);
        }
        assertThat(count).as("rows over both shards").isEqualTo(RECORDS);
        assertThat(unique).as("distinct ids (no shard holds an id twice)").isEqualTo(RECORDS);
        assertThat(sum).as("exactly the ids 0 … N-1").isEqualTo((long) RECORDS * (RECORDS - 1) / 2);
        System.out.printf(
                "DatagenClickHouseIT: %d records generated, written to 2 shards and committed in %d ms "
                        + "(%.0f records/s, start to exit)%n",
                RECORDS, elapsedMs, RECORDS * 1000.0 / elapsedMs);
    }
}
