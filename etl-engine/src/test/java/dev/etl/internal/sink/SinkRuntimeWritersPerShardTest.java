package dev.etl.internal.sink;

import static dev.etl.internal.sink.TestLane.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.error.SinkWriteException;
import dev.etl.internal.checkpoint.AckRef;
import dev.etl.sink.BatchConfig;
import dev.etl.sink.ChunkConfig;
import dev.etl.sink.RetryConfig;
import dev.etl.sink.SealedBatch;
import dev.etl.sink.ShardWriter;
import dev.etl.sink.SinkDefinition;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A shard with several writers ({@link SinkDefinition#writersPerShard()}): blocks of different partitions are
 * written at the same time, a partition's blocks one after another and in the order they were sealed, merged
 * chunks by the writer of their lane; and, over seeded random runs against the model "every row once, each
 * partition's blocks in seal order", nothing is lost, doubled or reordered.
 */
class SinkRuntimeWritersPerShardTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private final SinkFixture fx = new SinkFixture();

    @AfterEach
    void close() {
        fx.close();
    }

    /** A writer recording each block's first row (partition, offset) and how many writes overlap. */
    static final class OverlapWriter implements ShardWriter {
        final List<long[]> written = new CopyOnWriteArrayList<>();
        final List<Long> sequences = new CopyOnWriteArrayList<>();
        final AtomicInteger inFlight = new AtomicInteger();
        final AtomicInteger maxInFlight = new AtomicInteger();
        /** Per partition and shard. */
        final Map<Long, AtomicInteger> inFlightPerPartition = new ConcurrentHashMap<>();

        final AtomicInteger maxPerPartition = new AtomicInteger();
        volatile CountDownLatch gate = new CountDownLatch(0);
        volatile SplittableRandom delays;

        @Override
        public void write(SealedBatch batch) throws SinkWriteException {
            ByteBuffer rows =
                    ByteBuffer.wrap(batch.bytes(), 0, batch.byteCount()).order(ByteOrder.LITTLE_ENDIAN);
            long first = rows.getLong(0);
            long partition = ((first >>> 32) << 8) | batch.shard(); // a partition's writes to one shard
            sequences.add(batch.sequence());
            int now = inFlight.incrementAndGet();
            maxInFlight.accumulateAndGet(now, Math::max);
            AtomicInteger mine = inFlightPerPartition.computeIfAbsent(partition, p -> new AtomicInteger());
            maxPerPartition.accumulateAndGet(mine.incrementAndGet(), Math::max);
            try {
                if (!gate.await(30, TimeUnit.SECONDS)) {
                    throw SinkWriteException.transientFailure("test gate never opened", null);
                }
                SplittableRandom random = delays;
                if (random != null) {
                    long micros;
                    synchronized (this) {
                        micros = random.nextLong(0, 1_500);
                    }
                    TimeUnit.MICROSECONDS.sleep(micros);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw SinkWriteException.transientFailure("interrupted", e);
            } finally {
                mine.decrementAndGet();
                inFlight.decrementAndGet();
            }
            long[] values = new long[batch.rowCount()];
            for (int i = 0; i < values.length; i++) {
                values[i] = rows.getLong(i * Long.BYTES);
            }
            written.add(values);
        }
    }

    /** A writer whose writes wait for {@code gate}, on a thread per writer. */
    private OverlapWriter gatedWriter(CountDownLatch gate) {
        OverlapWriter writer = new OverlapWriter();
        writer.gate = gate;
        fx.ioThreads = 0;
        return writer;
    }

    private SinkDefinition definition(OverlapWriter writer, int shards, int writersPerShard, boolean blocks) {
        return SinkDefinition.builder("orders", shards, shard -> writer)
                .chunks(new ChunkConfig(4, 1 << 20))
                .batch(new BatchConfig(1_000, 1 << 20, blocks ? Duration.ofHours(1) : Duration.ZERO))
                .retry(new RetryConfig(0, Duration.ofMillis(1), Duration.ofMillis(5), 2.0, 0.2))
                .queueCapacity(8)
                .deterministicBlocks(blocks)
                .writersPerShard(writersPerShard)
                .build();
    }

    private static void addBlock(BlockChains blocks, int partition, long start, long end, int shards, AckRef ack) {
        for (long offset = start; offset < end; offset++) {
            int shard = (int) (offset % shards);
            Chunk chunk = blocks.chunk(shard, partition);
            chunk.rows().writeLongLE(((long) partition << 32) | offset);
            chunk.addRows(ack, 1, partition, offset);
            blocks.rowAdded(shard, partition, Long.BYTES);
        }
        blocks.seal(partition, start, end, "orders-" + partition);
        blocks.release(partition, end);
    }

    @Test
    void blocksOfTwoPartitionsAreWrittenToOneShardAtTheSameTime() {
        CountDownLatch gate = new CountDownLatch(1);
        OverlapWriter writer = gatedWriter(gate);
        SinkDefinition definition = definition(writer, 1, 2, true);
        SinkRuntime sink = fx.start(definition);
        BlockChains blocks = new BlockChains(sink, definition);
        AckRef ack = new AckRef(0, 0, 0, fx.acks);
        addBlock(blocks, 0, 0, 3, 1, ack);
        addBlock(blocks, 1, 0, 3, 1, ack);
        assertThat(blocks.flush()).isTrue();

        await("both blocks inside a write at once", TIMEOUT, () -> writer.inFlight.get() == 2);
        gate.countDown();
        ack.release(true);
        await("written and settled", TIMEOUT, () -> writer.written.size() == 2 && sink.isIdle());
        assertThat(TestLane.drain(fx.acks))
                .singleElement()
                .satisfies(a -> assertThat(a.succeeded()).isTrue());
    }

    @Test
    void aBatchNumberNamesOneBatchOfTheShardWhicheverWriterWroteIt() {
        // SealedBatch.sequence() is per shard, as the log lines ("shard 0: write of batch 3") read it
        OverlapWriter writer = gatedWriter(new CountDownLatch(0));
        SinkDefinition definition = definition(writer, 1, 2, true);
        SinkRuntime sink = fx.start(definition);
        BlockChains blocks = new BlockChains(sink, definition);
        AckRef ack = new AckRef(0, 0, 0, fx.acks);
        for (int partition = 0; partition < 4; partition++) { // partitions 0 and 2 to one writer, 1 and 3 to the other
            addBlock(blocks, partition, 0, 2, 1, ack);
        }
        assertThat(blocks.flush()).isTrue();
        ack.release(true);

        await("written and settled", TIMEOUT, () -> writer.written.size() == 4 && sink.isIdle());
        assertThat(writer.sequences).containsExactlyInAnyOrder(1L, 2L, 3L, 4L);
    }

    @Test
    void aPartitionsNextBlockWaitsForItsEarlierOne() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        OverlapWriter writer = gatedWriter(gate);
        SinkDefinition definition = definition(writer, 1, 4, true);
        SinkRuntime sink = fx.start(definition);
        BlockChains blocks = new BlockChains(sink, definition);
        AckRef ack = new AckRef(0, 0, 0, fx.acks);
        addBlock(blocks, 5, 0, 2, 1, ack);
        addBlock(blocks, 5, 2, 4, 1, ack);
        addBlock(blocks, 5, 4, 6, 1, ack);
        assertThat(blocks.flush()).isTrue();

        await("the first block inside its write", TIMEOUT, () -> writer.inFlight.get() == 1);
        Thread.sleep(200); // time for a second writer to take a later block, if it could
        assertThat(writer.inFlight.get())
                .as("one write of partition 5 at a time")
                .isEqualTo(1);
        gate.countDown();
        ack.release(true);
        await("written and settled", TIMEOUT, () -> writer.written.size() == 3 && sink.isIdle());
        assertThat(writer.written).extracting(v -> v[0]).containsExactly(5L << 32, (5L << 32) | 2, (5L << 32) | 4);
        assertThat(writer.maxPerPartition.get()).isEqualTo(1);
    }

    @Test
    void withAThreadPerShardAStuckShardDoesNotDelayAnother() {
        CountDownLatch stuck = new CountDownLatch(1);
        List<Integer> writtenShards = new CopyOnWriteArrayList<>();
        fx.ioThreads = 2; // = shards: each shard's two writers share a thread of the shard's own
        SinkDefinition definition = SinkDefinition.builder("orders", 2, shard -> batch -> {
                    if (batch.shard() == 1) {
                        try {
                            stuck.await(30, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    writtenShards.add(batch.shard());
                })
                .chunks(new ChunkConfig(4, 1 << 20))
                .batch(new BatchConfig(1_000, 1 << 20, Duration.ofHours(1)))
                .deterministicBlocks(true)
                .writersPerShard(2)
                .build();
        SinkRuntime sink = fx.start(definition);
        BlockChains blocks = new BlockChains(sink, definition);
        AckRef ack = new AckRef(0, 0, 0, fx.acks);
        addBlock(blocks, 0, 0, 2, 2, ack); // offsets 0 and 1: a row for each shard
        addBlock(blocks, 1, 0, 2, 2, ack);
        assertThat(blocks.flush()).isTrue();
        await(
                "shard 0's blocks written while shard 1 is stuck",
                TIMEOUT,
                () -> writtenShards.stream().filter(s -> s == 0).count() == 2);
        assertThat(writtenShards).doesNotContain(1);
        stuck.countDown();
        ack.release(true);
        await("all written", TIMEOUT, () -> writtenShards.size() == 4 && sink.isIdle());
    }

    @Test
    void aWritersThreadKeepsShardsApartWhenThreadsAreAMultipleOfShards() {
        for (int shards = 1; shards <= 4; shards++) {
            for (int writers = 1; writers <= 4; writers++) {
                for (int threads = shards; threads <= shards * writers; threads += shards) {
                    java.util.Map<Integer, Integer> shardOfThread = new java.util.HashMap<>();
                    for (int shard = 0; shard < shards; shard++) {
                        for (int w = 0; w < writers; w++) {
                            int thread = SinkRuntime.threadOf(shard, w, shards, threads);
                            assertThat(thread).isBetween(0, threads - 1);
                            assertThat(shardOfThread.putIfAbsent(thread, shard))
                                    .as(
                                            "%d shards, %d writers, %d threads: thread %d",
                                            shards, writers, threads, thread)
                                    .isIn(null, shard);
                        }
                    }
                }
            }
        }
    }

    @Test
    void mergedChunksOfTwoLanesAreWrittenAtTheSameTime() {
        CountDownLatch gate = new CountDownLatch(1);
        OverlapWriter writer = gatedWriter(gate);
        SinkDefinition definition = definition(writer, 1, 2, false);
        SinkRuntime sink = fx.start(definition);
        AckRef ack = new AckRef(0, 0, 0, fx.acks);
        for (int lane = 0; lane < 2; lane++) {
            ChunkOutbox outbox = new ChunkOutbox(sink, definition, lane);
            for (int i = 0; i < 4; i++) {
                Chunk chunk = outbox.chunk(0);
                chunk.rows().writeLongLE(((long) lane << 32) | i);
                chunk.addRows(ack, 1, lane, i);
                outbox.rowAdded(0);
            }
        }
        await("the two lanes' chunks inside a write at once", TIMEOUT, () -> writer.inFlight.get() == 2);
        gate.countDown();
        ack.release(true);
        await("written and settled", TIMEOUT, () -> writer.written.size() == 2 && sink.isIdle());
    }

    /**
     * Seeded random runs: partitions seal blocks of random sizes over two shards, offered as a lane would (a
     * refused hand-off offered again at the next flush), writes take random time. The model: every row
     * written exactly once, and each partition's rows of a shard in offset order.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void everyRowOnceAndEachPartitionInOrder(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int shards = 2;
        int writersPerShard = 1 + random.nextInt(4);
        int partitions = 1 + random.nextInt(8);
        OverlapWriter writer = new OverlapWriter();
        writer.delays = random.split();
        fx.ioThreads = random.nextBoolean() ? 0 : 1 + random.nextInt(4);
        fx.budget = new dev.etl.internal.backpressure.InFlightBudget(64 << 10); // small: refusals happen
        SinkDefinition definition = definition(writer, shards, writersPerShard, true);
        SinkRuntime sink = fx.start(definition);
        BlockChains blocks = new BlockChains(sink, definition);
        AckRef ack = new AckRef(0, 0, 0, fx.acks);
        long[] next = new long[partitions];
        long rows = 0;
        for (int b = 0; b < 200; b++) {
            int partition = random.nextInt(partitions);
            int size = 1 + random.nextInt(12);
            addBlock(blocks, partition, next[partition], next[partition] + size, shards, ack);
            next[partition] += size;
            rows += size;
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (!blocks.flush() && random.nextInt(4) == 0) { // sometimes wait for room, sometimes go on
                assertThat(System.nanoTime()).as("room within the timeout").isLessThan(deadline);
                Thread.onSpinWait();
            }
        }
        await("every block handed off", TIMEOUT, blocks::flush);
        long expected = rows;
        await(
                "every row written",
                TIMEOUT,
                () -> writer.written.stream().mapToInt(v -> v.length).sum() == expected && sink.isIdle());

        Map<Long, List<Long>> perPartitionAndShard = new TreeMap<>();
        List<Long> all = new ArrayList<>();
        for (long[] values : writer.written) {
            for (long v : values) {
                long partition = v >>> 32;
                long offset = v & 0xffff_ffffL;
                perPartitionAndShard
                        .computeIfAbsent(partition * shards + offset % shards, k -> new ArrayList<>())
                        .add(offset);
                all.add(v);
            }
        }
        assertThat(all).as("every row once").doesNotHaveDuplicates().hasSize((int) rows);
        perPartitionAndShard.forEach((key, offsets) -> assertThat(offsets)
                .as("partition %d, shard %d: in offset order", key / shards, key % shards)
                .isSorted());
        assertThat(writer.maxPerPartition.get())
                .as("never two writes of one partition to one shard at once")
                .isEqualTo(1);
        ack.release(true);
    }
}
