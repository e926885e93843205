package dev.etl.internal.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.internal.checkpoint.AckQueue;
import dev.etl.internal.checkpoint.AckRef;
import dev.etl.internal.sink.BlockChains;
import dev.etl.internal.sink.Chunk;
import dev.etl.internal.sink.ChunkOutbox;
import dev.etl.internal.sink.ChunkSink;
import dev.etl.sink.BatchConfig;
import dev.etl.sink.ChunkConfig;
import dev.etl.sink.SinkDefinition;
import dev.etl.source.CommittedPosition;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * When a lane's open blocks hold more than its share of the in-flight budget, it seals the largest one
 * (until the rest fit), not all of them: blocks of partitions that fill at the same rate are staggered,
 * and a block is about twice as large as sealing all at once would make it, for the same memory.
 * Sealed blocks not yet handed off (waiting for their commit, or refused by a full sink) do not count:
 * sealing them again would only make smaller inserts.
 */
class LaneBlocksPressureTest {
    private static final int PARTITIONS = 4;
    private static final int ROW_BYTES = Long.BYTES;
    private static final long LIMIT = 4_000 * ROW_BYTES;

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final AckQueue acks = new AckQueue();
    private final long[] next = new long[PARTITIONS];
    private BlockChains chains;
    private LaneBlocks blocks;
    private long nowNs = 1_000_000_000L;

    @BeforeEach
    void lane() {
        ChunkSink sink = new OneShardAcceptingSink();
        // Size and linger far away: only the lane's memory share seals.
        SinkDefinition definition = SinkDefinition.builder("s", 1, shard -> b -> {})
                .batch(new BatchConfig(Integer.MAX_VALUE, 1L << 40, Duration.ofDays(1)))
                .chunks(new ChunkConfig(1_000, 1 << 20))
                .deterministicBlocks(true)
                .build();
        ChunkOutbox outbox = new ChunkOutbox(sink, definition);
        chains = outbox.blocks();
        blocks = LaneBlocks.of(new ChunkOutbox[] {outbox}, LIMIT, meters, "p", 0);
        for (int p = 0; p < PARTITIONS; p++) {
            blocks.assigned(p, 1, CommittedPosition.NONE);
        }
    }

    private void batch(int partition, int records) {
        AckRef ack = new AckRef(partition, 1, next[partition], acks);
        for (int i = 0; i < records; i++) {
            blocks.beforeRecord(partition, next[partition]);
            Chunk chunk = chains.chunk(0, partition);
            chunk.rows().writeLongLE(next[partition]);
            chunk.addRow(ack);
            chains.rowAdded(0, partition, ROW_BYTES);
            next[partition]++;
        }
        ack.release(true);
        blocks.afterBatch(partition, next[partition], 50_000);
    }

    private long openBytes() {
        long open = 0;
        for (int p = 0; p < PARTITIONS; p++) {
            open += chains.openBytes(p);
        }
        return open;
    }

    private double sealed() {
        return meters.get("etl.checkpoint.sealed.blocks").counter().count();
    }

    /** One loop iteration; returns the sizes of the blocks it sealed. */
    private List<Long> tick() {
        long[] before = new long[PARTITIONS];
        for (int p = 0; p < PARTITIONS; p++) {
            before[p] = chains.openBytes(p);
        }
        nowNs += 1_000_000;
        blocks.tick(nowNs);
        List<Long> sealedSizes = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            if (chains.openBytes(p) == 0 && before[p] > 0) {
                sealedSizes.add(before[p]);
            }
        }
        return sealedSizes;
    }

    @Test
    void underTheShareNothingSeals() {
        for (int p = 0; p < PARTITIONS; p++) {
            batch(p, (int) (LIMIT / ROW_BYTES / PARTITIONS));
        }
        assertThat(tick()).isEmpty();
        assertThat(openBytes()).isEqualTo(LIMIT);
    }

    @Test
    void overTheShareOnlyTheLargestBlockSeals() {
        batch(0, 1_000);
        batch(1, 1_500);
        batch(2, 900);
        batch(3, 700); // 4,100 rows: 100 over
        assertThat(tick()).containsExactly(1_500L * ROW_BYTES);
        assertThat(chains.openBytes(0)).isEqualTo(1_000L * ROW_BYTES);
        assertThat(chains.openBytes(2)).isEqualTo(900L * ROW_BYTES);
    }

    @Test
    void theLargestSealUntilTheRestFit() {
        batch(0, 3_000);
        batch(1, 2_500);
        batch(2, 2_000); // 7,500 rows: 3,500 over
        assertThat(tick()).containsExactlyInAnyOrder(3_000L * ROW_BYTES, 2_500L * ROW_BYTES);
        assertThat(openBytes()).isLessThanOrEqualTo(LIMIT);
    }

    @Test
    void sealedBlocksWaitingForTheirCommitDoNotCount() {
        batch(0, 2_000);
        batch(1, 2_100); // over: partition 1 seals, and waits for a commit (none comes)
        assertThat(tick()).hasSize(1);
        assertThat(chains.heldBytes()).isEqualTo(4_100L * ROW_BYTES);
        batch(2, 1_000);
        assertThat(tick())
                .as("held (open + waiting) is over the share, but the open blocks are not")
                .isEmpty();
    }

    @Test
    void partitionsFillingAtTheSameRateGetStaggeredBlocksTwiceTheSizeOfSealingAll() {
        Random random = new Random(42);
        List<Long> sizes = new ArrayList<>();
        long maxOpen = 0;
        for (int round = 0; round < 2_000; round++) {
            for (int p = 0; p < PARTITIONS; p++) {
                batch(p, 20 + random.nextInt(21));
            }
            sizes.addAll(tick());
            maxOpen = Math.max(maxOpen, openBytes());
        }
        assertThat(maxOpen).as("open blocks after each loop iteration").isLessThanOrEqualTo(LIMIT);
        List<Long> steady = sizes.subList(sizes.size() / 4, sizes.size());
        double mean = steady.stream().mapToLong(Long::longValue).average().orElseThrow();
        // Sealing all four at the limit would make blocks of LIMIT / 4; staggered, about LIMIT / 2.
        assertThat(mean).as("mean block bytes over %d blocks", steady.size()).isGreaterThan(0.4 * LIMIT);
        assertThat(sealed()).isEqualTo(sizes.size());
    }
}
