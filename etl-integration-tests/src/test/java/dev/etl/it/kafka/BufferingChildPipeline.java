package dev.etl.it.kafka;

import dev.etl.clickhouse.ClickHouseSink;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.deser.Deserializer;
import dev.etl.kafka.KafkaSource;
import dev.etl.ops.Chains;
import dev.etl.ops.HeldAcks;
import dev.etl.ops.OperatorContext;
import dev.etl.ops.StatefulOperator;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.RunReport;
import dev.etl.record.Collector;
import dev.etl.record.Payload;
import dev.etl.sink.BatchConfig;
import dev.etl.sink.KeyHashRouter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Arrays;

/**
 * The pipeline of {@link DeferredEmissionCrashIT}, run in a child JVM so the test can SIGKILL it:
 * Kafka (decimal ids) → a buffering operator (keeps up to {@value #BUFFER} ids per lane and emits
 * them together) → the ClickHouse cluster's {@code orders(id)} table.
 *
 * <p>Arguments: {@code bootstrap topic group database shards}, {@code shards} as replica URLs joined
 * by {@code ,} per shard and {@code ;} between shards. Prints {@code STARTED}, then
 * {@code IN <records polled>} every 100 ms; a SIGTERM drains (flushing the operator) and prints
 * {@code DRAINED exitCode=<code>}.
 */
public final class BufferingChildPipeline {
    /** Ids kept per lane before they are emitted; not a divisor of the ITs' counts, so some stay held. */
    static final int BUFFER = 1_000;

    private BufferingChildPipeline() {}

    static final RowBinaryEncoder<Long> ENCODER =
            RowBinaryEncoder.<Long>builder().uint64("id", id -> id).build();

    /** Keeps ids and emits them {@value #BUFFER} at a time, holding the acks of what it keeps. */
    static final class Buffering implements StatefulOperator<Long, Long> {
        private final long[] ids = new long[BUFFER];
        private int count;
        private HeldAcks held;

        @Override
        public void open(OperatorContext context) {
            held = context.heldAcks();
        }

        @Override
        public void process(Long id, Collector<? super Long> out) {
            ids[count++] = id;
            held.holdCurrent();
            if (count == BUFFER) {
                flush(out);
            }
        }

        @Override
        public void flush(Collector<? super Long> out) {
            if (count == 0) {
                return;
            }
            try (HeldAcks.Emission<Long> emission = held.emit(out)) {
                for (int i = 0; i < count; i++) {
                    emission.collect(ids[i]);
                }
            }
            count = 0;
        }
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String topic = args[1];
        String group = args[2];
        String database = args[3];
        ClickHouseSinkConfig.Builder ch = ClickHouseSinkConfig.builder()
                .table(database, "orders")
                .batch(new BatchConfig(5_000, 8L << 20, Duration.ofMillis(100)));
        for (String shard : args[4].split(";")) {
            ch.shard(shard.split(","));
        }
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        KafkaSource source = new KafkaSource(KafkaItSupport.sourceConfig(bootstrap, group, topic, registry, "buffering")
                .property("max.poll.records", 500)
                .property("session.timeout.ms", 6_000)
                .property("heartbeat.interval.ms", 500)
                .build());
        Deserializer<Long> ids = (key, value, meta, out) -> out.collect(parse(value));
        PipelineRuntime runtime = Pipeline.builder(
                        KafkaItSupport.pipelineConfig("buffering", 2).build())
                .source(source)
                .sink(ClickHouseSink.definition("clickhouse", "buffering", ch.build(), ENCODER, registry))
                .chains(ctx -> Chains.from(ctx, ids)
                        .process("buffer", new Buffering())
                        .sink(ENCODER, KeyHashRouter.byKey(id -> id)))
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
                        System.out.println("IN " + runtime.recordsIn());
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
