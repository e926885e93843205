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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A partition whose batches leave a backlog keeps its deterministic block open up to ten lingers, so
 * a catch-up writes full blocks; caught up (or with a backlog the source does not know) the block
 * seals one linger after its first record, as before.
 */
class LaneBlocksBacklogTest {
    private static final int PARTITION = 0;
    private static final long LINGER_NS = Duration.ofMillis(100).toNanos();

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final AckQueue acks = new AckQueue();
    private BlockChains chains;
    private LaneBlocks blocks;
    private long nowNs = 1_000_000_000L;
    private long next;

    private void lane(int maxRows) {
        ChunkSink sink = new OneShardAcceptingSink();
        SinkDefinition definition = SinkDefinition.builder("s", 1, shard -> b -> {})
                .batch(new BatchConfig(maxRows, 1 << 30, Duration.ofNanos(LINGER_NS)))
                .chunks(new ChunkConfig(1_000, 1 << 20))
                .deterministicBlocks(true)
                .build();
        ChunkOutbox outbox = new ChunkOutbox(sink, definition);
        chains = outbox.blocks();
        blocks = LaneBlocks.of(new ChunkOutbox[] {outbox}, Long.MAX_VALUE, meters, "p", 0);
        blocks.assigned(PARTITION, 1, CommittedPosition.NONE);
    }

    /** One batch of {@code records} one-row records, then the source's backlog after it. */
    private void batch(int records, long backlog) {
        AckRef ack = new AckRef(PARTITION, 1, next, acks);
        blocks.tick(nowNs);
        for (int i = 0; i < records; i++) {
            blocks.beforeRecord(PARTITION, next);
            Chunk chunk = chains.chunk(0, PARTITION);
            chunk.rows().writeLongLE(next);
            chunk.addRow(ack);
            chains.rowAdded(0, PARTITION, Long.BYTES);
            next++;
        }
        ack.release(true);
        blocks.afterBatch(PARTITION, next, backlog);
    }

    private double sealed() {
        return meters.get("etl.checkpoint.sealed.blocks").counter().count();
    }

    private void after(long ns) {
        nowNs += ns;
        blocks.tick(nowNs);
    }

    @ParameterizedTest(name = "backlog {0}")
    @ValueSource(longs = {-1, 0, LaneBlocks.BACKLOG_RECORDS - 1})
    void caughtUpTheBlockSealsOneLingerAfterItsFirstRecord(long backlog) {
        lane(1_000_000);
        batch(10, backlog);
        after(LINGER_NS - 1);
        assertThat(sealed()).isZero();
        after(1);
        assertThat(sealed()).isEqualTo(1);
    }

    @Test
    void behindTheBlockLingersUpToTenLingers() {
        lane(1_000_000);
        batch(10, LaneBlocks.BACKLOG_RECORDS);
        after(LINGER_NS);
        assertThat(sealed()).as("one linger: still filling").isZero();
        batch(10, 50_000);
        after(LaneBlocks.BACKLOG_LINGERS * LINGER_NS - LINGER_NS - 1);
        assertThat(sealed()).isZero();
        after(1);
        assertThat(sealed()).as("ten lingers after its first record").isEqualTo(1);
    }

    @Test
    void behindTheBlockStillSealsAtItsSizeLimit() {
        lane(25);
        batch(30, 50_000);
        after(1);
        assertThat(sealed())
                .as("due by size: sealed at the next loop iteration")
                .isEqualTo(1);
    }

    @Test
    void theLingerDeadlineIsWhenTheOpenBlockIsDue() {
        lane(1_000_000);
        assertThat(blocks.nextLingerDeadlineNs()).as("nothing open").isEqualTo(Long.MAX_VALUE);
        long opened = nowNs;
        batch(10, 0);
        assertThat(blocks.nextLingerDeadlineNs())
                .as("the lane's poll waits no longer than this")
                .isEqualTo(opened + LINGER_NS);
        after(LINGER_NS);
        assertThat(sealed()).isEqualTo(1);
        assertThat(blocks.nextLingerDeadlineNs()).as("sealed: nothing open").isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void behindTheLingerDeadlineIsTenLingers() {
        lane(1_000_000);
        long opened = nowNs;
        batch(10, LaneBlocks.BACKLOG_RECORDS);
        assertThat(blocks.nextLingerDeadlineNs()).isEqualTo(opened + LaneBlocks.BACKLOG_LINGERS * LINGER_NS);
        batch(5, 0);
        assertThat(blocks.nextLingerDeadlineNs())
                .as("caught up: due one linger after its first record, i.e. now")
                .isEqualTo(opened + LINGER_NS);
    }

    @Test
    void catchingUpRestoresTheLinger() {
        lane(1_000_000);
        batch(10, 50_000);
        after(2 * LINGER_NS);
        assertThat(sealed()).isZero();
        batch(5, 0); // the backlog is gone: the open block is overdue by the normal linger
        after(0);
        assertThat(sealed()).isEqualTo(1);
    }
}
