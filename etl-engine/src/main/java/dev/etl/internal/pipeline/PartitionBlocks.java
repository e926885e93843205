package dev.etl.internal.pipeline;

import java.util.Arrays;

/**
 * Where one partition's deterministic blocks begin and end, as seen by its lane: the open block, the
 * sealed blocks beyond the committed offset (whose ends are, or are about to be, recorded in the
 * commit metadata), and the boundaries a previous owner recorded that a replay must seal at again.
 *
 * <p>Positions are offsets: a block {@code [start, end)} holds the rows of the records with offsets in
 * that range (a record's rows never straddle two blocks). The committed offset is always a boundary, so
 * a replay starts exactly at the start of a block. Invariants (after every call):
 * <ul>
 *   <li>{@code commitPoint <= sealed[0] < sealed[1] < ... <= blockStart <= position};</li>
 *   <li>the first {@code recorded} sealed ends are durable in committed metadata (a prefix): a block may
 *       be written only once its end is recorded;</li>
 *   <li>every replay boundary is {@code > blockStart}, ascending, and was recorded by an earlier owner.</li>
 * </ul>
 * Confined to the lane thread; plain fields, allocation only when the arrays grow (per block, never
 * per record).
 */
public final class PartitionBlocks {
    final int partition;
    final int epoch;
    /** Start of the open block, or -1 until the first record (no committed offset). */
    long blockStart = -1;
    /** Offset after the last record processed, or -1. */
    long position = -1;
    /** Clock of the open block's first record, or -1 while the open block has no record. */
    long openedNs = -1;
    /** The open block reached a size limit: seal it at the next record boundary. */
    boolean due;
    /** The partition's last batch reported a backlog: its open block may linger longer to fill. */
    boolean behind;
    /** The last committed offset, a boundary (-1: none yet). */
    long commitPoint = -1;
    /** The metadata last committed with {@link #commitPoint} (null: none). */
    String committedMetadata;

    private long[] sealed = new long[8];
    /** Whether the sealed block ending at {@code sealed[i]} held no rows in any sink (it is never written). */
    private boolean[] sealedEmpty = new boolean[8];

    private int sealedCount;
    private int recorded;
    private long[] replay;
    private int replayIndex;

    PartitionBlocks(int partition, int epoch, long committedOffset, String committedMetadata) {
        this.partition = partition;
        this.epoch = epoch;
        if (committedOffset >= 0) {
            this.commitPoint = committedOffset;
            this.blockStart = committedOffset;
            this.position = committedOffset;
            this.committedMetadata = committedMetadata;
            this.replay = BlockBoundaries.decode(committedMetadata, committedOffset);
        } else {
            this.replay = new long[0];
        }
    }

    /** Called before the record at {@code offset} enters the chain; true when the block start was unknown. */
    boolean startIfUnknown(long offset) {
        if (blockStart >= 0) {
            return false;
        }
        blockStart = offset;
        position = offset;
        commitPoint = offset; // nothing before the first record was read: committable as is
        return true;
    }

    /**
     * The source delivered {@code offset} below the open block's start (it reset its position, e.g.
     * after the committed offset fell out of retention and {@code auto.offset.reset} chose an earlier
     * one): start afresh there, forgetting the recorded boundaries (a replay of what they covered may
     * then duplicate, never lose).
     */
    void restartAt(long offset) {
        blockStart = offset;
        position = offset;
        commitPoint = offset;
        committedMetadata = null;
        sealedCount = 0;
        recorded = 0;
        replay = new long[0];
        replayIndex = 0;
        openedNs = -1;
        due = false;
    }

    /** The next boundary a previous owner recorded, or {@link Long#MAX_VALUE} when none is left. */
    long nextReplayBoundary() {
        return replayIndex < replay.length ? replay[replayIndex] : Long.MAX_VALUE;
    }

    /** Replay boundaries not yet reached. */
    int replayRemaining() {
        return replay.length - replayIndex;
    }

    /** Seals the open block at {@code end}, a block with rows; see {@link #seal(long, boolean, boolean)}. */
    void seal(long end, boolean alreadyRecorded) {
        seal(end, alreadyRecorded, false);
    }

