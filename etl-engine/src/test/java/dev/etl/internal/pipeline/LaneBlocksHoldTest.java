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
import org.junit.jupiter.api.Test;

/**
 * When a partition with deterministic blocks is paused because its metadata would list too many
 * uncommitted block ends, and what brings it back (issue 30 item 4): the pause must be one that commits
 * alone can end, since a paused partition reads no records.
 */
class LaneBlocksHoldTest {
    private static final int PARTITION = 0;
    private static final long LINGER_NS = Duration.ofMillis(100).toNanos();

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final AckQueue acks = new AckQueue();
    private BlockChains chains;
    private LaneBlocks blocks;
    private long nowNs = 1_000_000_000L;
    private long next;

    private void lane(CommittedPosition committed) {
        ChunkSink sink = new OneShardAcceptingSink();
        SinkDefinition definition = SinkDefinition.builder("s", 1, shard -> b -> {})
                .batch(new BatchConfig(1_000_000, 1 << 30, Duration.ofNanos(LINGER_NS)))
                .chunks(new ChunkConfig(1_000, 1 << 20))
                .deterministicBlocks(true)
                .build();
        ChunkOutbox outbox = new ChunkOutbox(sink, definition);
        chains = outbox.blocks();
        blocks = LaneBlocks.of(new ChunkOutbox[] {outbox}, Long.MAX_VALUE, meters, "p", 0);
        blocks.assigned(PARTITION, 1, committed);
        next = Math.max(0, committed.offset());
    }

    /** One batch of {@code records} records; with {@code rows}, each writes a row, else none (all held). */
    private void batch(int records, boolean rows) {
        AckRef ack = new AckRef(PARTITION, 1, next, acks);
        for (int i = 0; i < records; i++) {
            blocks.beforeRecord(PARTITION, next);
            if (rows) {
                Chunk chunk = chains.chunk(0, PARTITION);
                chunk.rows().writeLongLE(next);
                chunk.addRow(ack);
                chains.rowAdded(0, PARTITION, Long.BYTES);
            }
            next++;
        }
        ack.release(true);
        blocks.afterBatch(PARTITION, next, 0);
    }

    private void afterLinger() {
        nowNs += LINGER_NS;
        blocks.tick(nowNs);
    }

    @Test
    void aPartitionAssignedWithAFullListOfRecordedEndsIsNotPausedWhileItReplaysThem() {
        long[] ends = new long[BlockBoundaries.MAX_BOUNDARIES];
        for (int i = 0; i < ends.length; i++) {
            ends[i] = 1_000 + 10L * (i + 1);
        }
        lane(new CommittedPosition(1_000, BlockBoundaries.encode(1_000, ends, 0, ends.length)));

        batch(50, true); // passes 5 of the 256 recorded ends

        assertThat(blocks.tooManyPending(PARTITION))
                .as("replaying recorded ends adds none to the metadata: no reason to pause")
                .isFalse();
    }

    @Test
    void aPausedPartitionResumesOnCommitsAlone() {
        lane(CommittedPosition.NONE);
        for (int i = 0; i < BlockBoundaries.MAX_BOUNDARIES; i++) {
            batch(1, true);
            afterLinger(); // one block with rows per linger, none committed yet
        }
        assertThat(blocks.tooManyPending(PARTITION)).isTrue();
        assertThat(blocks.mayResume(PARTITION)).isFalse();

        // Every block written: the watermark is past them all, a commit records that.
        LaneBlocks.BlockCommit commit = blocks.commit(p -> next);
        assertThat(commit).isNotNull();
        blocks.committed(commit);

        assertThat(blocks.mayResume(PARTITION)).isTrue();
    }

    @Test
    void lingersWhoseRecordsAllLeaveThroughHeldAcksDoNotFillTheMetadata() {
        lane(CommittedPosition.NONE);
        batch(1, true);
        afterLinger(); // one block with a row
        for (int i = 0; i < 3 * BlockBoundaries.MAX_BOUNDARIES; i++) {
            batch(1, false); // a window holds the record: no row in any block
            afterLinger();
            // The window's held acks keep the watermark at the first block: nothing commits past it.
            LaneBlocks.BlockCommit commit = blocks.commit(p -> 0);
            if (commit != null) {
                blocks.committed(commit);
            }
        }
        assertThat(blocks.tooManyPending(PARTITION))
                .as("768 lingers of empty blocks: one end, extended, not 768")
                .isFalse();
        LaneBlocks.BlockCommit commit = blocks.commit(p -> next);
        assertThat(commit.offsets().offset(0))
                .as("and it still commits to the end")
                .isEqualTo(next);
    }
}
