package dev.etl.internal.sink;

import dev.etl.internal.checkpoint.AckRef;
import dev.etl.sink.RowBuffer;
import java.util.Arrays;

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
    /** Where each row came from (source partition and offset), run-length encoded. */
    private final RowSources sources = new RowSources(RowSources.CHUNK_RUNS);

    private AckRef[] acks = new AckRef[8];
    private int ackCount;
    /**
     * The column layout of every row in this chunk ({@link dev.etl.sink.RowEncoder#layout()}); set by the
     * lane when it takes the chunk for a shard, 0 after {@link #clear()}. A chunk never mixes layouts.
     */
    private int layout;
    /**
     * Budget bytes the hand-off took for this chunk (its buffer capacity; for the head of a block chain,
     * the capacity of the whole chain); 0 when not handed off.
     */
    int budgetBytes;
    /** Chunks this entry counted in its shard queue while queued (its chain's length; set by the queue). */
    int queuedChunks;
    /**
     * The next chunk of the same deterministic block and shard, or null. A block's rows for one shard
     * are a chain of chunks, handed off as one queue entry (its head) and written as one insert alone.
     */
    Chunk next;
    /**
     * On the head of a block chain: the block's deduplication token (a function of sink, partition,
     * offset range and shard, never of the bytes); null for an ordinary chunk.
     */
    String blockToken;
    /**
     * Which of its shard's writers takes this entry ({@code floorMod(route, writersPerShard)}): for the head of
     * a block chain its source partition, so a partition's blocks reach the shard in order through one writer;
     * for an ordinary chunk the lane that filled it. 0 after {@link #clear()}.
     */
    int route;

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

    /** The column layout of the rows in this chunk. */
    public int layout() {
        return layout;
    }

    /**
     * Sets the column layout of the rows this chunk holds: when the lane takes it for a shard, or when it
     * switches an empty chunk to a new layout.
     *
     * @throws IllegalStateException when the chunk holds rows of another layout
     */
    public void layout(int layout) {
        if (rowCount != 0 && layout != this.layout) {
            throw new IllegalStateException("chunk of shard " + shard + " holds " + rowCount + " rows of layout "
                    + this.layout + " and cannot take layout " + layout);
        }
        this.layout = layout;
    }

    /**
     * Counts a row just encoded into {@link #rows()} and makes the chunk hold {@code ack} (retaining it
     * once per chunk: consecutive rows of one batch cost nothing extra).
     */
    public void addRow(AckRef ack) {
        addRows(ack, 1);
    }

    /**
     * Same as {@link #addRow}, for {@code rows} (≥ 1) rows of one value just encoded together, whose source
     * record is unknown (a dead-lettered record keeps its position in its own framing).
     */
    public void addRows(AckRef ack, int rows) {
        addRows(ack, rows, -1, -1);
    }

    /**
     * Same as {@link #addRows(AckRef, int)}, for rows of the record at {@code offset} of {@code partition}
     * ({@code partition} negative: no single source record, e.g. data a stateful operator held): kept so a
     * row the server refuses can be named by its record. Hot path: a compare or two.
     */
    public void addRows(AckRef ack, int rows, int partition, long offset) {
        rowCount += rows;
        sources.add(partition, offset, rows);
        if (ackCount == 0 || acks[ackCount - 1] != ack) {
            holdAck(ack);
        }
    }

    /** Where the rows came from. */
    RowSources sources() {
        return sources;
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
        sources.clear();
        next = null;
        blockToken = null;
        layout = 0;
        route = 0;
    }

    /** The next chunk of this block chain, or null. */
    public Chunk next() {
        return next;
    }

    /** The block's token when this chunk heads a deterministic block, else null. */
    public String blockToken() {
        return blockToken;
    }

    /** Whether this chunk heads a deterministic block (written alone, with its own token). */
    public boolean isDeterministicBlock() {
        return blockToken != null;
    }

    /** Chunks in the chain this chunk heads (1 for an ordinary chunk). */
    int chainLength() {
        int n = 0;
        for (Chunk c = this; c != null; c = c.next) {
            n++;
        }
        return n;
    }

    /** Buffer capacity of the chain this chunk heads. */
    int chainCapacity() {
        long total = 0;
        for (Chunk c = this; c != null; c = c.next) {
            total += c.rows.capacity();
        }
        return (int) Math.min(Integer.MAX_VALUE, total);
    }

    /** Rows of the chain this chunk heads. */
    int chainRows() {
        int total = 0;
        for (Chunk c = this; c != null; c = c.next) {
            total += c.rowCount;
        }
        return total;
    }

    /** Fails the acks of every chunk of the chain this chunk heads (teardown of a block). */
    void failChainAcks() {
        for (Chunk c = this; c != null; ) {
            Chunk following = c.next;
            c.releaseAll(false);
            c.rows.reset();
            c.rowCount = 0;
            c.sources.clear();
            c = following;
        }
    }

    @Override
    public String toString() {
        return "Chunk[shard=" + shard + ", rows=" + rowCount + ", bytes=" + rows.length() + ", acks=" + ackCount
                + (layout != 0 ? ", layout=" + layout : "") + "]";
    }
}
