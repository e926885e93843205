package dev.etl.bench.datagen;

import dev.etl.avro.AvroDeserializer;
import dev.etl.bench.avro.generated.BenchEvent;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.datagen.AvroRecordGenerator;
import dev.etl.datagen.DatagenSource;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.RunReport;
import dev.etl.sink.KeyHashRouter;
import dev.etl.sink.SinkDefinition;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The engine's ceiling without Kafka or ClickHouse in the way: a bounded {@link DatagenSource} run of
 * {@link #RECORDS} BenchEvent records (Avro, ~80 bytes) through the real pipeline — lanes, Avro decode on
 * the fast path into the generated class, a filter, RowBinary encoding of 8 columns into per-shard chunks,
 * the sink runtime's batching (the defaults: 1,000,000 rows or 32 MiB; 100,000 rows when tuning.md's numbers were measured) on 2 shards whose writer discards the batch,
 * acks, checkpointer, commits — until every record is committed. One invocation is one whole run
 * (start, generate, write, commit, drain), so {@code ops/s} is records per second end to end,
 * including the pipeline's start and the last commit interval (20 ms).
 *
 * <p>Run: {@code java -jar etl-benchmarks/target/benchmarks.jar DatagenPipeline}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 1,
        jvmArgs = {"-Xmx2g"})
public class DatagenPipelineBenchmark {
    static final int RECORDS = 2_000_000;

    @Param({"1", "2"})
    public int lanes;

    static final RowBinaryEncoder<BenchEvent> ROWS = RowBinaryEncoder.<BenchEvent>builder()
            .int64("id", BenchEvent::getId)
            .int64("timestamp_ms", BenchEvent::getTimestampMs)
            .int32("user_id", BenchEvent::getUserId)
            .string("country", BenchEvent::getCountry)
            .float64("price", BenchEvent::getPrice)
            .int32("quantity", BenchEvent::getQuantity)
            .string("page", BenchEvent::getPage)
            .int32("version", BenchEvent::getVersion)
            .build();

    @Benchmark
    @OperationsPerInvocation(RECORDS)
    public long run() throws InterruptedException {
        PipelineConfig config = PipelineConfig.builder("datagen-bench")
                .lanes(lanes)
                .checkpointInterval(Duration.ofMillis(20))
                .build();
        DatagenSource source = DatagenSource.builder(
                        AvroRecordGenerator.builder(BenchEvent.getClassSchema()).build())
                .partitions(8)
                .records(RECORDS)
                .lanes(lanes)
                .seed(1)
                .pipeline("datagen-bench")
                .build();
        AvroDeserializer.Builder<BenchEvent> avro =
                AvroDeserializer.specific(BenchEvent.class).raw(BenchEvent.getClassSchema());
        ChainFactory chain = ctx -> Chains.from(ctx, avro.build())
                .filter("priced", event -> event.getPrice() >= 0)
                .sink(ROWS, KeyHashRouter.byRecordKey());
        AtomicLong rows = new AtomicLong();
        SinkDefinition discard = SinkDefinition.builder(
                        "discard", 2, shard -> batch -> rows.addAndGet(batch.rowCount()))
                .build();
        PipelineRuntime runtime = Pipeline.builder(config)
                .source(source)
                .sink(discard)
                .chains(chain)
                .build();
        source.onDone(runtime::shutdown);
        runtime.start();
        RunReport report = runtime.awaitTermination(Duration.ofMinutes(5));
        if (report == null || report.exitCode() != 0 || rows.get() != RECORDS) {
            throw new IllegalStateException("run did not end cleanly: " + report + ", rows " + rows);
        }
        return rows.get();
    }
}
