package dev.etl.internal.sink;

import dev.etl.sink.RowBuffer;
import java.util.Arrays;

import dev.etl.internal.checkpoint.AckRef;

/**
 * Rows encoded by one lane for one shard, plus the acks of the batches they came from: the unit a
 * lane hands to a shard worker.
 *
 * <p>Ownership moves with the chunk: the lane fills it; after a successful hand-off the shard
 * worker owns it, merges it into a sealed batch (taking over its ack references) and recycles it.
 * Every path that drops a chunk without a durable write must call {@link #failAcks()}: an ack
 * collection fails by default.
 *
 * <p>Not thread-safe; hand-off happens through a concurrent queue, which publishes its content.
 */
public final class Chunk {
    private final int shard;
    private final RowBuffer rows;
    private int rowCount;
    private AckRef[] acks = new AckRef[8];
    private int ackCount;
    /** Budget bytes the hand-off took for this chunk (its buffer capacity); 0 when not handed off. */
    int budgetBytes;

    public Chunk(int shard, int initialBytes) {
        this.shard = shard;
        this.rows = new RowBuffer(initialBytes);
    }

    public int shard() {
        return shard;
    }

    /** The encoded rows; encoders append to it. */
    public RowBuffer rows() {
        return rows;
    }

    public int rowCount() {
        return rowCount;
    }

    public int byteCount() {
        return rows.length();
    }

    public boolean isEmpty() {
        return rowCount == 0;
    }

    /**
     * Counts a row just encoded into {@link #rows()} and makes the chunk hold {@code ack} (retaining it
     * once per chunk: consecutive rows of one batch cost nothing extra).
     */
    public void addRow(AckRef ack) {
        rowCount++;
        if (ackCount == 0 || acks[ackCount - 1] != ack) {
            holdAck(ack);
        }
    }

    private void holdAck(AckRef ack) {
        for (int i = ackCount - 2; i >= 0; i--) {
            if (acks[i] == ack) {
                return;
            }
        }
        if (ackCount == acks.length) {
            acks = Arrays.copyOf(acks, ackCount << 1);
        }
        ack.retain();
        acks[ackCount++] = ack;
    }

    /** Number of distinct acks held. */
    public int ackCount() {
        return ackCount;
    }

    /** The {@code i}-th ack held. */
    public AckRef ack(int i) {
        return acks[i];
    }

    /**
     * Moves this chunk's ack references to {@code target} (which then must release them) and clears
     * this chunk's list without releasing. Used by workers merging chunks into a batch.
     */
    public void transferAcksTo(AckList target) {
        for (int i = 0; i < ackCount; i++) {
            target.add(acks[i]);
            acks[i] = null;
        }
        ackCount = 0;
    }

    /** Releases every held ack as failed and empties the chunk. */
    public void failAcks() {
        releaseAll(false);
        clear();
    }

    /** Releases every held ack as succeeded (only after a durable write of these rows). */
    public void succeedAcks() {
        releaseAll(true);
        clear();
    }

    private void releaseAll(boolean success) {
        for (int i = 0; i < ackCount; i++) {
            AckRef ack = acks[i];
            acks[i] = null;
            ack.release(success);
        }
        ackCount = 0;
    }

    /** Empties the chunk for reuse. Held acks must have been released or transferred first. */
    public void clear() {
        if (ackCount != 0) {
            throw new IllegalStateException("clearing a chunk that still holds " + ackCount + " acks");
        }
        rows.reset();
        rowCount = 0;
    }

    @Override
    public String toString() {
        return "Chunk[shard=" + shard + ", rows=" + rowCount + ", bytes=" + rows.length() + ", acks=" + ackCount + "]";
    }
}
