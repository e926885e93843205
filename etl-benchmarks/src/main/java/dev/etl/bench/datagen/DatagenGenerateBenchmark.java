package dev.etl.bench.datagen;

import dev.etl.bench.avro.generated.BenchEvent;
import dev.etl.datagen.AvroRecordGenerator;
import dev.etl.datagen.DatagenSource;
import dev.etl.datagen.RecordGenerator;
import dev.etl.source.PartitionBatch;
import dev.etl.source.PartitionListener;
import dev.etl.source.SourceLane;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What the load generator itself costs per record, so the pipeline numbers measured with it
 * ({@link DatagenPipelineBenchmark}) can be read as the engine's: one lane's poll of an unbounded,
 * unlimited run, every record generated into the lane's buffers and its key and value touched.
 * {@code function}: a hand-written generator (an id, a random amount, a status from a list);
 * {@code avro}: {@link AvroRecordGenerator} for the 15-field BenchEvent schema (~80 bytes).
 * One invocation is one poll of {@link #BATCH} records, so per-op numbers (and {@code -prof gc}'s
 * {@code gc.alloc.rate.norm}) are per record.
 *
 * <p>Run: {@code java -jar etl-benchmarks/target/benchmarks.jar DatagenGenerate -prof gc}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class DatagenGenerateBenchmark {
    static final int BATCH = 1_000;
    private static final byte[][] STATUS = {"NEW".getBytes(), "PAID".getBytes(), "CANCELLED".getBytes()};

    /** A generator written by hand: 8-byte id key; id, amount, status as fixed fields. */
    static final RecordGenerator FUNCTION = (partition, sequence, random, out) -> {
        out.key().writeLongBE(out.id());
        byte[] status = STATUS[random.nextInt(STATUS.length)];
        out.value()
                .writeLongLE(out.id())
                .writeLongLE(random.nextLong(100, 100_000))
                .writeByte(status.length)
                .writeBytes(status);
    };

    @Param({"function", "avro"})
    public String generator;

    private SourceLane lane;
    private Blackhole blackhole;

    @Setup(Level.Trial)
    public void setUp(Blackhole blackhole) {
        this.blackhole = blackhole;
        RecordGenerator chosen = generator.equals("avro")
                ? AvroRecordGenerator.builder(BenchEvent.getClassSchema()).build()
                : FUNCTION;
        DatagenSource source = DatagenSource.builder(chosen)
                .partitions(1)
                .maxPollRecords(BATCH)
                .seed(1)
                .build();
        lane = source.openLane(0, new PartitionListener() {
            @Override
            public void onAssigned(int[] partitions) {}

            @Override
            public void onRevoked(int[] partitions) {}

            @Override
            public void onLost(int[] partitions) {}
        });
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void poll() {
        lane.poll(0, this::consume);
    }

    private void consume(PartitionBatch batch) {
        Blackhole bh = blackhole;
        while (batch.next()) {
            bh.consume(batch.value().length());
            bh.consume(batch.key().get(7));
        }
    }
}
