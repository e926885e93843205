package dev.etl.bench.engine;

import dev.etl.avro.AvroDeserializer;
import dev.etl.avro.AvroWireFormat;
import dev.etl.avro.clickhouse.AvroRowTranscoder;
import dev.etl.bench.avro.AvroDecodeBenchmark;
import dev.etl.bench.avro.TranscodeBenchmark;
import dev.etl.bench.avro.generated.BenchEvent;
import dev.etl.deser.Deserializer;
import dev.etl.internal.checkpoint.AckQueue;
import dev.etl.internal.checkpoint.AckRef;
import dev.etl.internal.checkpoint.Checkpointer;
import dev.etl.internal.sink.ChunkOutbox;
import dev.etl.ops.Chain;
import dev.etl.ops.Chains;
import dev.etl.sink.ChunkConfig;
import dev.etl.sink.KeyHashRouter;
import java.io.IOException;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.agrona.collections.Long2LongHashMap;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
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
 * The lane's whole path for Avro records, per record: poll-batch flyweight → Avro → route + RowBinary
 * into per-shard chunks → hand-off to a null sink → acks → checkpointer, as in
 * {@link LaneHotPathBenchmark}, over 500 distinct {@code BenchEvent} records (every field a column):
 * <ul>
 * <li>{@code laneTranscode}: {@code Deserializer.payload()} → {@code AvroRowTranscoder};</li>
 * <li>{@code laneObjectPath}: {@code AvroDeserializer}'s fast path into generic records → {@code
 *     RowBinaryEncoder};</li>
 * <li>{@code laneObjectPathSpecific}: the same into the generated {@code BenchEvent}, the encoder reading
 *     its typed getters (issue 34: 0 B per record);</li>
 * <li>{@code handWrittenTranscode}: the hand-written loop of the same work (issue 15: the lane in ≤ 1.2×
 *     its time): per record the transcoder writes the row into one of two buffers picked by the
 *     router's hash, the buffers are reset per batch (the null sink); no chain, acks or checkpointer;</li>
 * <li>{@code genericDatumReaderAlone}: the same records through Avro's {@code GenericDatumReader},
 *     decode only, no lane — the baseline of issue 15 (goal: the lane with the transcoder in ≤ 0.6× its
 *     time).</li>
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class AvroLaneBenchmark {
    static final int BATCH = 500;
    static final int SHARDS = 2;

    private byte[][] bodies;
    private Lane transcoding;
    private Lane objectPath;
    private Lane objectPathSpecific;
    private GenericDatumReader<GenericRecord> genericReader;
    private BinaryDecoder decoder;
    private GenericRecord genericReuse;
    private AvroRowTranscoder handTranscoder;
    private final dev.etl.sink.RowBuffer[] handShards = {
        new dev.etl.sink.RowBuffer(1 << 16), new dev.etl.sink.RowBuffer(1 << 16)
    };
    private long[] keyHashes;

    /** One lane: a chain over its own outbox, a null sink, an ack queue and a checkpointer. */
    private static final class Lane {
        final LaneHotPathBenchmark.ArrayBatch batch;
        final BenchChainContext context;
        final ChunkOutbox outbox;
        final Chain chain;
        final Checkpointer checkpointer = new Checkpointer(System::nanoTime);
        final AckQueue ackQueue = new AckQueue();
        final Consumer<AckRef> ackHandler = checkpointer::ack;
        final Long2LongHashMap committable = new Long2LongHashMap(-1);
        long nextOffset;

        Lane(byte[][] values, java.util.function.Function<BenchChainContext, Chain> chains) {
            batch = new LaneHotPathBenchmark.ArrayBatch(values);
            outbox = new ChunkOutbox(new NullChunkSink(SHARDS), ChunkConfig.DEFAULTS);
            context = new BenchChainContext(outbox);
            chain = chains.apply(context);
            chain.open();
            checkpointer.assign(0);
        }

        long run() {
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
    }

    @Setup(Level.Trial)
    public void setUp() {
        Schema schema = BenchEvent.getClassSchema();
        Random random = new Random(7);
        bodies = new byte[BATCH][];
        for (int i = 0; i < BATCH; i++) {
            bodies[i] = AvroWireFormat.raw(schema, AvroDecodeBenchmark.event(random, i));
        }
        AvroRowTranscoder.Builder transcoder = AvroRowTranscoder.raw(TranscodeBenchmark.mapping(schema), schema);
        transcoding = new Lane(
                bodies,
                ctx -> Chains.from(ctx, Deserializer.payload()).sink(transcoder.build(), KeyHashRouter.byRecordKey()));
        AvroDeserializer.Builder<GenericRecord> avro =
                AvroDeserializer.generic(schema).raw(schema);
        objectPath = new Lane(
                bodies,
                ctx -> Chains.from(ctx, avro.build()).sink(TranscodeBenchmark.encoder(), KeyHashRouter.byRecordKey()));
        AvroDeserializer.Builder<BenchEvent> specific =
                AvroDeserializer.specific(BenchEvent.class).raw(schema);
        objectPathSpecific = new Lane(
                bodies,
                ctx -> Chains.from(ctx, specific.build())
                        .sink(TranscodeBenchmark.specificEncoder(), KeyHashRouter.byRecordKey()));
        genericReader = new GenericDatumReader<>(schema, schema);
        handTranscoder = transcoder.build();
        keyHashes = new long[BATCH];
        for (int i = 0; i < BATCH; i++) {
            keyHashes[i] = random.nextLong();
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int handWrittenTranscode() {
        byte[][] b = bodies;
        dev.etl.sink.RowBuffer[] shards = handShards;
        shards[0].reset();
        shards[1].reset();
        int rows = 0;
        for (int i = 0; i < b.length; i++) {
            int shard = (int) Long.remainderUnsigned(mix64(keyHashes[i]), SHARDS);
            rows += handTranscoder.transcode(b[i], 0, b[i].length, shards[shard]);
        }
        return rows;
    }

    /** The router's SplitMix64 finalizer (KeyHashRouter.mix64 is package-private). */
    private static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long laneTranscode() {
        return transcoding.run();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long laneObjectPath() {
        return objectPath.run();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long laneObjectPathSpecific() {
        return objectPathSpecific.run();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public Object genericDatumReaderAlone() throws IOException {
        byte[][] b = bodies;
        for (int i = 0; i < b.length; i++) {
            decoder = DecoderFactory.get().binaryDecoder(b[i], 0, b[i].length, decoder);
            genericReuse = genericReader.read(genericReuse, decoder);
        }
        return genericReuse;
    }
}
