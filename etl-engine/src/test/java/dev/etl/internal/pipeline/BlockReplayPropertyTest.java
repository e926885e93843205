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
import dev.etl.source.CommitOffsets;
import dev.etl.source.CommittedPosition;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A seeded randomized harness of deterministic blocks against their defining property: whatever a first
 * owner sealed, recorded and wrote before it died — at any record, with commits that succeeded or failed
 * at random moments, blocks sealed by size, linger or pressure at random — a second owner that starts from
 * the last successful commit (offset and metadata) and seals its free blocks at other random moments
 * rebuilds every block the first one wrote beyond that offset, with the same token and the same bytes; so
 * deduplicating by token (or by bytes) keeps every row exactly once.
 *
 * <p>Runs {@link #SCENARIOS} scenarios from one seed (printed on failure; replay one with
 * {@code -Dblocks.replay.seed=...}). Rows are a function of the record (0–3 rows per record, a shard each),
 * as a deterministic chain makes them.
 */
class BlockReplayPropertyTest {
    private static final int SCENARIOS = 400;
    private static final int PARTITION = 3;
    private static final int SHARDS = 2;

    @Test
    void aReplayFromTheLastCommitRebuildsEveryBlockTheFirstOwnerWrote() {
        long seed = Long.getLong("blocks.replay.seed", System.nanoTime());
        Random seeds = new Random(seed);
        for (int scenario = 0; scenario < SCENARIOS; scenario++) {
            long scenarioSeed = seeds.nextLong();
            try {
                runScenario(scenarioSeed);
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError(
                        "scenario failed; replay with -Dblocks.replay.seed=" + seed + " (scenario " + scenario
                                + ", seed " + scenarioSeed + "): " + e.getMessage(),
                        e);
            }
        }
    }

    private void runScenario(long seed) {
        Random random = new Random(seed);
        long[] offsets = offsets(random, 50 + random.nextInt(400));
        int crashAt = random.nextInt(offsets.length + 1); // records processed by the first owner
        Owner first = new Owner(random, CommittedPosition.NONE);
        if (random.nextInt(4) == 0 && offsets[0] > 0) {
            first.emptyBatch(offsets[0]); // before any record, without a committed offset
        }
        first.process(offsets, 0, crashAt);
        // The first owner dies: what it committed last is what the second owner reads.
        Owner second = new Owner(random, first.committed);
        long start = first.committed.offset() < 0 ? 0 : first.committed.offset();
        int from = 0;
        while (from < offsets.length && offsets[from] < start) {
            from++;
        }
        second.process(offsets, from, offsets.length);
        if (random.nextBoolean()) {
            long end = offsets[offsets.length - 1] + 1 + random.nextInt(50);
            second.emptyBatch(end); // the last batch has no records
            second.runsToTheEnd(end);
        }
        second.finish();

        for (Map.Entry<String, byte[]> written : first.written.entrySet()) {
            long blockStart = first.blockStarts.get(written.getKey());
            if (blockStart < start) {
                continue; // committed: never replayed
            }
            assertThat(second.written)
                    .as(
                            "block %s of the first owner (from %d) is rebuilt; committed %s",
                            written.getKey(), blockStart, first.committed)
                    .containsKey(written.getKey());
            assertThat(second.written.get(written.getKey()))
                    .as("with the same bytes")
                    .isEqualTo(written.getValue());
        }
        Set<String> tokens = new HashSet<>();
        List<Long> rows = new ArrayList<>();
        for (Owner owner : List.of(first, second)) {
            for (Map.Entry<String, byte[]> block : owner.written.entrySet()) {
                if (tokens.add(block.getKey())) {
                    rows.addAll(rowsOf(block.getValue()));
                }
            }
        }
        List<Long> expected = new ArrayList<>();
        for (long offset : offsets) {
            for (int r = 0; r < rowsPerRecord(offset); r++) {
                expected.add(offset * 10 + r);
            }
        }
        assertThat(rows)
                .as("every row exactly once after dedup by token")
                .doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(expected);
    }

