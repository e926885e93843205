package dev.etl.internal.pipeline;

import dev.etl.internal.sink.BlockChains;
import dev.etl.internal.sink.ChunkOutbox;
import dev.etl.source.CommitOffsets;
import dev.etl.source.CommittedPosition;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.IntFunction;
import java.util.function.IntToLongFunction;
import org.agrona.collections.Int2ObjectHashMap;

/**
 * One lane's deterministic blocks: decides where each partition's blocks end, makes those ends durable
 * in the commit metadata before any block may be written, and seals a replayed partition at exactly the
 * ends a previous owner recorded — so that a replay after a crash, a restart or a rebalance rebuilds the
 * same inserts, which a deduplicating table drops.
 *
 * <p>A block is sealed (at a record boundary) when one of its sinks' rows for a shard reach that sink's
 * batch {@code max-rows} or {@code max-bytes}, when its first record is older than the shortest batch
 * {@code linger} (ten lingers while the partition is behind: its last batch left at least
 * {@link #BACKLOG_RECORDS} records waiting, so a catch-up writes full blocks, not one linger's worth),
 * when the lane holds more than its share of the in-flight budget in open blocks (the largest block
 * first, until the rest fit), and
 * before every drain (revoke, shutdown). A replayed partition is sealed where the metadata says, whatever
 * the sizes. Sealing moves the block's chains aside ({@link BlockChains#seal}); only when a commit whose
 * metadata lists the block's end has succeeded are they released to the sinks. The committed offset is
 * always a block boundary at or below the checkpointer's watermark, so a replay starts at a block's start.
 *
 * <p>Confined to the lane thread. Per record: a field compare or two ({@link #beforeRecord}); the rest
 * runs per batch, per loop iteration or per block.
 */
public final class LaneBlocks implements BlockChains.DueListener {
    /** Boundary commits are at most this frequent: seals of the same moment share one commit. */
    static final long BOUNDARY_COMMIT_SPACING_NS = 20_000_000L;
    /**
     * A partition with at least this many records waiting after its batch is behind: its open block
     * lingers up to {@link #BACKLOG_LINGERS} lingers to fill (catching up, a one-linger block is a
     * small insert, and small inserts are what limits a catch-up).
     */
    static final long BACKLOG_RECORDS = 10_000;

    static final int BACKLOG_LINGERS = 10;

    private final BlockChains[] sinks;
    private final long lingerNs;
    /** The linger of a partition that is {@link PartitionBlocks#behind behind}. */
    private final long backlogLingerNs;

    private final long heldLimitBytes;
    private final Int2ObjectHashMap<PartitionBlocks> partitions = new Int2ObjectHashMap<>();
    private final Counter replayedBlocks;
    private final Counter sealedBlocks;
    /** The partitions' identities ({@link dev.etl.source.SourceLane#partitionIdentity}), part of block tokens. */
    private IntFunction<String> identities = p -> "partition-" + p;

    private int lastPartition = -1;
    private PartitionBlocks last;
    /** A seal is due somewhere (size or pressure): checked at the next record or loop iteration. */
    private boolean anyDue;
    /** The lane's clock as of its last batch or loop iteration (no clock read per record). */
    private long nowNs;

    private LaneBlocks(
            BlockChains[] sinks, long lingerNs, long heldLimitBytes, Counter sealedBlocks, Counter replayedBlocks) {
        this.sinks = sinks;
        this.lingerNs = lingerNs;
        this.backlogLingerNs =
                lingerNs > Long.MAX_VALUE / BACKLOG_LINGERS ? Long.MAX_VALUE : lingerNs * BACKLOG_LINGERS;
        this.heldLimitBytes = heldLimitBytes;
        this.replayedBlocks = replayedBlocks;
        this.sealedBlocks = sealedBlocks;
        for (BlockChains sink : sinks) {
            sink.dueListener(this);
        }
    }

