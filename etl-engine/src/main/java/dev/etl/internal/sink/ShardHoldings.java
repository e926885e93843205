package dev.etl.internal.sink;

import dev.etl.error.ErrorClass;
import dev.etl.error.FatalPipelineException;
import dev.etl.internal.backpressure.InFlightBudget;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one {@link ShardWorker} holds beyond its queue — the chunk being merged, the open batch and the
 * sealed batch — and every way it comes and goes: merged in from the {@link ShardQueue} (chunks and
 * deterministic blocks), sealed, settled after a write, failed after an unexpected throwable, or
 * abandoned at the shutdown deadline. On every path the acks are released, the budget bytes returned,
 * the chunks recycled and counted out of the queue.
 *
 * <p>The worker decides when (duty cycle, seal triggers, writes, retries and their outcome); this class
 * keeps the books.
 *
 * <p>Confined like the worker: its io thread, or the shutdown thread once that thread was seized (or
 * when the runtime never started). Logs under the worker's category.
 */
final class ShardHoldings {
    private static final Logger LOG = LoggerFactory.getLogger(ShardWorker.class);
    private static final long HAND_OFF_SETTLE_NS = 1_000_000_000L;

    private final String sinkName;
    private final int shard;
    private final ShardQueue queue;
    private final ChunkPool pool;
    private final InFlightBudget budget;
    private final SinkMetrics metrics;
    private final Consumer<FatalPipelineException> fatalListener;
    private final int maxRows;
    private final long maxBytes;
    private final BatchAccumulator open;
    private final ShardBatch batch;

    private boolean nextChunkOverflows;
    /** The shard's batch numbers, shared by its writers so that a number names one batch of the shard. */
    private final AtomicLong sequence;
    /**
     * What the worker owns beyond the queue: chunks polled and not yet settled, and their budget bytes
     * (open batch + sealed batch + the chunk being merged). Kept apart from the buffers' own counts so
     * that a throwable in the middle of a merge, seal or settle cannot lose track of them.
     */
    private long ownedBytes;

    private int ownedChunks;
    /** The chunk between {@code queue.poll()} and the end of its merge, or null. */
    private Chunk merging;

    ShardHoldings(
            String sinkName,
            int shard,
            ShardQueue queue,
            ChunkPool pool,
            InFlightBudget budget,
            SinkMetrics metrics,
            Consumer<FatalPipelineException> fatalListener,
            int maxRows,
            long maxBytes,
            BatchAccumulator open,
            ShardBatch batch,
            AtomicLong sequence) {
        this.sinkName = sinkName;
        this.shard = shard;
        this.queue = queue;
        this.pool = pool;
        this.budget = budget;
        this.metrics = metrics;
        this.fatalListener = fatalListener;
        this.maxRows = maxRows;
        this.maxBytes = maxBytes;
        this.open = open;
        this.batch = batch;
        this.sequence = sequence;
    }

    /** Whether the next queued entry cannot join the open batch (limits, or a deterministic block): seal first. */
    boolean nextChunkOverflows() {
        return nextChunkOverflows;
    }

    /** Merges queued chunks into the open batch until it is full or the next entry does not fit; returns how many. */
    int mergeQueued(long nowNs) {
        final ShardQueue queue = this.queue;
        final BatchAccumulator open = this.open;
        int merged = 0;
        Chunk chunk;
        // Stops at a full open batch: with a sealed batch still unwritten, that is the backpressure.
        while (!nextChunkOverflows && !open.isFull(maxRows, maxBytes) && (chunk = queue.peek()) != null) {
            if (chunk.isDeterministicBlock()) {
                // A deterministic block is an insert of its own: what is open is sealed first, and
                // nothing joins the block (its bytes must be what a replay rebuilds).
                if (!open.isEmpty()) {
                    nextChunkOverflows = true;
                    break;
                }
                queue.poll();
                mergeDeterministicBlock(chunk, nowNs);
                nextChunkOverflows = true; // seal it now, alone
                merged++;
                break;
            }
            if (open.wouldOverflow(chunk, maxRows, maxBytes)) {
                nextChunkOverflows = true;
                break;
            }
            queue.poll();
            // Owned from here on: whatever happens below, failAll finds this chunk's acks and bytes.
            int bytes = chunk.byteCount();
            ownedBytes += bytes;
            ownedChunks++;
            // The hand-off took the chunk's buffer capacity from the budget; from now on only its content
            // is in flight (in the batch buffer), and the buffer goes back to the (separately bounded) pool.
            int slack = chunk.budgetBytes - bytes;
            chunk.budgetBytes = 0;
            if (slack > 0) {
                budget.release(slack);
            }
            merging = chunk;
            open.merge(chunk, nowNs);
            merging = null;
            pool.recycle(chunk);
            merged++;
        }
        return merged;
    }

