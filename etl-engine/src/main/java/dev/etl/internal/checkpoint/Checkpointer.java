package dev.etl.internal.checkpoint;

import java.util.Objects;
import java.util.function.LongSupplier;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2LongHashMap;

/**
 * Per-lane tracker that turns acknowledged batches into committable watermarks.
 *
 * <p>For every assigned partition it keeps a ring of outstanding batch sequence numbers
 * ({@link PartitionWatermark}). Batches are registered in offset order as the lane pushes them;
 * acks may arrive in any order. The watermark of a partition is the offset after the last batch of
 * the longest contiguous acknowledged-successful prefix, so it never passes a batch that is
 * unacknowledged or failed: a failed batch stalls its partition (for the rest of its epoch; the
 * next assignment replays from the last commit).
 *
 * <p>Every {@link #assign} starts a new epoch for the partition, strictly greater than any epoch it
 * had before in this checkpointer; acks carrying another epoch, and acks for partitions not
 * assigned, are ignored (and counted in {@link #staleAcks()}), so data of a revoked assignment can
 * never move the watermark of a later one. Epochs come from one counter per checkpointer, so they
 * keep increasing across {@link #remove} and re-assign.
 *
 * <p>Synchronous and thread-confined: only the owning lane thread calls it, so it needs no locks
 * or fences. Acks from other threads arrive through the lane's {@link AckQueue}, whose hand-off
 * publishes them to the lane. {@link #register} and {@link #ack} are O(1) amortized (a pop of
 * {@code k} batches costs {@code k}) and allocation-free in steady state; the ring of a partition
 * doubles when full, which is rare and allocates.
 */
public final class Checkpointer {
    /** Initial ring capacity per partition; backpressure normally keeps outstanding batches below it. */
    public static final int DEFAULT_RING_CAPACITY = 256;

    private final LongSupplier nanoClock;
    private final int initialRingCapacity;
    private final Int2ObjectHashMap<PartitionWatermark> partitions = new Int2ObjectHashMap<>();
    private int lastEpoch;
    private long staleAcks;

    /**
     * Creates a checkpointer with rings of {@link #DEFAULT_RING_CAPACITY}.
     *
     * @param nanoClock monotonic nanosecond clock for watermark ages (e.g. {@code System::nanoTime})
     */
    public Checkpointer(LongSupplier nanoClock) {
        this(nanoClock, DEFAULT_RING_CAPACITY);
    }

    /**
     * Creates a checkpointer whose per-partition rings start at {@code initialRingCapacity} batches
     * (rounded up to a power of two) and double when full.
     *
     * @param nanoClock monotonic nanosecond clock for watermark ages (e.g. {@code System::nanoTime})
     * @param initialRingCapacity initial outstanding batches per partition, in {@code [1, 2^30]}
     */
    public Checkpointer(LongSupplier nanoClock, int initialRingCapacity) {
        if (initialRingCapacity < 1 || initialRingCapacity > 1 << 30) {
            throw new IllegalArgumentException("initialRingCapacity must be in [1, 2^30]: " + initialRingCapacity);
        }
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        this.initialRingCapacity = initialRingCapacity;
    }

    /**
     * Starts tracking {@code partition} with a fresh epoch (also after a remove); returns the epoch.
     * The new epoch is greater than every epoch handed out before by this checkpointer. Assigning an
     * already assigned partition also starts a new epoch and discards its state (outstanding batches,
     * watermark and last committed offset reset to none / -1).
     *
     * @throws IllegalStateException if the epochs of this checkpointer are exhausted (2^31 - 1 assigns)
     */
    public int assign(int partition) {
        if (lastEpoch == Integer.MAX_VALUE) {
            throw new IllegalStateException("epochs exhausted assigning partition " + partition);
        }
        int epoch = ++lastEpoch;
        partitions.put(partition, new PartitionWatermark(partition, epoch, initialRingCapacity));
        return epoch;
    }