    /**
     * The blocks of a lane whose outboxes include deterministic ones, or null when none does (the lane
     * then commits plain watermarks).
     *
     * @param heldLimitBytes open-block bytes the lane may hold before it seals the largest early
     */
    static LaneBlocks of(
            ChunkOutbox[] outboxes, long heldLimitBytes, MeterRegistry registry, String pipeline, int lane) {
        // Registered (at 0) whether or not a sink writes deterministic blocks: the dashboard's series exist.
        Counter replayed = Counter.builder("etl.checkpoint.replayed.blocks")
                .description("Blocks sealed at a boundary a previous owner recorded: a replay rebuilding the "
                        + "block it wrote (or may have written) before a crash, restart or rebalance")
                .tag("pipeline", pipeline)
                .tag("lane", Integer.toString(lane))
                .register(registry);
        Counter sealed = Counter.builder("etl.checkpoint.sealed.blocks")
                .description("Deterministic blocks sealed (one partition's offset range, all sinks and shards)")
                .tag("pipeline", pipeline)
                .tag("lane", Integer.toString(lane))
                .register(registry);
        int n = 0;
        long linger = Long.MAX_VALUE;
        for (ChunkOutbox outbox : outboxes) {
            if (outbox.blocks() != null) {
                n++;
                linger = Math.min(linger, outbox.definition().batch().linger().toNanos());
            }
        }
        if (n == 0) {
            return null;
        }
        BlockChains[] sinks = new BlockChains[n];
        int i = 0;
        for (ChunkOutbox outbox : outboxes) {
            if (outbox.blocks() != null) {
                sinks[i++] = outbox.blocks();
            }
        }
        return new LaneBlocks(sinks, linger, heldLimitBytes, sealed, replayed);
    }

    void partitionIdentities(IntFunction<String> identities) {
        this.identities = identities;
    }

    void clock(long nowNs) {
        this.nowNs = nowNs;
    }

    /** A new assignment of {@code partition}, starting at its committed position. */
    void assigned(int partition, int epoch, CommittedPosition committed) {
        PartitionBlocks blocks = new PartitionBlocks(partition, epoch, committed.offset(), committed.metadata());
        partitions.put(partition, blocks);
        if (lastPartition == partition) {
            last = blocks;
        }
    }

    /** {@code partition} left the lane: whatever it still holds is failed (it replays on its next owner). */
    int removed(int partition) {
        partitions.remove(partition);
        if (lastPartition == partition) {
            lastPartition = -1;
            last = null;
        }
        int givenUp = 0;
        for (BlockChains sink : sinks) {
            givenUp += sink.fail(partition);
        }
        return givenUp;
    }

    private PartitionBlocks blocks(int partition) {
        if (partition == lastPartition) {
            return last;
        }
        PartitionBlocks blocks = partitions.get(partition);
        lastPartition = partition;
        last = blocks;
        return blocks;
    }

    /**
     * The record at {@code offset} of {@code partition} is about to enter the chain: seals the open block
     * first when a recorded boundary is reached or a seal is due. Hot path.
     */
    void beforeRecord(int partition, long offset) {
        PartitionBlocks b = blocks(partition);
        if (b == null) {
            return;
        }
        if (offset < b.blockStart) {
            b.restartAt(offset);
        } else if (b.startIfUnknown(offset)) {
            // first record of a partition without a committed offset: blocks start here
        }
        while (offset >= b.nextReplayBoundary()) {
            seal(b, b.nextReplayBoundary(), true);
        }
        // While recorded boundaries remain, only they may end a block: a free seal in between would
        // build a block the previous owner never wrote.
        if (b.due && offset > b.blockStart && b.replayRemaining() == 0) {
            seal(b, offset, false);
        }
        if (b.openedNs < 0) {
            b.openedNs = nowNs;
        }
        b.position = offset + 1;
    }