    /**
     * Merges the whole chain of a deterministic block into the (empty) open batch, chunk by chunk, and
     * marks the batch as that block. The chain's budget (its buffers' capacity) is exchanged for its
     * content, as for an ordinary chunk.
     */
    private void mergeDeterministicBlock(Chunk head, long nowNs) {
        String token = head.blockToken;
        int budgetBytes = head.budgetBytes;
        head.budgetBytes = 0;
        int content = 0;
        int chunks = 0;
        int empty = 0;
        for (Chunk c = head; c != null; c = c.next) {
            content += c.byteCount();
            if (c.isEmpty()) {
                empty++;
            } else {
                chunks++;
            }
        }
        ownedBytes += content;
        // Only chunks with rows join the batch (and are counted out when it settles): an empty one (the
        // lanes cut them off; defensive) is counted out here.
        ownedChunks += chunks;
        if (empty > 0) {
            queue.settled(empty);
        }
        if (budgetBytes - content > 0) {
            budget.release(budgetBytes - content);
        }
        merging = head;
        Chunk c = head;
        while (c != null) {
            Chunk following = c.next;
            if (!c.isEmpty()) {
                open.merge(c, nowNs);
            }
            merging = following;
            pool.recycle(c);
            c = following;
        }
        merging = null;
        open.block(token);
        metrics.blockSealed();
    }

    /** Seals the open batch into the sealed one (the shard's next sequence number). */
    void seal() {
        batch.sealFrom(open, sequence.incrementAndGet());
        nextChunkOverflows = false;
        metrics.sealed(batch.rowCount(), batch.byteCount());
    }

    /** Releases the sealed batch's acks with {@code success}, its budget, and counts its chunks out. */
    void settle(boolean success) {
        final ShardBatch batch = this.batch;
        int bytes = batch.byteCount();
        int chunks = batch.chunkCount();
        batch.settle(success);
        batch.clear();
        ownedBytes -= bytes;
        ownedChunks -= chunks;
        budget.release(bytes);
        queue.settled(chunks);
    }

    /**
     * {@link ShardWorker#fail}'s work: fails the acks of everything held (the chunk being merged, the
     * open batch, the sealed batch), returns their budget bytes, counts them out of the queue, counts
     * {@code etl_sink_io_failures_total}, logs at ERROR and, when {@code first}, fails the pipeline
     * through the fatal listener.
     */
    void failAll(Throwable cause, boolean first) {
        Throwable cleanup = null;
        long bytes = ownedBytes;
        int chunks = ownedChunks;
        Chunk chunk = merging;
        merging = null;
        if (chunk != null) {
            try {
                // its acks (and those of the rest of a block chain) not yet moved to the open batch
                chunk.failChainAcks();
            } catch (Throwable t) {
                cleanup = t;
            }
        }
        try {
            open.failAll();
        } catch (Throwable t) {
            cleanup = t;
        }
        try {
            batch.failAll();
        } catch (Throwable t) {
            cleanup = t;
        }
        nextChunkOverflows = false;
        ownedBytes = 0;
        ownedChunks = 0;
        budget.release(bytes);
        queue.settled(chunks);
        metrics.ioFailure();
        if (chunks > 0) {
            metrics.batchFailed();
        }
        String message = "sink '" + sinkName + "' shard " + shard + ": unexpected failure on the io thread (" + cause
                + "); failed the acks of " + chunks + " chunk(s) (" + bytes + " bytes) it held";
        LOG.error("{}; failing the pipeline, this shard fails every chunk it receives from now on", message, cause);
        if (cleanup != null) {
            LOG.error("Sink '{}' shard {}: releasing acks after that failure threw too", sinkName, shard, cleanup);
        }
        if (first) {
            try {
                fatalListener.accept(new FatalPipelineException(ErrorClass.SINK_PERMANENT, message, cause));
            } catch (RuntimeException e) {
                LOG.error("Sink '{}' shard {}: fatal listener threw", sinkName, shard, e);
            }
        }
    }

