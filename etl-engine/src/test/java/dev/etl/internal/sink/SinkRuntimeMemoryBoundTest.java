package dev.etl.internal.sink;

import static dev.etl.internal.sink.TestLane.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.error.SinkWriteException;
import dev.etl.internal.backpressure.InFlightBudget;
import dev.etl.internal.checkpoint.AckRef;
import dev.etl.sink.BatchConfig;
import dev.etl.sink.RetryConfig;
import dev.etl.sink.RowBuffer;
import dev.etl.sink.SealedBatch;
import dev.etl.sink.ShardWriter;
import dev.etl.sink.SinkDefinition;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The memory bound of the sink runtime is real: a burst of chunks of mixed sizes (small ones and ones
 * grown to ~1.2 MB, i.e. 2 MiB buffers) against a blocked shard never makes the runtime hold more
 * buffer capacity than {@code max-in-flight-bytes + shards × (2 × max-bytes + pool bytes per shard)}
 * (the pool's share: half the budget over the shards, at least 4 MiB)
 * (deterministic accounting of every buffer's capacity, with a stated margin for the racy snapshot),
 * and a coarse heap measurement after {@code System.gc()} agrees.
 */
class SinkRuntimeMemoryBoundTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final int SHARDS = 4;
    private static final long MAX_BATCH_BYTES = 1 << 20;
    private static final long BUDGET = 8L << 20;
    /** A snapshot taken while io threads move chunks may see a few of them twice (queue and pool). */
    private static final long SNAPSHOT_MARGIN = 2L * ChunkPool.MAX_POOLED_CHUNK_BYTES;
    /** The heap check is coarse: other allocations of the JVM and the test itself. */
    private static final long HEAP_MARGIN = 48L << 20;

    private final SinkFixture fx = new SinkFixture();

    @AfterEach
    void close() {
        fx.close();
    }

    /** Shard 0 blocks in its write until {@code release} opens; the others write at once. */
    private static final class BlockingWriter implements ShardWriter {
        final int shard;
        final CountDownLatch release;
        final AtomicLong rows;

        BlockingWriter(int shard, CountDownLatch release, AtomicLong rows) {
            this.shard = shard;
            this.release = release;
            this.rows = rows;
        }

        @Override
        public void write(SealedBatch batch) throws SinkWriteException {
            if (shard == 0) {
                try {
                    if (!release.await(60, TimeUnit.SECONDS)) {
                        throw SinkWriteException.transientFailure("test latch never opened", null);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw SinkWriteException.transientFailure("interrupted", e);
                }
            }
            rows.addAndGet(batch.rowCount());
        }

        @Override
        public boolean isHealthy() {
            return true;
        }

        @Override
        public void close() {}
    }

    private SinkDefinition definition(CountDownLatch release, AtomicLong rows) {
        return SinkDefinition.builder("orders", SHARDS, shard -> new BlockingWriter(shard, release, rows))
                .batch(new BatchConfig(10_000_000, MAX_BATCH_BYTES, Duration.ofMillis(2)))
                .retry(new RetryConfig(0, Duration.ofMillis(1), Duration.ofMillis(5), 2.0, 0.2))
                .queueCapacity(16)
                .build();
    }

    private static long usedHeapAfterGc(MemoryMXBean memory) throws InterruptedException {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
            used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
        }
        return used;
    }

    @Test
    void aBurstAgainstABlockedShardStaysWithinTheStatedBound() throws InterruptedException {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long baseline = usedHeapAfterGc(memory);
        fx.budget = new InFlightBudget(BUDGET);
        fx.ioThreads = 0;
        CountDownLatch release = new CountDownLatch(1);
        AtomicLong written = new AtomicLong();
        SinkRuntime sink = fx.start(definition(release, written));
        long bound = BUDGET + sink.retainedBytesBound();
        assertThat(sink.retainedBytesBound())
                .as("shards x (2 x max-bytes + pool)")
                .isEqualTo(SHARDS * (2 * MAX_BATCH_BYTES + ChunkPool.bytesPerShard(BUDGET, SHARDS)));

        Random random = new Random(7);
        TestLane lane = new TestLane(fx.acks, 0);
        long maxRetained = 0;
        long handedOff = 0;
        long refused = 0;
        for (int i = 0; i < 1200; i++) {
            int shard = random.nextInt(SHARDS);
            // Mostly poll-sized chunks, some grown past the chunk size (~1.2 MB in a 2 MiB buffer).
            int rows = random.nextInt(10) < 7 ? 1 + random.nextInt(500) : 100_000 + random.nextInt(50_000);
            Chunk chunk = lane.chunk(sink, shard, i * 1_000_000L, rows);
            if (sink.tryHandOff(chunk)) {
                handedOff++;
            } else {
                refused++;
                chunk.failAcks(); // a lane would keep it (outside the sink runtime); here it is dropped
            }
            if (i % 20 == 0) {
                maxRetained = Math.max(maxRetained, sink.retainedBufferBytes());
                assertThat(maxRetained)
                        .as("retained buffer capacity during the burst (bound %d + margin %d)", bound, SNAPSHOT_MARGIN)
                        .isLessThanOrEqualTo(bound + SNAPSHOT_MARGIN);
            }
        }
        assertThat(refused).as("the burst reached backpressure").isPositive();
        assertThat(handedOff).isPositive();
        // Let the unblocked shards settle, then measure at rest (shard 0 still blocked in its write).
        Thread.sleep(200);
        long retainedBlocked = sink.retainedBufferBytes();
        assertThat(retainedBlocked)
                .as("retained buffer capacity with shard 0 blocked")
                .isLessThanOrEqualTo(bound + SNAPSHOT_MARGIN);
        long heapGrowth = usedHeapAfterGc(memory) - baseline;
        assertThat(heapGrowth)
                .as("heap growth after GC with shard 0 blocked (bound %d + margin %d)", bound, HEAP_MARGIN)
                .isLessThanOrEqualTo(bound + HEAP_MARGIN);

        release.countDown();
        await("everything settled", TIMEOUT, sink::isIdle);
        assertThat(fx.budget.inFlightBytes()).isZero();
        assertThat(sink.retainedBufferBytes())
                .as("idle: only batch buffers and the pool")
                .isLessThanOrEqualTo(sink.retainedBytesBound());
        assertThat(lane.created()).allSatisfy(a -> assertThat(a.refCount()).isZero());
        assertThat(TestLane.drain(fx.acks)).filteredOn(AckRef::succeeded).hasSize((int) handedOff);
    }

    @Test
    void steadyStateReusesChunksAndBatchBuffers() {
        fx.budget = new InFlightBudget(BUDGET);
        fx.ioThreads = 1;
        SinkRuntime sink = fx.start(fx.definition(1, 1_000, Duration.ofMillis(1)));
        TestLane lane = new TestLane(fx.acks, 0);
        Set<Chunk> distinct = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int i = 0; i < 200; i++) {
            Chunk chunk = lane.chunk(sink, 0, i * 1_000L, 1 + i % 300);
            distinct.add(chunk);
            assertThat(sink.tryHandOff(chunk)).isTrue();
            await("chunk " + i + " written", TIMEOUT, sink::isIdle);
        }
        assertThat(distinct)
                .as("chunks are recycled, not allocated per hand-off")
                .hasSizeLessThanOrEqualTo(2);
        assertThat(fx.budget.inFlightBytes()).isZero();
        assertThat(sink.retainedBufferBytes()).isLessThanOrEqualTo(sink.retainedBytesBound());
    }

    /**
     * A deterministic block hands its chunks back a block at a time (the whole chain is merged, then
     * recycled), and the lanes fill the next block from them: the pool must keep a block's worth, not a
     * fixed few MiB, or most chunks are allocated and grown again for every block (humongous arrays in a
     * small-region heap). Here a 20 MiB burst of ~470 KB chunks on one shard comes back to the lane as the
     * same chunk objects.
     */
    @Test
    void aBlocksWorthOfReturnedChunksIsKeptForTheNextBlock() {
        long budget = 64L << 20;
        fx.budget = new InFlightBudget(budget);
        fx.ioThreads = 1;
        SinkRuntime sink = fx.start(fx.definition(1, 10_000_000, Duration.ofMillis(1)));
        TestLane lane = new TestLane(fx.acks, 0);
        int chunksPerBlock = 40; // 40 x 512 KiB buffers = 20 MiB: five times the old fixed 4 MiB per shard
        Set<Chunk> distinct = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int block = 0; block < 5; block++) {
            // The lane fills the whole block before any of it is written, as a deterministic block's chain.
            Chunk[] chain = new Chunk[chunksPerBlock];
            for (int i = 0; i < chunksPerBlock; i++) {
                chain[i] = lane.chunk(sink, 0, (block * chunksPerBlock + i) * 100_000L, 60_000);
                assertThat(chain[i].rows().capacity()).as("480,000 bytes").isEqualTo(512 * 1024);
                distinct.add(chain[i]);
            }
            for (Chunk chunk : chain) {
                await("a chunk of block " + block + " accepted", TIMEOUT, () -> sink.tryHandOff(chunk));
            }
            await("block " + block + " written", TIMEOUT, sink::isIdle);
        }
        assertThat(distinct)
                .as("every block after the first is filled from the chunks the one before returned")
                .hasSize(chunksPerBlock);
        assertThat(fx.budget.inFlightBytes()).isZero();
        assertThat(sink.retainedBufferBytes()).isLessThanOrEqualTo(sink.retainedBytesBound());
    }

    @Test
    void thePoolKeepsAtMostItsShareOfTheBudgetPerShard() {
        assertThat(ChunkPool.bytesPerShard(256L << 20, 2)).isEqualTo(64L << 20);
        assertThat(ChunkPool.bytesPerShard(8L << 20, 4))
                .as("the floor")
                .isEqualTo(ChunkPool.MIN_POOLED_BYTES_PER_SHARD);
        ChunkPool pool = new ChunkPool(2, 8L << 20);
        Chunk[] grown = new Chunk[20];
        for (int i = 0; i < grown.length; i++) {
            grown[i] = pool.take(1);
            grown[i].rows().writeBytes(new byte[1 << 20]); // a buffer of exactly 1 MiB
        }
        for (Chunk chunk : grown) {
            pool.recycle(chunk);
        }
        assertThat(pool.pooledBytes()).as("8 of the 20 one-MiB buffers kept").isEqualTo(8L << 20);
        Chunk huge = new Chunk(0, 16);
        huge.rows().writeBytes(new byte[3 << 20]);
        pool.recycle(huge);
        assertThat(pool.pooledBytes()).as("a buffer over 2 MiB is never kept").isEqualTo(8L << 20);
        int kept = 0;
        for (int i = 0; i < 20; i++) {
            Chunk chunk = pool.take(1);
            if (chunk.rows().capacity() == 1 << 20) {
                kept++;
            }
        }
        assertThat(kept).isEqualTo(8);
        assertThat(pool.pooledBytes()).isZero();
    }

    @Test
    void aBatchBufferGrownForAnOversizedChunkIsNotKeptAndNormalGrowthStopsAtMaxBytes() {
        ShardBatch batch = new ShardBatch("orders", 0, 64 * 1024, 1 << 20);
        BatchAccumulator open = new BatchAccumulator(64 * 1024, 1 << 20);
        Chunk big = new Chunk(0, 16);
        big.rows().writeBytes(new byte[3 << 20]);
        big.addRow(new AckRef(0, 0, 0, new dev.etl.internal.checkpoint.AckQueue()));
        open.merge(big, 0);
        assertThat(open.bufferCapacity())
                .as("grown to exactly the oversized chunk")
                .isEqualTo(3 << 20);
        batch.sealFrom(open, 1);
        batch.settle(true);
        batch.clear();
        assertThat(batch.bufferCapacity()).as("dropped once settled").isEqualTo(64 * 1024);

        RowBuffer buffer = new RowBuffer(64 * 1024, 1_000_000);
        for (int i = 0; i < 9; i++) {
            buffer.writeBytes(new byte[100_000]); // 128 KiB, 256 KiB, 512 KiB, then the cap instead of 1 MiB
        }
        assertThat(buffer.capacity()).as("doubling stops at the cap").isEqualTo(1_000_000);
    }
}