    /** The batch of {@code partition} ended; the next record cannot be below {@code nextOffset}. */
    void afterBatch(int partition, long nextOffset) {
        afterBatch(partition, nextOffset, -1);
    }

    /**
     * Same as {@link #afterBatch(int, long)}, with the source's {@link dev.etl.source.PartitionBatch#backlog
     * backlog} after the batch: at least {@link #BACKLOG_RECORDS} waiting makes the open block linger
     * longer.
     */
    void afterBatch(int partition, long nextOffset, long backlog) {
        PartitionBlocks b = blocks(partition);
        if (b == null) {
            return;
        }
        b.behind = backlog >= BACKLOG_RECORDS;
        if (b.blockStart < 0) {
            // A batch without records (a source may end a unit of work with one, e.g. a backfill item
            // with no rows) and no committed offset: nothing before its end held a row, so blocks start
            // there and it is committable as is.
            b.startIfUnknown(nextOffset);
            return;
        }
        if (nextOffset > b.position) {
            b.position = nextOffset;
            if (b.openedNs < 0 && b.replayRemaining() == 0) {
                // The position moved past the last record without one (records the source skipped, an
                // empty batch): the linger still applies, so the open range is sealed and committed.
                b.openedNs = nowNs;
            }
        }
        sealReachedReplayBoundaries(b);
    }

    /**
     * Every record below a recorded boundary has been processed (the position is past it): seals there
     * now, rather than waiting for a record at or above it that may be long in coming (the last block a
     * previous owner recorded usually ends where the partition's data ended).
     */
    private void sealReachedReplayBoundaries(PartitionBlocks b) {
        while (b.position >= b.nextReplayBoundary() && b.nextReplayBoundary() > b.blockStart) {
            seal(b, b.nextReplayBoundary(), true);
        }
    }

    @Override
    public void sealDue(int partition) {
        PartitionBlocks b = partitions.get(partition);
        if (b != null) {
            b.due = true;
            anyDue = true;
        }
    }

    /** Bytes of the lane's open blocks, all sinks (sealed ones waiting for their commit or for room excluded). */
    private long openBytes() {
        long open = 0;
        for (BlockChains sink : sinks) {
            open += sink.openBytes();
        }
        return open;
    }

    private long openBytes(int partition) {
        long open = 0;
        for (BlockChains sink : sinks) {
            open += sink.openBytes(partition);
        }
        return open;
    }

    /**
     * Loop iteration: seals open blocks whose first record is older than the linger and those due by
     * size; then, while the lane's open blocks hold more than its share of the budget, the largest one.
     * Between batches, so every partition is at a record boundary (its position).
     *
     * <p>Largest first, not all at once: the lane's partitions fill their blocks at similar rates, so
     * sealing all of them at the limit makes every block {@code limit / partitions}; sealing the largest
     * staggers them, and the block sealed is about twice that, for the same memory. Sealing frees no
     * memory by itself (the bytes move to the sink, whose budget and queue bound them from there), so
     * blocks sealed but not yet handed off do not count: while a sink refuses one, the lane is paused
     * and its open blocks do not grow.
     */
    void tick(long nowNs) {
        this.nowNs = nowNs;
        boolean due = anyDue;
        anyDue = false;
        for (PartitionBlocks b : partitions.values()) {
            if (b.blockStart >= 0 && b.replayRemaining() > 0) {
                sealReachedReplayBoundaries(b);
            }
            if (!sealable(b)) {
                continue;
            }
            long linger = b.behind ? backlogLingerNs : lingerNs;
            if ((due && b.due) || (b.openedNs >= 0 && nowNs - b.openedNs >= linger)) {
                seal(b, b.position, false);
            }
        }
        long open = openBytes();
        while (open > heldLimitBytes) {
            PartitionBlocks largest = null;
            long largestBytes = 0;
            for (PartitionBlocks b : partitions.values()) {
                if (sealable(b)) {
                    long bytes = openBytes(b.partition);
                    if (bytes > largestBytes) {
                        largest = b;
                        largestBytes = bytes;
                    }
                }
            }
            if (largest == null) {
                return; // the rest is in blocks a recorded boundary ends further on
            }
            seal(largest, largest.position, false);
            open -= largestBytes;
        }
    }