    /**
     * Registers the next batch of {@code partition}, covering offsets up to {@code nextOffset - 1};
     * returns its sequence number (0 for the first batch of an epoch, then consecutive).
     * {@code nextOffset} must be greater than that of the previous batch of the epoch, and not
     * negative. The batch's registration time, for {@link #watermarkAgeNs}, is read from the clock.
     *
     * @throws IllegalStateException if the partition is not assigned
     * @throws IllegalArgumentException if {@code nextOffset} does not exceed the previous batch's
     */
    public long register(int partition, long nextOffset) {
        PartitionWatermark state = partitions.get(partition);
        if (state == null) {
            throw new IllegalStateException(
                    "register on unassigned partition " + partition + " (next offset " + nextOffset + ")");
        }
        return state.register(nextOffset, nanoClock.getAsLong());
    }

    /**
     * Applies a completed ack. Ignored and counted in {@link #staleAcks()}, never thrown, when the
     * partition is not assigned, {@code epoch} is not its current epoch, {@code seq} is not
     * outstanding, or {@code seq} was already acknowledged (a duplicate). Otherwise marks the batch
     * and, if it is now part of the acknowledged-successful prefix, advances the watermark over it.
     */
    public void ack(int partition, int epoch, long seq, boolean success) {
        PartitionWatermark state = partitions.get(partition);
        if (state == null || state.epoch() != epoch || !state.ack(seq, success)) {
            staleAcks++;
        }
    }

    /**
     * Applies a completed {@link AckRef}; see {@link #ack(int, int, long, boolean)}. Reads its fields
     * and keeps no reference to it, so the lane's {@link AckQueue} may recycle it once this returns.
     */
    public void ack(AckRef ack) {
        ack(ack.partition(), ack.epoch(), ack.seq(), ack.succeeded());
    }

    /** Current epoch of an assigned partition, or -1 when it is not assigned. */
    public int epoch(int partition) {
        PartitionWatermark state = partitions.get(partition);
        return state == null ? -1 : state.epoch();
    }

    /** Whether the partition is assigned. */
    public boolean isAssigned(int partition) {
        return partitions.containsKey(partition);
    }

    /**
     * The offset to commit for the partition: the next offset of the last batch of the longest
     * contiguous successfully acknowledged prefix of this epoch (-1 when no batch has been popped yet
     * or the partition is not assigned).
     */
    public long watermark(int partition) {
        PartitionWatermark state = partitions.get(partition);
        return state == null ? -1 : state.watermark();
    }

    /** Number of registered batches not yet popped (pending, failed, or acked behind a gap); 0 if not assigned. */
    public int outstanding(int partition) {
        PartitionWatermark state = partitions.get(partition);
        return state == null ? 0 : state.outstanding();
    }

    /** Total outstanding batches over all partitions. */
    public int outstanding() {
        int total = 0;
        for (PartitionWatermark state : partitions.values()) {
            total += state.outstanding();
        }
        return total;
    }

    /**
     * Whether the oldest outstanding batch of the partition has failed (the partition is stalled
     * until it is assigned again); false if not assigned.
     */
    public boolean isFailedAtHead(int partition) {
        PartitionWatermark state = partitions.get(partition);
        return state != null && state.isFailedAtHead();
    }

    /**
     * Nanos (by the clock) since the oldest outstanding batch of the partition was registered, or 0
     * when nothing is outstanding or the partition is not assigned: the watermark's age,
     * {@code etl_checkpoint_watermark_age_seconds}.
     */
    public long watermarkAgeNs(int partition) {
        PartitionWatermark state = partitions.get(partition);
        return state == null ? 0 : state.watermarkAgeNs(nanoClock.getAsLong());
    }

    /**
     * A stateful operator started ({@code held}) or stopped keeping the data of the batch {@code ack}
     * stands for; for a group ack (an emission of held data), of every batch it covers. Stopping restarts
     * those batches' stall clocks ({@link #stallAgeNs}). Stale acks are ignored. Lane thread; not per
     * record (once per batch a holder keeps, and per emission).
     */
    public void operatorHold(AckRef ack, boolean held) {
        int parents = ack.parentCount();
        if (parents > 0) {
            for (int i = 0; i < parents; i++) {
                operatorHold(ack.parent(i), held);
            }
            return;
        }
        PartitionWatermark state = partitions.get(ack.partition());
        if (state != null && state.epoch() == ack.epoch()) {
            state.operatorHold(ack.seq(), held ? 1 : -1, held ? 0 : nanoClock.getAsLong());
        }
    }

