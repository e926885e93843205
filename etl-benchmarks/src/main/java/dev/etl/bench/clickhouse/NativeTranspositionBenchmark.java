package dev.etl.bench.clickhouse;

import dev.etl.clickhouse.ClickHouseCapabilities;
import dev.etl.clickhouse.ClickHouseInsert;
import dev.etl.clickhouse.ClickHouseShardWriter;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.ClickHouseTransport;
import dev.etl.clickhouse.InsertFormat;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.sink.RowBuffer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What {@link InsertFormat#NATIVE} costs the client: a {@link ClickHouseShardWriter} writing one sealed
 * batch of {@value #ROWS} rows to a transport that discards the body, with RowBinary (the bytes go
 * through as they are: the baseline) and with Native (the writer transposes the rows into a block
 * first, on the calling thread, as on an io thread). Numbers are per row; the difference is the
 * transposition. Since the pass-through costs next to nothing per row, two reference points put the
 * transposition in proportion, in the same run: {@code copyBatch} (one {@code System.arraycopy} of the
 * batch's bytes: the floor for touching every byte once) and {@code rowBinaryEncode} (the lanes'
 * {@link RowBinaryEncoder} encoding the same rows from their Java values, which every pipeline pays
 * whichever the format). Run with {@code -prof gc}: steady state allocates nothing per row. See
 * {@code docs/BENCHMARKS.md} ("Insert formats").
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class NativeTranspositionBenchmark {
    static final int ROWS = 100_000;

    @Param({"ORDERS", "NUMERIC", "TEXT"})
    public InsertBenchSchema schema;

    private BenchBatch batch;
    private List<InsertBenchSchema.Row> values;
    private RowBinaryEncoder<InsertBenchSchema.Row> encoder;
    private RowBuffer encoded;
    private byte[] copy;
    private ClickHouseShardWriter rowBinary;
    private ClickHouseShardWriter nativeBlock;
    /** The transport folds the body's length and one byte into this, so the block cannot be skipped. */
    long sink;

    private final ClickHouseTransport discard = new ClickHouseTransport() {
        @Override
        public long insert(URI replica, ClickHouseInsert insert, byte[] body, int length) {
            sink += length + body[length - 1];
            return WRITTEN_UNKNOWN;
        }

        @Override
        public String query(URI replica, String sql) {
            throw new UnsupportedOperationException(sql);
        }
    };

    @Setup
    public void setUp() {
        values = schema.rows(1, ROWS, 16_003);
        batch = BenchBatch.of(schema.rowBinary(values), ROWS);
        encoder = schema.encoder();
        encoded = new RowBuffer(batch.byteCount());
        copy = new byte[batch.byteCount()];
        rowBinary = writer(InsertFormat.ROW_BINARY);
        nativeBlock = writer(InsertFormat.NATIVE);
    }

    private ClickHouseShardWriter writer(InsertFormat format) {
        ClickHouseSinkConfig config = ClickHouseSinkConfig.builder()
                .table("bench", "t")
                .shard("http://127.0.0.1:1")
                .format(format)
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

    /** Baseline: the writer hands the batch's RowBinary bytes to the transport. */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public long rowBinary() {
        rowBinary.write(batch);
        return sink;
    }

    /** Reference: one copy of the batch's bytes (what touching each byte once costs). */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public byte copyBatch() {
        System.arraycopy(batch.bytes(), 0, copy, 0, batch.byteCount());
        return copy[copy.length - 1];
    }

    /** Reference: the lanes' encoding of the same rows from their Java values, into a reused buffer. */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public int rowBinaryEncode() {
        RowBuffer out = encoded;
        out.reset();
        RowBinaryEncoder<InsertBenchSchema.Row> e = encoder;
        List<InsertBenchSchema.Row> v = values;
        for (int i = 0; i < v.size(); i++) {
            e.encode(v.get(i), out);
        }
        return out.length();
    }

    /** The writer transposes the batch into one Native block, then hands it to the transport. */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public long nativeBlock() {
        nativeBlock.write(batch);
        return sink;
    }
}