    /**
     * When the next open block is due by its linger (lane clock), or {@link Long#MAX_VALUE} when none is
     * open: the lane's poll waits no longer, so a block is sealed on time rather than up to a poll timeout
     * (or a fetch) late. Per loop iteration.
     */
    long nextLingerDeadlineNs() {
        long next = Long.MAX_VALUE;
        for (PartitionBlocks b : partitions.values()) {
            if (b.openedNs >= 0 && sealable(b)) {
                long linger = b.behind ? backlogLingerNs : lingerNs;
                long due = linger > Long.MAX_VALUE - b.openedNs ? Long.MAX_VALUE : b.openedNs + linger;
                next = Math.min(next, due);
            }
        }
        return next;
    }

    /** Whether {@code b}'s open block may be sealed freely now (it has records, no recorded end ahead). */
    private static boolean sealable(PartitionBlocks b) {
        return b.blockStart >= 0 && b.position > b.blockStart && b.replayRemaining() == 0;
    }

    /**
     * Whether some partition's open block holds records and ends at a boundary a previous owner recorded
     * further on: it cannot be sealed early (a column layout switch waits until the replay has passed it).
     */
    boolean replayingOpenBlock() {
        for (PartitionBlocks b : partitions.values()) {
            if (b.blockStart >= 0 && b.position > b.blockStart && b.replayRemaining() > 0) {
                return true;
            }
        }
        return false;
    }

    /** Seals every open block of {@code partitions} (all assigned when null) at its position: before a drain. */
    void sealAll(int[] partitionIds) {
        if (partitionIds == null) {
            for (PartitionBlocks b : partitions.values()) {
                sealOpen(b);
            }
            return;
        }
        for (int partition : partitionIds) {
            PartitionBlocks b = partitions.get(partition);
            if (b != null) {
                sealOpen(b);
            }
        }
    }

    /**
     * Seals the open block at its position; a block that a previous owner's recorded boundary ends
     * further on cannot be sealed early (that would build a block it never wrote): its rows are failed
     * instead, so they replay, in the same block, on the partition's next owner or run.
     */
    private void sealOpen(PartitionBlocks b) {
        if (b.blockStart < 0 || b.position <= b.blockStart) {
            return;
        }
        if (b.replayRemaining() > 0) {
            for (BlockChains sink : sinks) {
                sink.failOpen(b.partition);
            }
            return;
        }
        seal(b, b.position, false);
    }

    private void seal(PartitionBlocks b, long end, boolean recorded) {
        long start = b.blockStart;
        String identity = identities.apply(b.partition);
        boolean rows = false;
        for (BlockChains sink : sinks) {
            rows |= sink.seal(b.partition, start, end, identity);
            if (recorded) {
                sink.release(b.partition, end);
            }
        }
        b.seal(end, recorded, !rows);
        sealedBlocks.increment();
        if (recorded) {
            replayedBlocks.increment();
        }
    }

    /**
     * Fails the sealed blocks of {@code partitions} (all when null) whose ends are not recorded: they may
     * never be written (a drain whose boundary commit failed), so their batches fail and replay instead of
     * being waited for.
     */
    void failUnrecorded(int[] partitionIds) {
        for (BlockChains sink : sinks) {
            if (partitionIds == null) {
                for (PartitionBlocks b : partitions.values()) {
                    sink.failWaiting(b.partition);
                }
            } else {
                for (int partition : partitionIds) {
                    sink.failWaiting(partition);
                }
            }
        }
    }