    /** Whether a stateful operator keeps the data of the partition's oldest outstanding batch. */
    public boolean isHeadHeldByOperator(int partition) {
        PartitionWatermark state = partitions.get(partition);
        return state != null && state.isHeadHeldByOperator();
    }

    /** Sequence number of the partition's oldest outstanding batch, or -1 (none, or not assigned). */
    public long headSeq(int partition) {
        PartitionWatermark state = partitions.get(partition);
        return state == null ? -1 : state.headSeq();
    }

    /**
     * Nanos since the partition's oldest outstanding batch was registered, or last left a stateful
     * operator's hold: how long its data has waited for a sink (0 when nothing is outstanding). What
     * {@code stalled-fail-after} is compared with, where {@link #watermarkAgeNs} is what the
     * watermark-age metric shows.
     */
    public long stallAgeNs(int partition) {
        PartitionWatermark state = partitions.get(partition);
        return state == null ? 0 : state.stallAgeNs(nanoClock.getAsLong());
    }

    /** The largest {@link #stallAgeNs} over all partitions, 0 when none is assigned. */
    public long maxStallAgeNs() {
        if (partitions.isEmpty()) {
            return 0;
        }
        long nowNs = nanoClock.getAsLong();
        long max = 0;
        for (PartitionWatermark state : partitions.values()) {
            max = Math.max(max, state.stallAgeNs(nowNs));
        }
        return max;
    }

    /** The largest {@link #watermarkAgeNs} over all partitions, 0 when none is assigned. */
    public long maxWatermarkAgeNs() {
        if (partitions.isEmpty()) {
            return 0;
        }
        long nowNs = nanoClock.getAsLong();
        long max = 0;
        for (PartitionWatermark state : partitions.values()) {
            max = Math.max(max, state.watermarkAgeNs(nowNs));
        }
        return max;
    }

    /**
     * Puts into {@code out} (partition → watermark) every partition whose watermark is ahead of what
     * was last {@link #markCommitted marked committed}; returns how many. Does not clear {@code out}
     * first and does not mark anything committed: call {@link #markCommitted} once the commit
     * succeeded. Watermarks put are never negative, so {@code out} needs a negative missing value.
     */
    public int collectCommittable(Long2LongHashMap out) {
        int count = 0;
        for (PartitionWatermark state : partitions.values()) {
            if (state.isCommittable()) {
                out.put(state.partition(), state.watermark());
                count++;
            }
        }
        return count;
    }

    /**
     * Records that {@code offset} was committed for the partition; the last committed offset only
     * moves forward. Ignored if the partition is not assigned.
     */
    public void markCommitted(int partition, long offset) {
        PartitionWatermark state = partitions.get(partition);
        if (state != null) {
            state.markCommitted(offset);
        }
    }

    /** The last offset marked committed for the partition in this epoch, or -1 (also when not assigned). */
    public long lastCommitted(int partition) {
        PartitionWatermark state = partitions.get(partition);
        return state == null ? -1 : state.lastCommitted();
    }

    /** Stops tracking the partition (revoke or lost); later acks for its epoch are stale. No-op if not assigned. */
    public void remove(int partition) {
        partitions.remove(partition);
    }

    /** The assigned partitions, in no particular order (allocates; not for the hot path). */
    public int[] partitions() {
        int[] result = new int[partitions.size()];
        int i = 0;
        for (PartitionWatermark state : partitions.values()) {
            result[i++] = state.partition();
        }
        return result;
    }

    /**
     * Count of acks ignored: stale epoch, unassigned partition, sequence not outstanding, or
     * duplicate of an already applied ack.
     */
    public long staleAcks() {
        return staleAcks;
    }

    @Override
    public String toString() {
        return "Checkpointer[partitions=" + partitions.size() + ", lastEpoch=" + lastEpoch + ", staleAcks=" + staleAcks
                + "]";
    }
}
