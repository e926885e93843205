package dev.etl.internal.sink;

import dev.etl.sink.RowBuffer;

/**
 * The open (not yet sealed) batch of one shard worker: chunks merged into one reusable buffer, the
 * ack references taken over from them, and what sealing looks at — rows, bytes, chunk count and when
 * the first chunk arrived.
 *
 * <p>Merging copies the chunk's bytes, moves its acks here ({@link Chunk#transferAcksTo}), and leaves
 * the chunk empty for recycling. {@link ShardBatch#sealFrom} then swaps this accumulator's buffer and
 * ack list with the sealed batch's, so sealing copies nothing.
 *
 * <p>Confined to the worker's io thread (or the shutdown thread once that thread has stopped).
 */
final class BatchAccumulator {
    private RowBuffer rows;
    private AckList acks = new AckList();
    /** Where the rows came from (the merged chunks' sources, in order). */
    private RowSources sources = new RowSources(RowSources.BATCH_RUNS);

    private int rowCount;
    private int chunkCount;
    private long firstChunkNs;
    /** The token of the one deterministic block this batch holds, or null (ordinary chunks). */
    private String blockToken;
    /** The column layout of every row merged (the first chunk's; meaningful when not empty). */
    private int layout;
    /** Tests only: run in the middle of every merge (bytes copied, acks not yet moved); null in production. */
    Runnable midMergeFault;

    BatchAccumulator(int initialBytes, int capacityCap) {
        this.rows = new RowBuffer(initialBytes, capacityCap);
    }

    /** Capacity of the buffer held now (memory accounting). */
    int bufferCapacity() {
        return rows.capacity();
    }

    /** Merges {@code chunk} (which must be non-empty) and empties it; {@code nowNs} starts the linger clock. */
    void merge(Chunk chunk, long nowNs) {
        if (chunkCount == 0) {
            firstChunkNs = nowNs;
            layout = chunk.layout();
        } else if (chunk.layout() != layout) {
            throw new IllegalStateException("merging a chunk of column layout " + chunk.layout()
                    + " into a batch of layout " + layout + ": a batch never mixes layouts");
        }
        rows.writeBuffer(chunk.rows());
        sources.addAll(chunk.sources());
        rowCount += chunk.rowCount();
        chunkCount++;
        if (midMergeFault != null) {
            midMergeFault.run();
        }
        chunk.transferAcksTo(acks);
    }

    /**
     * Whether {@code chunk} cannot join this (non-empty) batch: it would take it past either limit, or its
     * rows have another column layout.
     */
    boolean wouldOverflow(Chunk chunk, int maxRows, long maxBytes) {
        return chunkCount > 0
                && ((long) rowCount + chunk.rowCount() > maxRows
                        || (long) rows.length() + chunk.byteCount() > maxBytes
                        || chunk.layout() != layout);
    }

    /** The column layout of the rows merged (meaningful when not empty). */
    int layout() {
        return layout;
    }

    /** Whether the batch has reached either limit. */
    boolean isFull(int maxRows, long maxBytes) {
        return rowCount >= maxRows || rows.length() >= maxBytes;
    }

    boolean isEmpty() {
        return chunkCount == 0;
    }

    int rowCount() {
        return rowCount;
    }

    int byteCount() {
        return rows.length();
    }

    int chunkCount() {
        return chunkCount;
    }

    /** Clock reading when the first chunk was merged (meaningful when not empty). */
    long firstChunkNs() {
        return firstChunkNs;
    }

    /** Hands the content to a sealed batch in exchange for its (released, emptied) buffer and ack list. */
    RowBuffer swapRows(RowBuffer emptyRows) {
        RowBuffer full = rows;
        emptyRows.reset();
        rows = emptyRows;
        return full;
    }

    AckList swapAcks(AckList emptyAcks) {
        if (emptyAcks.size() != 0) {
            throw new IllegalStateException("swapping in an ack list that still holds " + emptyAcks.size() + " acks");
        }
        AckList full = acks;
        acks = emptyAcks;
        return full;
    }

    /** Hands the rows' sources to a sealed batch in exchange for its (emptied) ones. */
    RowSources swapSources(RowSources emptySources) {
        RowSources full = sources;
        emptySources.clear();
        sources = emptySources;
        return full;
    }

    /** Forgets the counters after the content was swapped out. */
    void reset() {
        rowCount = 0;
        chunkCount = 0;
        blockToken = null;
        layout = 0;
    }

    /** Marks this (non-empty) batch as exactly one deterministic block with {@code token}. */
    void block(String token) {
        this.blockToken = token;
    }

    /** The token of the deterministic block this batch holds, or null. */
    String blockToken() {
        return blockToken;
    }

    /** Fails every held ack and empties the batch (abandonment). */
    void failAll() {
        try {
            acks.releaseAll(false);
        } finally {
            rows.reset();
            sources.clear();
            reset();
        }
    }
}
