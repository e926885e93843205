package dev.etl.it.kafka;

import dev.etl.clickhouse.ClickHouseSink;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.deser.Deserializer;
import dev.etl.kafka.KafkaSource;
import dev.etl.ops.Chains;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.RunReport;
import dev.etl.record.Payload;
import dev.etl.sink.BatchConfig;
import dev.etl.sink.KeyHashRouter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Arrays;

/**
 * The pipeline of {@link ReplayWithoutDuplicatesIT}, run in child JVMs so the test can SIGKILL them:
 * Kafka (decimal ids) → the ClickHouse cluster's {@code orders(id)} table in deterministic blocks (the
 * sink's default), small blocks (2,000 rows per shard or a 150 ms linger, so kills land in the middle of
 * sealing, recording and writing), two lanes, and an hour-long checkpoint interval: only the boundary
 * commits of the blocks move the committed offsets. A written block's offsets are committed by the next
 * commit, tens of milliseconds after its insert: {@link dev.etl.it.support.WrittenBlockKill} kills in
 * that window, so the next run replays the block.
 *
 * <p>Arguments: {@code bootstrap topic group database shards}, {@code shards} as replica URLs joined by
 * {@code ,} per shard and {@code ;} between shards. Prints {@code STARTED}, then {@code IN <records
 * polled>} every 100 ms; a SIGTERM drains and prints {@code DRAINED exitCode=<code>}.
 */
public final class DedupChildPipeline {
    static final RowBinaryEncoder<Long> ENCODER =
            RowBinaryEncoder.<Long>builder().uint64("id", id -> id).build();

    private DedupChildPipeline() {}

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String topic = args[1];
        String group = args[2];
        String database = args[3];
        ClickHouseSinkConfig.Builder ch = ClickHouseSinkConfig.builder()
                .table(database, "orders")
                .batch(new BatchConfig(2_000, 8L << 20, Duration.ofMillis(150)));
        for (String shard : args[4].split(";")) {
            ch.shard(shard.split(","));
        }
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        KafkaSource source = new KafkaSource(KafkaItSupport.sourceConfig(bootstrap, group, topic, registry, "dedup")
                .property("max.poll.records", 700)
                .property("session.timeout.ms", 6_000)
                .property("heartbeat.interval.ms", 500)
                .build());
        Deserializer<Long> ids = (key, value, meta, out) -> out.collect(parse(value));
        PipelineRuntime runtime = Pipeline.builder(KafkaItSupport.pipelineConfig("dedup", 2)
                        .checkpointInterval(Duration.ofHours(1))
                        .build())
                .source(source)
                .sink(ClickHouseSink.definition("clickhouse", "dedup", ch.build(), ENCODER, registry))
                .chains(ctx -> Chains.from(ctx, ids).sink(KeyHashRouter.byKey(id -> id)))
                .meterRegistry(registry)
                .build();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            runtime.shutdown();
            try {
                RunReport report = runtime.awaitTermination(Duration.ofSeconds(20));
                System.out.println("DRAINED exitCode=" + (report == null ? "timeout" : report.exitCode()));
                System.out.flush();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
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
        runtime.awaitTermination();
    }

    private static long parse(Payload value) {
        byte[] bytes = Arrays.copyOfRange(value.array(), value.offset(), value.offset() + value.length());
        return Long.parseLong(new String(bytes, java.nio.charset.StandardCharsets.US_ASCII));
    }
}
