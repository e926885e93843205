package dev.etl.internal.sink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.internal.checkpoint.AckQueue;
import dev.etl.internal.checkpoint.AckRef;
import dev.etl.sink.BatchConfig;
import dev.etl.sink.ChunkConfig;
import dev.etl.sink.SinkDefinition;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A lane's deterministic blocks take about their content in memory (issue 30 item 6). A block's rows are
 * a chain of chunks; a chunk used to close at the chunk size, right after its buffer had doubled past it,
 * so every closed chunk held twice its content and a lane's blocks about twice what the lane counted
 * against its share of the in-flight budget: the documented memory bound did not hold during a sink
 * outage, when blocks wait. Now a chunk closes when its buffer is nearly full: over random row sizes,
 * partitions, shards and seals, with chunks recycled through the pool as in a running lane (so buffers
 * of every size come back), every chunk but a chain's last has less than one row of unused capacity, and
 * what the lane holds is its content plus, per chain, at most one pooled buffer.
 */
class BlockChainsMemoryTest {
    private static final int SHARDS = 2;
    private static final int PARTITIONS = 4;
    private static final int MAX_ROW = 2_000;

    /** A sink whose hand-offs are "written" at once and whose chunks come back through a free list. */
    private static final class RecyclingSink implements ChunkSink {
        private final ArrayDeque<Chunk>[] free;

        @SuppressWarnings({"unchecked", "rawtypes"}) // a generic array of deques
        RecyclingSink() {
            free = new ArrayDeque[SHARDS];
            for (int i = 0; i < SHARDS; i++) {
                free[i] = new ArrayDeque<>();
            }
        }

        @Override
        public int shardCount() {
            return SHARDS;
        }

        @Override
        public Chunk newChunk(int shard) {
            Chunk recycled = free[shard].poll();
            return recycled != null ? recycled : new Chunk(shard, ChunkPool.INITIAL_CHUNK_BYTES);
        }

        @Override
        public boolean tryHandOff(Chunk head) {
            for (Chunk c = head; c != null; ) {
                Chunk next = c.next;
                c.succeedAcks();
                if (c.rows().capacity() <= ChunkPool.MAX_POOLED_CHUNK_BYTES) {
                    free[c.shard()].add(c);
                }
                c = next;
            }
            return true;
        }
    }

    @Test
    void closedChunksAreNearlyFullSoBlocksTakeAboutTheirContent() {
        long seed = Long.getLong("blocks.memory.seed", System.nanoTime());
        Random random = new Random(seed);
        SinkDefinition definition = SinkDefinition.builder("s", SHARDS, shard -> b -> {})
                .chunks(new ChunkConfig(8_192, 64 * 1024))
                .batch(new BatchConfig(Integer.MAX_VALUE, 1L << 40, Duration.ofDays(1)))
                .deterministicBlocks(true)
                .build();
        RecyclingSink sink = new RecyclingSink();
        BlockChains blocks = new BlockChains(sink, definition);
        AckQueue acks = new AckQueue();
        long[] start = new long[PARTITIONS];
        long[] next = new long[PARTITIONS];
        byte[] payload = new byte[MAX_ROW];
        for (int step = 0; step < 20_000; step++) {
            int partition = random.nextInt(PARTITIONS);
            if (random.nextInt(200) == 0 && next[partition] > start[partition]) {
                blocks.seal(partition, start[partition], next[partition], "p-" + partition);
                blocks.release(partition, next[partition]);
                if (random.nextBoolean()) {
                    blocks.flush(); // written and recycled; otherwise it waits (a refusing sink)
                }
                start[partition] = next[partition];
                continue;
            }
            int shard = random.nextInt(SHARDS);
            int rowBytes = 10 + random.nextInt(MAX_ROW - 10);
            AckRef ack = new AckRef(partition, 1, next[partition], acks);
            Chunk chunk = blocks.chunk(shard, partition);
            chunk.rows().writeBytes(payload, 0, rowBytes);
            chunk.addRows(ack, 1, partition, next[partition]);
            blocks.rowAdded(shard, partition, rowBytes);
            ack.release(true);
            next[partition]++;

            int at = step;
            AtomicLong content = new AtomicLong();
            AtomicLong capacity = new AtomicLong();
            long[] tails = {0};
            blocks.forEachHeld((c, tail) -> {
                content.addAndGet(c.byteCount());
                capacity.addAndGet(c.rows().capacity());
                if (tail) {
                    tails[0]++;
                } else {
                    assertThat(c.rows().capacity() - c.byteCount())
                            .as("unused capacity of a closed chunk (seed %d, step %d)", seed, at)
                            .isLessThan(MAX_ROW);
                }
            });
            assertThat(capacity.get())
                    .as("held capacity against content + one pooled buffer per chain's last chunk (seed %d)", seed)
                    .isLessThanOrEqualTo(content.get() + tails[0] * ChunkPool.MAX_POOLED_CHUNK_BYTES + MAX_ROW * 64L);
        }
    }
}