    private static long[] offsets(Random random, int n) {
        long[] offsets = new long[n];
        long offset = random.nextInt(3) == 0 ? 0 : random.nextInt(1000);
        for (int i = 0; i < n; i++) {
            offsets[i] = offset;
            offset += random.nextInt(8) == 0 ? 2 + random.nextInt(5) : 1; // compaction or markers leave gaps
        }
        return offsets;
    }

    private static int rowsPerRecord(long offset) {
        return (int) ((offset * 2654435761L >>> 7) % 4);
    }

    private static int shardOf(long offset, int row) {
        return (int) (((offset * 31 + row) * 2654435761L >>> 11) % SHARDS);
    }

    private static List<Long> rowsOf(byte[] bytes) {
        List<Long> rows = new ArrayList<>();
        for (int i = 0; i + 8 <= bytes.length; i += 8) {
            long v = 0;
            for (int b = 0; b < 8; b++) {
                v = (v << 8) | (bytes[i + b] & 0xff);
            }
            rows.add(v);
        }
        return rows;
    }

    /** One owner of the partition: a lane's blocks over one sink, driven record by record. */
    private static final class Owner implements ChunkSink {
        final Random random;
        final BlockChains chains;
        final LaneBlocks blocks;
        final AckQueue acks = new AckQueue();
        /** Token → bytes of every block handed to the sink (written at once: the worst case for replay). */
        final Map<String, byte[]> written = new HashMap<>();

        final Map<String, Long> blockStarts = new HashMap<>();
        CommittedPosition committed;
        long nowNs = 1_000_000_000L;
        long watermark = -1;
        long lastProcessedNext = -1;

        Owner(Random random, CommittedPosition start) {
            this.random = random;
            this.committed = start;
            BatchConfig batch =
                    new BatchConfig(1 + random.nextInt(12), 1 << 20, Duration.ofMillis(5 + random.nextInt(50)));
            SinkDefinition definition = SinkDefinition.builder("s", SHARDS, shard -> b -> {})
                    .batch(batch)
                    .chunks(new ChunkConfig(1 + random.nextInt(4), 1 << 20))
                    .deterministicBlocks(true)
                    .build();
            ChunkOutbox outbox = new ChunkOutbox(this, definition);
            this.chains = outbox.blocks();
            this.blocks = LaneBlocks.of(
                    new ChunkOutbox[] {outbox},
                    random.nextInt(4) == 0 ? 64 : Long.MAX_VALUE,
                    new SimpleMeterRegistry(),
                    "p",
                    0);
            blocks.partitionIdentities(p -> "t-" + p);
            blocks.assigned(PARTITION, 1, start);
        }

        void process(long[] offsets, int from, int to) {
            int i = from;
            while (i < to) {
                if (random.nextInt(6) == 0 && offsets[i] > lastProcessedNext) {
                    emptyBatch(offsets[i]); // a batch with no records up to the next record (a source's marker)
                }
                int batchEnd = Math.min(to, i + 1 + random.nextInt(20));
                AckRef ack = new AckRef(PARTITION, 1, i, acks);
                for (; i < batchEnd; i++) {
                    long offset = offsets[i];
                    blocks.beforeRecord(PARTITION, offset);
                    for (int r = 0; r < rowsPerRecord(offset); r++) {
                        int shard = shardOf(offset, r);
                        Chunk chunk = chains.chunk(shard, PARTITION);
                        long value = offset * 10 + r;
                        int mark = chunk.rows().length();
                        chunk.rows().writeLongBE(value);
                        chunk.addRow(ack);
                        encoded.add(value);
                        chains.rowAdded(shard, PARTITION, chunk.rows().length() - mark);
                    }
                    lastProcessedNext = offset + 1;
                }
                ack.release(true);
                // Sometimes far behind (the block may then linger ten lingers), sometimes caught up or unknown.
                int lag = random.nextInt(3);
                blocks.afterBatch(PARTITION, lastProcessedNext, lag == 0 ? 50_000 : lag == 1 ? 0 : -1);
                nowNs += random.nextInt(30) * 1_000_000L;
                blocks.tick(nowNs);
                maybeCommit(random.nextInt(3) == 0);
                if (random.nextBoolean()) {
                    chains.flush(); // hand off (write) what is released
                }
            }
        }

