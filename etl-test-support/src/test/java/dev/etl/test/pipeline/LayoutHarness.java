package dev.etl.test.pipeline;

import static dev.etl.test.pipeline.PipelineFixture.utf8;

import dev.etl.error.SinkWriteException;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.record.RecordMeta;
import dev.etl.sink.BatchConfig;
import dev.etl.sink.ChunkConfig;
import dev.etl.sink.RetryConfig;
import dev.etl.sink.RowBuffer;
import dev.etl.sink.RowEncoder;
import dev.etl.sink.SealedBatch;
import dev.etl.sink.ShardWriter;
import dev.etl.sink.SinkDefinition;
import dev.etl.test.capture.TestEncoders;
import dev.etl.test.memory.MemorySource;
import dev.etl.test.memory.MemorySourceHandle;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A pipeline whose encoders evolve: a memory source, one encoder per lane that writes each row as
 * {@code "<layout>|<value>"} (so every row says which layout encoded it) and asks for the layout a shared
 * counter holds ({@link #flip}), and a sink that records every write attempt with its batch's
 * {@link SealedBatch#layout()} (failing some attempts transiently when asked).
 */
final class LayoutHarness implements AutoCloseable {
    /** One write attempt as the sink saw it. */
    record Write(int shard, long sequence, int attempt, int layout, String token, List<String> rows, boolean ok) {}

    /** The layout the encoders ask for; {@link #flip} raises it. */
    final AtomicInteger requested = new AtomicInteger();

    final MemorySource source;
    final MemorySourceHandle handle;
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<Write> writes = new ArrayList<>();
    private final Random failures;
    private final int failurePercent;
    private final PipelineRuntime runtime;

    /**
     * @param buffered whether a stateful operator keeps each value until the next one of its lane arrives
     *                 (its rows are emitted from held acks, in later batches, into merged chunks)
     */
    LayoutHarness(
            int lanes,
            int shards,
            boolean deterministicBlocks,
            BatchConfig batch,
            ChunkConfig chunks,
            int maxPollRecords,
            int failurePercent,
            long seed,
            boolean buffered) {
        this.source = MemorySource.create(maxPollRecords);
        this.handle = source.handle();
        this.failures = new Random(seed);
        this.failurePercent = failurePercent;
        SinkDefinition sink = SinkDefinition.builder("layouts", shards, shard -> new Recorder(shard))
                .batch(batch)
                .chunks(chunks)
                .retry(new RetryConfig(0, Duration.ofMillis(1), Duration.ofMillis(5), 2.0, 0.0))
                .deterministicBlocks(deterministicBlocks)
                .build();
        PipelineConfig config =
                PipelineFixture.fastConfig("layouts").lanes(lanes).build();
        ChainFactory chains = buffered
                ? ctx -> Chains.from(ctx, PipelineFixture.strings())
                        .process("one-deep", new BufferingOperatorTest.OneDeepBuffer())
                        .sink(new EvolvingEncoder(requested), (value, meta, shardCount) -> spread(value, shardCount))
                : ctx -> Chains.from(ctx, PipelineFixture.strings())
                        .sink(new EvolvingEncoder(requested), (value, meta, shardCount) -> spread(value, shardCount));
        this.runtime = Pipeline.builder(config)
                .source(source)
                .sink(sink)
                .chains(chains)
                .meterRegistry(registry)
                .build();
    }

    /** Rows of one partition go to every shard: by the record's sequence number. */
    private static int spread(String value, int shardCount) {
        int i = Integer.parseInt(value.substring(value.indexOf(':') + 1));
        return Math.floorMod(i * 31 + value.charAt(0), shardCount);
    }

    void start() {
        runtime.start();
    }

    /** From now on the encoders ask for the next layout; returns it. */
    int flip() {
        return requested.incrementAndGet();
    }

    /** Pushes {@code "<partition>:<i>"}; returns its offset. */
    long push(int partition, int i) {
        return handle.push(partition, null, utf8(partition + ":" + i));
    }

    synchronized List<Write> writes() {
        return List.copyOf(writes);
    }

    /** The rows of the successful writes, with the layout of the batch that carried each, by row value. */
    Map<String, List<Integer>> delivered() {
        Map<String, List<Integer>> out = new HashMap<>();
        for (Write w : writes()) {
            if (w.ok()) {
                for (String row : w.rows()) {
                    out.computeIfAbsent(value(row), k -> new ArrayList<>()).add(w.layout());
                }
            }
        }
        return out;
    }

    static int layoutOf(String row) {
        return Integer.parseInt(row.substring(0, row.indexOf('|')));
    }

    static String value(String row) {
        return row.substring(row.indexOf('|') + 1);
    }

    double counter(String name) {
        return registry.find(name).counters().stream()
                .mapToDouble(c -> c.count())
                .sum();
    }

    @Override
    public void close() throws InterruptedException {
        runtime.shutdown();
        runtime.awaitTermination(PipelineFixture.WAIT);
    }

    /** A lane's encoder: writes the layout it has adopted into every row; asks for {@link #requested}. */
    static final class EvolvingEncoder implements RowEncoder<String> {
        private final AtomicInteger requested;
        private int layout;

        EvolvingEncoder(AtomicInteger requested) {
            this.requested = requested;
        }

        @Override
        public void encode(String value, RecordMeta meta, RowBuffer out) {
            out.writeString(layout + "|" + value);
        }

        @Override
        public int layout() {
            return layout;
        }

        @Override
        public int requestedLayout() {
            return requested.get();
        }

        @Override
        public void adoptLayout(int layout) {
            if (layout < this.layout) {
                throw new IllegalStateException("layout " + layout + " after " + this.layout);
            }
            this.layout = layout;
        }
    }

    private final class Recorder implements ShardWriter {
        private final int shard;

        Recorder(int shard) {
            this.shard = shard;
        }

        @Override
        public void write(SealedBatch batch) throws SinkWriteException {
            byte[] bytes = java.util.Arrays.copyOf(batch.bytes(), batch.byteCount());
            List<String> rows = TestEncoders.decodeStrings(bytes);
            boolean fail;
            synchronized (LayoutHarness.this) {
                fail = failurePercent > 0 && failures.nextInt(100) < failurePercent;
                writes.add(new Write(
                        shard, batch.sequence(), batch.attempt(), batch.layout(), batch.dedupToken(), rows, !fail));
            }
            if (fail) {
                throw SinkWriteException.transientFailure("injected failure of shard " + shard, null);
            }
        }
    }
}