    /**
     * Seals the open block at {@code end} ({@code > blockStart}); {@code alreadyRecorded} when {@code end}
     * is the next replay boundary (it is durable already: the block may be written at once); {@code empty}
     * when it holds no rows in any sink.
     *
     * <p>An empty block freely sealed right after another empty one extends it instead of adding an end:
     * neither is ever written, so no replay needs the end between them (a replay that seals there, from an
     * older commit's metadata, also builds two empty blocks), and a partition whose rows all leave through
     * held acks (a window: its rows go to merged batches) seals one empty block per linger while its
     * committed offset waits for the window: those ends would otherwise fill the metadata
     * ({@link BlockBoundaries#MAX_BOUNDARIES}) and pause the partition (issue 30 item 4). Extending a
     * recorded end makes it unrecorded again, so the next boundary commit records the new one.
     */
    void seal(long end, boolean alreadyRecorded, boolean empty) {
        if (end <= blockStart) {
            throw new IllegalStateException(
                    "partition " + partition + ": block end " + end + " not after its start " + blockStart);
        }
        if (alreadyRecorded) {
            if (end != nextReplayBoundary()) {
                throw new IllegalStateException("partition " + partition + ": " + end + " is not the next replay "
                        + "boundary " + nextReplayBoundary());
            }
            if (recorded != sealedCount) {
                throw new IllegalStateException(
                        "partition " + partition + ": a replay boundary after an unrecorded one");
            }
            replayIndex++;
        }
        if (empty && !alreadyRecorded && sealedCount > 0 && sealedEmpty[sealedCount - 1]) {
            sealed[sealedCount - 1] = end;
            recorded = Math.min(recorded, sealedCount - 1);
        } else {
            if (sealedCount == sealed.length) {
                sealed = Arrays.copyOf(sealed, sealedCount * 2);
                sealedEmpty = Arrays.copyOf(sealedEmpty, sealedCount * 2);
            }
            sealedEmpty[sealedCount] = empty;
            sealed[sealedCount++] = end;
            if (alreadyRecorded) {
                recorded = sealedCount;
            }
        }
        blockStart = end;
        if (position < end) {
            position = end;
        }
        openedNs = -1;
        due = false;
    }

    int sealedCount() {
        return sealedCount;
    }

    long sealedEnd(int i) {
        return sealed[i];
    }

    /** Sealed ends not yet recorded. */
    int unrecorded() {
        return sealedCount - recorded;
    }

    /** The highest recorded block end, or {@link #commitPoint} when none is. */
    long recordedUpTo() {
        return recorded > 0 ? sealed[recorded - 1] : commitPoint;
    }

    /**
     * The offset to commit given the checkpointer's watermark (every record below it is written or
     * dropped): the highest boundary at or below it, never below the last commit. A watermark inside a
     * block commits that block's start: the replay rebuilds the whole block.
     */
    long commitOffsetFor(long watermark) {
        long point = commitPoint;
        for (int i = 0; i < sealedCount && sealed[i] <= watermark; i++) {
            point = sealed[i];
        }
        return point;
    }

    /**
     * The metadata to commit with {@code commitOffset}: every sealed end above it and every replay
     * boundary not yet reached (both recorded or about to be); null when there are none.
     */
    String metadataFor(long commitOffset) {
        int from = 0;
        while (from < sealedCount && sealed[from] <= commitOffset) {
            from++;
        }
        int replayLeft = replay.length - replayIndex;
        if (replayLeft == 0) {
            return BlockBoundaries.encode(commitOffset, sealed, from, sealedCount);
        }
        long[] all = new long[sealedCount - from + replayLeft];
        System.arraycopy(sealed, from, all, 0, sealedCount - from);
        System.arraycopy(replay, replayIndex, all, sealedCount - from, replayLeft);
        return BlockBoundaries.encode(commitOffset, all, 0, all.length);
    }

    /** The highest sealed end included in metadata built now (what a successful commit records). */
    long highestSealed() {
        return sealedCount > 0 ? sealed[sealedCount - 1] : -1;
    }

    /**
     * A commit of {@code offset} with {@code metadata} succeeded, and it listed every sealed end up to
     * {@code recordedThrough}: those are durable, the ends at or below {@code offset} are forgotten.
     */
    void committed(long offset, String metadata, long recordedThrough) {
        int newRecorded = 0;
        while (newRecorded < sealedCount && sealed[newRecorded] <= recordedThrough) {
            newRecorded++;
        }
        recorded = Math.max(recorded, newRecorded);
        if (offset > commitPoint || (offset == commitPoint && !java.util.Objects.equals(metadata, committedMetadata))) {
            commitPoint = Math.max(commitPoint, offset);
            committedMetadata = metadata;
        }
        int drop = 0;
        while (drop < sealedCount && sealed[drop] <= commitPoint) {
            drop++;
        }
        if (drop > 0) {
            System.arraycopy(sealed, drop, sealed, 0, sealedCount - drop);
            System.arraycopy(sealedEmpty, drop, sealedEmpty, 0, sealedCount - drop);
            sealedCount -= drop;
            recorded = Math.max(0, recorded - drop);
        }
    }

    @Override
    public String toString() {
        return "PartitionBlocks[" + partition + " commit=" + commitPoint + " start=" + blockStart + " position="
                + position + " sealed=" + Arrays.toString(Arrays.copyOf(sealed, sealedCount)) + " recorded=" + recorded
                + " replay=" + Arrays.toString(Arrays.copyOfRange(replay, replayIndex, replay.length)) + "]";
    }
}
