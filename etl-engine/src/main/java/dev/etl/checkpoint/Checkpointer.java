package dev.etl.checkpoint;

import java.util.function.LongSupplier;

import org.agrona.collections.Long2LongHashMap;

/**
 * Per-lane tracker that turns acknowledged batches into committable watermarks.
 *
 * <p>For every assigned partition it keeps a ring of outstanding batch sequence numbers
 * ({@link PartitionWatermark}). Batches are registered in offset order as the lane pushes them;
 * acks may arrive in any order. The watermark of a partition is the offset after the last batch of
 * the longest contiguous acknowledged-successful prefix, so it never passes a batch that is
 * unacknowledged or failed: a failed batch stalls its partition.
 *
 * <p>Every {@link #assign} starts a new epoch for the partition, strictly greater than any epoch it
 * had before in this checkpointer; acks carrying another epoch, and acks for partitions not
 * assigned, are ignored (and counted in {@link #staleAcks()}), so data of a revoked assignment can
 * never move the watermark of a later one.
 *
 * <p>Synchronous and thread-confined: only the owning lane thread calls it. Acks from other
 * threads arrive through the lane's {@link AckQueue}.
 */
public final class Checkpointer {
    public Checkpointer(LongSupplier nanoClock) {
        throw new UnsupportedOperationException("implemented in the checkpointer change");
    }

    /** Starts tracking {@code partition} with a fresh epoch (also after a remove); returns the epoch. */
    public int assign(int partition) {
        throw new UnsupportedOperationException();
    }

    /**
     * Registers the next batch of {@code partition}, covering offsets up to {@code nextOffset - 1};
     * returns its sequence number. {@code nextOffset} must be greater than that of the previous batch.
     *
     * @throws IllegalStateException if the partition is not assigned
     */
    public long register(int partition, long nextOffset) {
        throw new UnsupportedOperationException();
    }

    /** Applies a completed ack; stale epochs and unknown partitions are ignored and counted. */
    public void ack(int partition, int epoch, long seq, boolean success) {
        throw new UnsupportedOperationException();
    }

    /** Applies a completed {@link AckRef}. */
    public void ack(AckRef ack) {
        ack(ack.partition(), ack.epoch(), ack.seq(), ack.succeeded());
    }

    /** Current epoch of an assigned partition, or -1 when it is not assigned. */
    public int epoch(int partition) {
        throw new UnsupportedOperationException();
    }

    /** Whether the partition is assigned. */
    public boolean isAssigned(int partition) {
        throw new UnsupportedOperationException();
    }

    /** The offset to commit for the partition (-1 when no batch has been acknowledged yet). */
    public long watermark(int partition) {
        throw new UnsupportedOperationException();
    }

    /** Number of registered batches not yet popped (pending or failed). */
    public int outstanding(int partition) {
        throw new UnsupportedOperationException();
    }

    /** Total outstanding batches over all partitions. */
    public int outstanding() {
        throw new UnsupportedOperationException();
    }

    /** Whether the oldest outstanding batch of the partition has failed (the partition is stalled). */
    public boolean isFailedAtHead(int partition) {
        throw new UnsupportedOperationException();
    }

    /**
     * Nanos (by the clock) since the oldest outstanding batch of the partition was registered, or 0
     * when nothing is outstanding: the watermark's age, {@code etl_checkpoint_watermark_age_seconds}.
     */
    public long watermarkAgeNs(int partition) {
        throw new UnsupportedOperationException();
    }

    /** The largest {@link #watermarkAgeNs} over all partitions. */
    public long maxWatermarkAgeNs() {
        throw new UnsupportedOperationException();
    }

    /**
     * Puts into {@code out} every partition whose watermark is ahead of what was last
     * {@link #markCommitted marked committed}; returns how many.
     */
    public int collectCommittable(Long2LongHashMap out) {
        throw new UnsupportedOperationException();
    }

    /** Records that {@code offset} was committed for the partition (ignored if not assigned). */
    public void markCommitted(int partition, long offset) {
        throw new UnsupportedOperationException();
    }

    /** The last offset marked committed for the partition, or -1. */
    public long lastCommitted(int partition) {
        throw new UnsupportedOperationException();
    }

    /** Stops tracking the partition (revoke or lost); later acks for its epoch are stale. */
    public void remove(int partition) {
        throw new UnsupportedOperationException();
    }

    /** The assigned partitions, in no particular order (allocates; not for the hot path). */
    public int[] partitions() {
        throw new UnsupportedOperationException();
    }

    /** Count of acks ignored because of a stale epoch or an unassigned partition. */
    public long staleAcks() {
        throw new UnsupportedOperationException();
    }
}