    /** Whether some sealed block end is not yet recorded (a boundary commit is needed before it is written). */
    boolean hasUnrecorded() {
        for (PartitionBlocks b : partitions.values()) {
            if (b.unrecorded() > 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether some partition's committed offset can move to a later block boundary (its blocks up to
     * there are written): committing it soon keeps the replay after a crash short, so the blocks a
     * replay rebuilds are recent ones (well inside the table's deduplication window).
     */
    boolean canAdvance(IntToLongFunction watermarks) {
        for (PartitionBlocks b : partitions.values()) {
            if (b.commitPoint >= 0
                    && b.sealedCount() > 0
                    && b.commitOffsetFor(watermarks.applyAsLong(b.partition)) > b.commitPoint) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code partition} has as many sealed, uncommitted blocks as the metadata may list. Only free
     * seals add ends beyond what the metadata held at assignment, and there are none while recorded
     * boundaries remain to be reached: so those are not counted. (They were, and a partition assigned with
     * 256 recorded boundaries whose first batch reached fewer than 128 of them was paused for good: a
     * paused partition reads no records, and only records move the replay along; issue 30 item 4.)
     */
    boolean tooManyPending(int partition) {
        PartitionBlocks b = partitions.get(partition);
        return b != null && b.replayRemaining() == 0 && b.sealedCount() >= BlockBoundaries.MAX_BOUNDARIES;
    }

    /**
     * Whether a partition paused for {@link #tooManyPending} may resume: down to half, by commits alone (a
     * paused partition reads nothing, so nothing else can bring it there).
     */
    boolean mayResume(int partition) {
        PartitionBlocks b = partitions.get(partition);
        return b == null || b.sealedCount() <= BlockBoundaries.MAX_BOUNDARIES / 2;
    }

    /**
     * What to commit now: for every partition whose committable boundary or metadata changed, the highest
     * block boundary at or below its watermark (the checkpointer's), with the sealed ends above it (and the
     * replay boundaries not yet reached) as metadata. Null when nothing changed.
     */
    BlockCommit commit(IntToLongFunction watermarks) {
        int n = partitions.size();
        CommitOffsets.Builder offsets = CommitOffsets.builder(n);
        long[] recordedThrough = new long[n];
        int[] epochs = new int[n];
        int i = 0;
        for (PartitionBlocks b : partitions.values()) {
            if (b.commitPoint < 0) {
                continue; // not a record yet and no committed offset: nothing to say
            }
            long offset = b.commitOffsetFor(watermarks.applyAsLong(b.partition));
            String metadata = b.metadataFor(offset);
            if (offset == b.commitPoint && java.util.Objects.equals(metadata, b.committedMetadata)) {
                continue;
            }
            offsets.add(b.partition, offset, metadata);

            recordedThrough[i] = b.highestSealed();
            epochs[i] = b.epoch;
            i++;
        }
        if (i == 0) {
            return null;
        }
        return new BlockCommit(offsets.build(), recordedThrough, epochs);
    }

    /**
     * {@code commit} is durable: the block ends it listed are recorded (their chains are released to the
     * sinks) and the boundaries at or below each committed offset are forgotten.
     */
    void committed(BlockCommit commit) {
        CommitOffsets offsets = commit.offsets();
        for (int i = 0; i < offsets.size(); i++) {
            PartitionBlocks b = partitions.get(offsets.partition(i));
            if (b == null || b.epoch != commit.epochs()[i]) {
                continue; // revoked, lost or re-assigned meanwhile
            }
            b.committed(offsets.offset(i), offsets.metadata(i), commit.recordedThrough()[i]);
            long recorded = b.recordedUpTo();
            for (BlockChains sink : sinks) {
                sink.release(b.partition, recorded);
            }
        }
    }

    /** A commit, with what it records per entry (the highest sealed end listed, and the epoch it was built in). */
    record BlockCommit(CommitOffsets offsets, long[] recordedThrough, int[] epochs) {}
}
