package dev.etl.bench.engine;

import dev.etl.internal.checkpoint.AckQueue;
import dev.etl.internal.checkpoint.AckRef;
import dev.etl.internal.checkpoint.Checkpointer;
import dev.etl.internal.sink.ChunkOutbox;
import dev.etl.ops.Chain;
import dev.etl.ops.Chains;
import dev.etl.record.Payload;
import dev.etl.sink.ChunkConfig;
import dev.etl.sink.KeyHashRouter;
import dev.etl.sink.RowBuffer;
import dev.etl.sink.RowEncoder;
import dev.etl.source.PartitionBatch;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.agrona.collections.Long2LongHashMap;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The lane's hot path, per record: poll batch → deserialize (in place) → map → filter → map →
 * route + RowBinary encode into per-shard chunks → hand-off → acks → checkpointer → watermark.
 * Everything a lane does for a batch except the source's own poll and the sink's io.
 *
 * <p>One invocation is one batch of {@link #BATCH} records, so JMH's per-op numbers (including
 * {@code -prof gc}'s {@code gc.alloc.rate.norm}) are per record. The ack is taken from the ack
 * queue's pool and recycled by the drain, as the lane does, so once warm a batch allocates no ack
 * and no ack-queue node.
 *
 * <p>Run: {@code java -jar etl-benchmarks/target/benchmarks.jar LaneHotPath -prof gc}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class LaneHotPathBenchmark {
    static final int BATCH = 500;
    static final int SHARDS = 2;

    private ArrayBatch batch;
    private Chain chain;
    private BenchChainContext context;
    private Checkpointer checkpointer;
    private AckQueue ackQueue;
    private Consumer<AckRef> ackHandler;
    private Long2LongHashMap committable;
    private NullChunkSink sink;
    private ChunkOutbox outbox;
    private long nextOffset;
    private final BenchOrder baselineOrder = new BenchOrder();
    private final RowBuffer[] baselineBuffers = {new RowBuffer(64 * 1024), new RowBuffer(64 * 1024)};
    private final KeyHashRouter<BenchOrder> baselineRouter = KeyHashRouter.byKey(o -> o.id);

    @Setup(Level.Trial)
    public void setUp() {
        byte[][] values = new byte[BATCH][];
        for (int i = 0; i < BATCH; i++) {
            int status = i % 10 == 0 ? BenchOrder.CANCELLED : 1;
            values[i] = BenchOrder.encode(
                    1_000_000L + i, 1_999L + i, status, ("customer-" + (i % 97)).getBytes(StandardCharsets.UTF_8));
        }
        batch = new ArrayBatch(values);
        sink = new NullChunkSink(SHARDS);
        outbox = new ChunkOutbox(sink, ChunkConfig.DEFAULTS);
        context = new BenchChainContext(outbox);
        BenchOrder reused = new BenchOrder();
        RowEncoder<BenchOrder> encoder = (o, meta, out) -> out.writeLongLE(o.id)
                .writeStringBytes(o.customer, o.customerOffset, o.customerLength)
                .writeLongLE(o.amountCents)
                .writeByte(o.status);
        chain = Chains.<BenchOrder>from(context, (key, value, meta, out) -> out.collect(reused.decode(value)))
                .map("with-tax", o -> {
                    o.amountCents = o.amountCents * 108 / 100;
                    return o;
                })
                .filter("not-cancelled", o -> o.status != BenchOrder.CANCELLED)
                .map("normalise", o -> o)
                .sink(encoder, KeyHashRouter.byKey(o -> o.id));
        chain.open();
        checkpointer = new Checkpointer(System::nanoTime);
        checkpointer.assign(0);
        ackQueue = new AckQueue();
        ackHandler = checkpointer::ack;
        committable = new Long2LongHashMap(-1);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long laneBatch() {
        batch.reset(nextOffset);
        nextOffset += BATCH;
        long seq = checkpointer.register(0, nextOffset);
        AckRef ack = ackQueue.acquire(0, checkpointer.epoch(0), seq); // pooled, as the lane's
        context.meta().ack(ack);
        chain.onBatch(batch);
        ack.release(true);
        outbox.flush();
        ackQueue.drain(ackHandler);
        committable.clear();
        checkpointer.collectCommittable(committable);
        checkpointer.markCommitted(0, nextOffset);
        return checkpointer.watermark(0);
    }

    /**
     * Baseline: the same per-record work written by hand in one loop — decode, tax, filter, route,
     * RowBinary encode into per-shard buffers — with no chain, acks or checkpointer. The ratio
     * {@code laneBatch / handWrittenBatch} is the engine's overhead.
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long handWrittenBatch() {
        batch.reset(nextOffset);
        nextOffset += BATCH;
        BenchOrder o = baselineOrder;
        RowBuffer[] buffers = baselineBuffers;
        while (batch.next()) {
            o.decode(batch.value());
            o.amountCents = o.amountCents * 108 / 100;
            if (o.status == BenchOrder.CANCELLED) {
                continue;
            }
            int shard = baselineRouter.shard(o, context.meta(), SHARDS);
            buffers[shard]
                    .writeLongLE(o.id)
                    .writeStringBytes(o.customer, o.customerOffset, o.customerLength)
                    .writeLongLE(o.amountCents)
                    .writeByte(o.status);
        }
        long written = 0;
        for (RowBuffer buffer : buffers) {
            written += buffer.length();
            buffer.reset();
        }
        return written;
    }

    /** A reusable batch cursor over preallocated payloads (what a source's flyweight does). */
    static final class ArrayBatch implements PartitionBatch {
        private final byte[][] values;
        private final Payload key = new Payload();
        private final Payload value = new Payload();
        private long firstOffset;
        private int index;

        ArrayBatch(byte[][] values) {
            this.values = values;
        }

        void reset(long firstOffset) {
            this.firstOffset = firstOffset;
            this.index = -1;
        }

        @Override
        public int partition() {
            return 0;
        }

        @Override
        public int size() {
            return values.length;
        }

        @Override
        public long lastOffset() {
            return firstOffset + values.length - 1;
        }

        @Override
        public boolean next() {
            if (++index >= values.length) {
                return false;
            }
            value.wrap(values[index]);
            key.clear();
            return true;
        }

        @Override
        public long offset() {
            return firstOffset + index;
        }

        @Override
        public long timestampMs() {
            return 0;
        }

        @Override
        public Payload key() {
            return key;
        }

        @Override
        public Payload value() {
            return value;
        }
    }
}