        /** A batch without records ending at {@code next} (e.g. a backfill item's end): acked at once. */
        void emptyBatch(long next) {
            blocks.afterBatch(PARTITION, next);
            lastProcessedNext = next;
            nowNs += random.nextInt(30) * 1_000_000L;
            blocks.tick(nowNs);
            maybeCommit(random.nextInt(3) == 0);
        }

        /**
         * Without a drain: once the linger has passed, the loop's seals and commits reach {@code end}, the
         * position after an empty last batch (nothing may stay uncommitted while the lane runs).
         */
        void runsToTheEnd(long end) {
            for (int round = 0; round < 1_000 && committed.offset() != end; round++) {
                nowNs += 100_000_000L;
                blocks.tick(nowNs);
                maybeCommit(false);
                chains.flush();
            }
            assertThat(committed.offset())
                    .as("committed without a drain after an empty last batch")
                    .isEqualTo(end);
        }

        /** A commit attempt: built from the blocks, then succeeding or (sometimes) failing. */
        void maybeCommit(boolean fail) {
            watermark = computeWatermark();
            LaneBlocks.BlockCommit commit = blocks.commit(p -> watermark);
            if (commit == null || fail) {
                return;
            }
            CommitOffsets offsets = commit.offsets();
            committed = new CommittedPosition(offsets.offset(0), offsets.metadata(0));
            blocks.committed(commit);
        }

        /**
         * Everything below the watermark is written: the first offset of a row not yet written, or
         * (when every processed row is written) the position after the last processed record.
         */
        long computeWatermark() {
            long lowest = Long.MAX_VALUE;
            for (long v : unwrittenRows()) {
                lowest = Math.min(lowest, v / 10);
            }
            return lowest == Long.MAX_VALUE ? lastProcessedNext : lowest;
        }

        final Set<Long> handed = new HashSet<>();
        final Set<Long> encoded = new HashSet<>();

        private Set<Long> unwrittenRows() {
            Set<Long> out = new HashSet<>(encoded);
            out.removeAll(handed);
            return out;
        }

        /** The drain: seal what is open, record it, and write everything (a refused hand-off is retried). */
        void finish() {
            blocks.sealAll(null);
            for (int round = 0; round < 1_000; round++) {
                maybeCommit(false);
                boolean done = chains.flush();
                if (done && !chains.hasWaiting()) {
                    maybeCommit(false);
                    return;
                }
            }
            throw new AssertionError("the drain never finished: " + blocks);
        }

        // ChunkSink: the owner's "sink" writes a handed-off block at once.

        @Override
        public int shardCount() {
            return SHARDS;
        }

        @Override
        public Chunk newChunk(int shard) {
            return new Chunk(shard, 64);
        }

        @Override
        public boolean tryHandOff(Chunk head) {
            if (random.nextInt(6) == 0) {
                return false; // a full queue: the block stays pending
            }
            java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
            for (Chunk c = head; c != null; c = c.next()) {
                bytes.write(c.rows().array(), 0, c.rows().length());
            }
            byte[] content = bytes.toByteArray();
            String token = head.isDeterministicBlock() ? head.blockToken() : "plain";
            written.putIfAbsent(token, content);
            blockStarts.putIfAbsent(
                    token,
                    rowsOf(content).isEmpty() ? Long.MAX_VALUE : rowsOf(content).get(0) / 10);
            handed.addAll(rowsOf(content));
            for (Chunk c = head; c != null; ) {
                Chunk following = c.next();
                c.succeedAcks();
                c = following;
            }
            return true;
        }
    }
}
