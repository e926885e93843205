package dev.etl.internal.sink;

import dev.etl.sink.RowBuffer;
import dev.etl.sink.SealedBatch;

/**
 * The shard worker's {@link SealedBatch}: one reusable instance per worker, sealed from the
 * {@link BatchAccumulator} (by swapping buffers), written and retried with unchanged bytes and token,
 * then settled — its acks released with the outcome — and emptied for the next seal.
 *
 * <p>Confined to the worker's io thread, except that a shutdown which seizes a thread stuck in a write
 * settles the batch from the shutdown thread; it then leaves the bytes untouched, because the stuck
 * writer may still be reading them.
 */
final class ShardBatch implements SealedBatch {
    private final String sinkName;
    private final int shard;
    private final DedupToken tokens;
    private RowBuffer rows;
    private AckList acks = new AckList();
    private RowSources sources = new RowSources(RowSources.BATCH_RUNS);
    private int rowCount;
    private int chunkCount;
    private long sequence;
    private String dedupToken;
    private int layout;
    private int attempt;
    private boolean sealed;
    private final int initialBytes;
    private final int capacityCap;

    /**
     * @param capacityCap the most a buffer keeps between batches (the batch {@code max-bytes}): a buffer
     *                    that grew past it for one oversized chunk is dropped at {@link #clear()}
     */
    ShardBatch(String sinkName, int shard, int initialBytes, int capacityCap) {
        this.sinkName = sinkName;
        this.shard = shard;
        this.tokens = new DedupToken(sinkName, shard);
        this.initialBytes = initialBytes;
        this.capacityCap = capacityCap;
        this.rows = new RowBuffer(initialBytes, capacityCap);
    }

    /** Capacity of the buffer held now (memory accounting). */
    int bufferCapacity() {
        return rows.capacity();
    }

    /**
     * Takes over the accumulator's content (which is left empty) and computes the token: the block's
     * own when the accumulator holds one deterministic block, else a hash of sink, shard and bytes.
     */
    void sealFrom(BatchAccumulator open, long sequence) {
        if (sealed) {
            throw new IllegalStateException("shard " + shard + " batch " + this.sequence + " is still sealed");
        }
        this.rowCount = open.rowCount();
        this.chunkCount = open.chunkCount();
        String blockToken = open.blockToken();
        this.layout = open.layout();
        this.rows = open.swapRows(rows);
        this.acks = open.swapAcks(acks);
        this.sources = open.swapSources(sources);
        open.reset();
        this.sequence = sequence;
        // A deterministic block's token names its range (what a replay rebuilds), not its bytes.
        // A merged batch's token names its layout too (another statement: equal bytes are other rows).
        this.dedupToken = blockToken != null ? blockToken : tokens.of(rows.array(), rows.length(), layout);
        this.attempt = 0;
        this.sealed = true;
    }

    /** Whether a sealed batch is waiting to be written or settled. */
    boolean isSealed() {
        return sealed;
    }

    /** Counts the attempt about to be made. */
    void beginAttempt() {
        attempt++;
    }

    /** Number of chunks merged into this batch (settled together). */
    int chunkCount() {
        return chunkCount;
    }

    /**
     * Releases every ack with {@code success} and marks the batch unsealed; the bytes and counts stay
     * readable until {@link #clear()}.
     */
    void settle(boolean success) {
        acks.releaseAll(success);
        sealed = false;
    }

    /**
     * Fails whatever acks the batch holds, sealed or not, and empties it: the io thread's recovery from
     * an unexpected throwable (which may have struck half-way through a seal or a settle).
     */
    void failAll() {
        try {
            acks.releaseAll(false);
        } finally {
            sealed = false;
            clear();
        }
    }

    /** Empties the buffer for the next seal (only on the io thread, never while a writer may read it). */
    void clear() {
        rows.reset();
        if (rows.capacity() > capacityCap) {
            // Grown past max-bytes for one oversized chunk: do not keep it (rare, so rare allocation).
            rows = new RowBuffer(initialBytes, capacityCap);
        }
        rowCount = 0;
        chunkCount = 0;
        sources.clear();
        dedupToken = null;
        layout = 0;
        attempt = 0;
    }

    /** Source partition of row {@code row} of this batch, or -1 when unknown (failure path). */
    int sourcePartition(int row) {
        return sources.partition(row);
    }

    /** Source offset of row {@code row} of this batch, or -1 when unknown (failure path). */
    long sourceOffset(int row) {
        return sources.offset(row);
    }

    @Override
    public String sinkName() {
        return sinkName;
    }

    @Override
    public int shard() {
        return shard;
    }

    @Override
    public long sequence() {
        return sequence;
    }

    @Override
    public byte[] bytes() {
        return rows.array();
    }

    @Override
    public int byteCount() {
        return rows.length();
    }

    @Override
    public int rowCount() {
        return rowCount;
    }

    @Override
    public String dedupToken() {
        return dedupToken;
    }

    @Override
    public int layout() {
        return layout;
    }

    @Override
    public int attempt() {
        return attempt;
    }

    @Override
    public String toString() {
        return "SealedBatch[sink=" + sinkName + ", shard=" + shard + ", seq=" + sequence + ", rows=" + rowCount
                + ", bytes=" + rows.length() + ", attempt=" + attempt + ", token=" + dedupToken + "]";
    }
}