    /** After {@link #failAll}: fails every queued chunk (acks failed, bytes returned, chunk recycled); returns how many. */
    int failQueued() {
        int work = 0;
        Chunk chunk;
        while ((chunk = queue.poll()) != null) {
            int bytes = chunk.budgetBytes;
            chunk.budgetBytes = 0;
            int chunks = chunk.chainLength();
            chunk.failChainAcks();
            budget.release(bytes);
            recycleChain(chunk);
            queue.settled(chunks);
            work++;
        }
        return work;
    }

    private void recycleChain(Chunk head) {
        Chunk c = head;
        while (c != null) {
            Chunk following = c.next;
            pool.recycle(c);
            c = following;
        }
    }

    /**
     * {@link ShardWorker#abandon}'s work: fails the acks of the sealed batch, the open batch and every
     * queued chunk (waiting up to a second for hand-offs counted in but not yet queued), returns their
     * budget, recycles the chunks, counts abandoned batches (queued chunks count as one batch) and logs
     * one line if anything was abandoned. Leaves the sealed batch's bytes untouched, since a seized
     * writer may still be reading them. Returns the batches abandoned.
     */
    int abandonAll() {
        int batches = 0;
        long rows = 0;
        long bytes = 0;
        int chunks = 0;
        if (batch.isSealed()) {
            int sealedBytes = batch.byteCount();
            int sealedChunks = batch.chunkCount();
            rows += batch.rowCount();
            bytes += sealedBytes;
            chunks += sealedChunks;
            batch.settle(false);
            ownedBytes -= sealedBytes;
            ownedChunks -= sealedChunks;
            budget.release(sealedBytes);
            queue.settled(sealedChunks);
            batches++;
        }
        if (!open.isEmpty()) {
            int openBytes = open.byteCount();
            int openChunks = open.chunkCount();
            rows += open.rowCount();
            bytes += openBytes;
            chunks += openChunks;
            open.failAll();
            ownedBytes -= openBytes;
            ownedChunks -= openChunks;
            budget.release(openBytes);
            queue.settled(openChunks);
            batches++;
        }
        int queued = 0;
        long handOffDeadlineNs = System.nanoTime() + HAND_OFF_SETTLE_NS;
        // Also waits for hand-offs that counted in before shutdown closed the door and are offering now.
        while (queue.unsettledChunks() > 0) {
            Chunk chunk = queue.poll();
            if (chunk == null) {
                if (System.nanoTime() - handOffDeadlineNs >= 0) {
                    LOG.error(
                            "Sink '{}' shard {}: {} chunk(s) counted in but never queued; their acks cannot be "
                                    + "failed here",
                            sinkName,
                            shard,
                            queue.unsettledChunks());
                    break;
                }
                Thread.onSpinWait();
                continue;
            }
            int chunkBytes = chunk.budgetBytes;
            chunk.budgetBytes = 0;
            int inChain = chunk.chainLength();
            rows += chunk.chainRows();
            for (Chunk c = chunk; c != null; c = c.next) {
                bytes += c.byteCount();
            }
            chunk.failChainAcks();
            budget.release(chunkBytes);
            recycleChain(chunk);
            queue.settled(inChain);
            queued += inChain;
        }
        if (queued > 0) {
            chunks += queued;
            batches++;
        }
        if (batches > 0) {
            metrics.batchesAbandoned(batches);
            LOG.warn(
                    "Sink '{}' shard {}: abandoned {} batch(es) at the shutdown deadline ({} rows, {} bytes in {} "
                            + "chunks, {} of them still queued); their acks failed, their offsets are not committed and "
                            + "they replay on restart",
                    sinkName,
                    shard,
                    batches,
                    rows,
                    bytes,
                    chunks,
                    queued);
        }
        return batches;
    }
}
