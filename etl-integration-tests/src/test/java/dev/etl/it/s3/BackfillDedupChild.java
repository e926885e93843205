package dev.etl.it.s3;

import dev.etl.clickhouse.ClickHouseSink;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.deser.Deserializer;
import dev.etl.kafka.KafkaSourceConfig;
import dev.etl.ops.Chains;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.RunReport;
import dev.etl.s3.S3BackfillConfig;
import dev.etl.s3.S3BackfillSource;
import dev.etl.s3.S3ObjectStore;
import dev.etl.sink.BatchConfig;
import dev.etl.sink.KeyHashRouter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.time.Duration;

/**
 * The pipeline of {@link BackfillReplayWithoutDuplicatesIT}, in a child JVM: S3 (NDJSON lines, one id each)
 * → ids → the sharded ReplicatedMergeTree table {@code orders} of {@code database}, in deterministic blocks
 * (the ClickHouse sink's default), with an hour-long checkpoint interval (commits only record block
 * boundaries). Ends by itself when the backfill is done ({@code DONE exitCode=<code>}); prints
 * {@code IN <records> replayed <blocks>} every 100 ms.
 *
 * <p>Arguments: {@code bootstrap workTopic group database shards s3Endpoint accessKey secretKey bucket}.
 */
public final class BackfillDedupChild {
    static final RowBinaryEncoder<Long> ENCODER =
            RowBinaryEncoder.<Long>builder().uint64("id", id -> id).build();

    private BackfillDedupChild() {}

    public static void main(String[] args) throws Exception {
        ClickHouseSinkConfig.Builder ch = ClickHouseSinkConfig.builder()
                .table(args[3], "orders")
                .batch(new BatchConfig(2_000, 8L << 20, Duration.ofMillis(150)));
        for (String shard : args[4].split(";")) {
            ch.shard(shard.split(","));
        }
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        S3ObjectStore store = S3ObjectStore.builder()
                .endpoint(URI.create(args[5]))
                .region("us-east-1")
                .credentials(args[6], args[7])
                .pathStyleAccess(true)
                .build();
        S3BackfillSource source = new S3BackfillSource(S3BackfillConfig.builder()
                .workTopic(KafkaSourceConfig.builder()
                        .property("bootstrap.servers", args[0])
                        .property("group.id", args[2])
                        .property("session.timeout.ms", 6_000)
                        .property("heartbeat.interval.ms", 500)
                        .topics(args[1])
                        .pipeline("dedup")
                        .meterRegistry(registry)
                        .build())
                .store(store)
                .bucket(args[8])
                .maxBatchRows(700)
                .progressInterval(Duration.ofMillis(500))
                .meterRegistry(registry)
                .build());
        Deserializer<Long> ids = (key, value, meta, out) -> out.collect(Long.parseLong(
                new String(value.array(), value.offset(), value.length(), java.nio.charset.StandardCharsets.US_ASCII)));
        PipelineRuntime runtime = Pipeline.builder(PipelineConfig.builder("dedup")
                        .lanes(2)
                        .checkpointInterval(Duration.ofHours(1))
                        .drainTimeout(Duration.ofSeconds(10))
                        .pollTimeout(Duration.ofMillis(50))
                        .build())
                .source(source)
                .sink(ClickHouseSink.definition("clickhouse", "dedup", ch.build(), ENCODER, registry))
                .chains(ctx -> Chains.from(ctx, ids).sink(KeyHashRouter.byKey(id -> id)))
                .meterRegistry(registry)
                .build();
        source.onDone(runtime::shutdown);
        runtime.start();
        System.out.println("STARTED");
        System.out.flush();
        Thread progress = new Thread(
                () -> {
                    while (true) {
                        System.out.println("IN " + runtime.recordsIn() + " replayed "
                                + registry.find("etl.checkpoint.replayed.blocks").counters().stream()
                                        .mapToDouble(c -> c.count())
                                        .sum());
                        System.out.flush();
                        try {
                            Thread.sleep(100);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                },
                "progress");
        progress.setDaemon(true);
        progress.start();
        RunReport report = runtime.awaitTermination();
        System.out.println("DONE exitCode=" + report.exitCode());
        System.out.flush();
        System.exit(report.exitCode());
    }
}
