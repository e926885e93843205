package dev.etl.internal.sink;

import dev.etl.sink.ShardWriter;
import dev.etl.sink.SinkDefinition;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.etl.internal.backpressure.InFlightBudget;
import dev.etl.error.ErrorClass;
import dev.etl.error.ErrorPolicy;
import dev.etl.error.FatalPipelineException;
import dev.etl.util.RateLimitedLog;
import dev.etl.error.SinkWriteException;

/**
 * Everything one shard of a sink does on its io thread, one duty cycle at a time: merge queued chunks
 * into the open batch, seal it (rows, bytes, linger, flush or drain), write the sealed batch, retry it
 * after a transient failure (same bytes, same token), and settle it: acks released with the outcome,
 * in-flight budget returned, chunks counted out of the {@link ShardQueue}.
 *
 * <p>One sealed batch at a time ({@code max-in-flight-per-shard} 1). While it waits for a retry the
 * open batch keeps filling up to its limits, then the queue fills and lanes pause.
 *
 * <p>Confined to its io thread; {@link #requestFlush()} may be called from any thread. When the
 * shutdown thread has seized the io thread (stuck in a write past the deadline) it calls
 * {@link #abandon()} instead.
 */
final class ShardWorker {
    /** {@link #doWork} result: the io thread lost its workers to the shutdown thread. */
    static final int SEIZED = -1;

    private static final Logger LOG = LoggerFactory.getLogger(ShardWorker.class);
    private static final long FAILURE_LOG_INTERVAL_NS = 10_000_000_000L;
    private static final long HAND_OFF_SETTLE_NS = 1_000_000_000L;
    private static final int INITIAL_BATCH_BYTES = 64 * 1024;

    private final String sinkName;
    private final int shard;
    private final ShardQueue queue;
    private final ChunkPool pool;
    private final InFlightBudget budget;
    private final ShardWriter writer;
    private final WriteGate gate;
    private final SinkMetrics metrics;
    private final BackoffPolicy backoff;
    private final ErrorPolicy permanentFailure;
    private final Consumer<FatalPipelineException> fatalListener;
    private final LongSupplier nanoClock;
    private final RateLimitedLog failureLog;
    private final int maxRows;
    private final long maxBytes;
    private final long lingerNs;

    private final BatchAccumulator open;
    private final ShardBatch batch;
    private final AtomicLong flushRequests = new AtomicLong();
    private long flushesHandled;
    private boolean nextChunkOverflows;
    private long sequence;
    private long retryAtNs;
    private boolean finished;
    private int abandonedBatches;
    /**
     * What the worker owns beyond the queue: chunks polled and not yet settled, and their budget bytes
     * (open batch + sealed batch + the chunk being merged). Kept apart from the buffers' own counts so
     * that a throwable in the middle of a merge, seal or settle cannot lose track of them.
     */
    private long ownedBytes;
    private int ownedChunks;
    /** The chunk between {@code queue.poll()} and the end of its merge, or null. */
    private Chunk merging;
    /** An unexpected throwable struck this worker: it fails every chunk it receives from now on. */
    private boolean failed;

    ShardWorker(SinkDefinition definition, int shard, ShardQueue queue, ChunkPool pool, InFlightBudget budget,
            ShardWriter writer, WriteGate gate, SinkMetrics metrics, BackoffPolicy backoff,
            Consumer<FatalPipelineException> fatalListener, LongSupplier nanoClock) {
        this.sinkName = definition.name();
        this.shard = shard;
        this.queue = queue;
        this.pool = pool;
        this.budget = budget;
        this.writer = writer;
        this.gate = gate;
        this.metrics = metrics;
        this.backoff = backoff;
        this.permanentFailure = definition.permanentFailure();
        this.fatalListener = fatalListener;
        this.nanoClock = nanoClock;
        this.failureLog = new RateLimitedLog(FAILURE_LOG_INTERVAL_NS, nanoClock);
        this.maxRows = definition.batch().maxRows();
        this.maxBytes = definition.batch().maxBytes();
        this.lingerNs = definition.batch().linger().toNanos();
        int bufferCap = batchBufferCap(maxBytes);
        this.open = new BatchAccumulator(INITIAL_BATCH_BYTES, bufferCap);
        this.batch = new ShardBatch(sinkName, shard, INITIAL_BATCH_BYTES, bufferCap);
    }

    /**
     * The capacity each of the shard's two batch buffers keeps between batches: {@code max-bytes}
     * (at least the initial 64 KiB). Growth stops doubling there, and a buffer grown past it for one
     * oversized chunk is dropped once its batch is settled.
     */
    static int batchBufferCap(long maxBytes) {
        return (int) Math.max(INITIAL_BATCH_BYTES, Math.min(maxBytes, Integer.MAX_VALUE - 8));
    }

    /** Capacity of the two batch buffers held now (memory accounting; a racy snapshot off the io thread). */
    long batchBufferBytes() {
        return (long) open.bufferCapacity() + batch.bufferCapacity();
    }

    /** Makes the worker seal what it holds without waiting for linger, until its queue is empty. Any thread. */
    void requestFlush() {
        flushRequests.incrementAndGet();
    }

    /**
     * One duty cycle. Returns the work done (0 when idle), or {@link #SEIZED} when a write returned
     * after the shutdown thread took this worker over (the caller must stop touching its workers).
     *
     * @param draining   shutdown has begun: seal everything, finish once all is settled
     * @param deadlineNs when {@code draining}, the moment to abandon whatever is left
     */
    int doWork(long nowNs, boolean draining, long deadlineNs) {
        if (finished) {
            return 0;
        }
        if (draining && nowNs - deadlineNs >= 0) {
            abandon();
            return 1;
        }
        if (failed) {
            return failQueued(draining);
        }
        // Read before looking at the queue: chunks handed off before the request are then visible.
        long flushTarget = flushRequests.get();
        boolean force = draining || flushTarget != flushesHandled;

        int work = mergeQueued(nowNs);
        if (!batch.isSealed() && !open.isEmpty()
                && (force || nextChunkOverflows || open.isFull(maxRows, maxBytes) || nowNs - open.firstChunkNs() >= lingerNs)) {
            seal();
            retryAtNs = nowNs;
            work++;
        }
        if (batch.isSealed() && nanoClock.getAsLong() - retryAtNs >= 0) {
            if (!write()) {
                return SEIZED;
            }
            work++;
        }
        if (open.isEmpty() && queue.peek() == null) {
            flushesHandled = flushTarget;
            if (draining && !batch.isSealed() && queue.unsettledChunks() == 0) {
                finished = true;
            }
        }
        return work;
    }

    private int mergeQueued(long nowNs) {
        final ShardQueue queue = this.queue;
        final BatchAccumulator open = this.open;
        int merged = 0;
        Chunk chunk;
        // Stops at a full open batch: with a sealed batch still unwritten, that is the backpressure.
        while (!nextChunkOverflows && !open.isFull(maxRows, maxBytes) && (chunk = queue.peek()) != null) {
            if (chunk.isBlock()) {
                // A deterministic block is an insert of its own: what is open is sealed first, and
                // nothing joins the block (its bytes must be what a replay rebuilds).
                if (!open.isEmpty()) {
                    nextChunkOverflows = true;
                    break;
                }
                queue.poll();
                mergeBlock(chunk, nowNs);
                nextChunkOverflows = true; // seal it now, alone
                merged++;
                break;
            }
            if (open.wouldOverflow(chunk, maxRows, maxBytes)) {
                nextChunkOverflows = true;
                break;
            }
            queue.poll();
            // Owned from here on: whatever happens below, fail(Throwable) finds this chunk's acks and bytes.
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
    private void mergeBlock(Chunk head, long nowNs) {
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

    private void seal() {
        batch.sealFrom(open, ++sequence);
        nextChunkOverflows = false;
        metrics.sealed(batch.rowCount(), batch.byteCount());
    }

    /** Attempts the sealed batch once; false if the worker was seized meanwhile. */
    private boolean write() {
        final ShardBatch batch = this.batch;
        batch.beginAttempt();
        long startNs = nanoClock.getAsLong();
        Throwable failure = null;
        gate.enter();
        try {
            writer.write(batch);
        } catch (Throwable t) { // any failure but a permanent SinkWriteException is retried
            failure = t;
        }
        if (!gate.exit()) {
            return false;
        }
        long endNs = nanoClock.getAsLong();
        if (failure == null) {
            metrics.written(batch.rowCount(), batch.byteCount(), endNs - startNs);
            settle(true);
        } else if (failure instanceof SinkWriteException e && !e.isTransient()) {
            metrics.attemptFailed(false, endNs - startNs);
            failedPermanently(failure);
        } else {
            metrics.attemptFailed(true, endNs - startNs);
            failedTransiently(failure, endNs);
        }
        return true;
    }

    private void failedTransiently(Throwable failure, long nowNs) {
        int attempts = batch.attempt();
        if (backoff.mayRetry(attempts)) {
            long delayNs = backoff.delayNs(attempts);
            retryAtNs = nowNs + delayNs;
            metrics.retryScheduled();
            long suppressed = failureLog.permit();
            if (suppressed >= 0) {
                LOG.warn("Sink '{}' shard {}: write of batch {} ({} rows, {} bytes) failed on attempt {}, "
                        + "retrying in {} ms: {} ({} similar messages suppressed)", sinkName, shard,
                        batch.sequence(), batch.rowCount(), batch.byteCount(), attempts, delayNs / 1_000_000,
                        describe(failure), suppressed);
            }
            return;
        }
        long suppressed = failureLog.permit();
        if (suppressed >= 0) {
            LOG.error("Sink '{}' shard {}: giving up on batch {} ({} rows, {} bytes) after {} attempts; its acks "
                    + "fail and its partitions stall: {} ({} similar messages suppressed)", sinkName, shard,
                    batch.sequence(), batch.rowCount(), batch.byteCount(), attempts, describe(failure), suppressed);
        }
        metrics.batchFailed();
        settle(false);
    }

    private void failedPermanently(Throwable failure) {
        String message = "sink '" + sinkName + "' shard " + shard + ": permanent write failure of batch "
                + batch.sequence() + " (" + batch.rowCount() + " rows, " + batch.byteCount() + " bytes, attempt "
                + batch.attempt() + "): " + describe(failure);
        metrics.batchFailed();
        settle(false);
        if (permanentFailure == ErrorPolicy.FAIL) {
            LOG.error("{}; failing the pipeline", message);
            try {
                fatalListener.accept(new FatalPipelineException(ErrorClass.SINK_PERMANENT, message, failure));
            } catch (RuntimeException e) {
                LOG.error("Sink '{}' shard {}: fatal listener threw", sinkName, shard, e);
            }
        } else {
            long suppressed = failureLog.permit();
            if (suppressed >= 0) {
                LOG.warn("{}; skipped under policy SKIP, its partitions stall ({} similar messages suppressed)",
                        message, suppressed);
            }
        }
    }

    private static String describe(Throwable failure) {
        String text = failure.getMessage();
        return text == null ? failure.toString() : text;
    }

    /** Releases the sealed batch's acks with {@code success}, its budget, and counts its chunks out. */
    private void settle(boolean success) {
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
     * Recovery from an unexpected throwable on the io thread (a bug, or an {@code Error} such as out of
     * memory) anywhere in a duty cycle — between {@code poll()} and the end of a merge, in a seal, in a
     * settle: fails the acks of everything the worker owns (the chunk being merged, the open batch, the
     * sealed batch), returns their budget bytes, counts them out of the queue, counts
     * {@code etl_sink_io_failures_total}, logs at ERROR and fails the pipeline through the fatal
     * listener. From then on the worker fails every chunk it receives (see {@link #failQueued}), so
     * nothing is stranded and shutdown drains normally. Io thread only.
     */
    void fail(Throwable cause) {
        boolean first = !failed;
        failed = true;
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
        String message = "sink '" + sinkName + "' shard " + shard + ": unexpected failure on the io thread ("
                + cause + "); failed the acks of " + chunks + " chunk(s) (" + bytes + " bytes) it held";
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

    /** After {@link #fail}: fails every queued chunk (acks failed, bytes returned, chunk recycled). */
    private int failQueued(boolean draining) {
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
        if (draining && queue.unsettledChunks() == 0) {
            finished = true;
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

    /** Tests only, before the io thread starts: {@code fault} runs in the middle of every merge. */
    void injectMidMergeFault(Runnable fault) {
        open.midMergeFault = fault;
    }

    /** Whether an unexpected throwable has failed this worker. */
    boolean isFailed() {
        return failed;
    }

    /**
     * Abandons everything this shard holds — the sealed batch, the open batch, every queued chunk —
     * failing their acks, returning their budget and recycling the chunks; counts abandoned batches
     * (queued chunks count as one batch) and logs one line if anything was abandoned. Leaves the sealed
     * batch's bytes untouched, since a seized writer may still be reading them. The worker is finished
     * afterwards. Called on the io thread at the deadline, or on the shutdown thread after a seize or
     * when the runtime never started.
     */
    int abandon() {
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
                    LOG.error("Sink '{}' shard {}: {} chunk(s) counted in but never queued; their acks cannot be "
                            + "failed here", sinkName, shard, queue.unsettledChunks());
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
            LOG.warn("Sink '{}' shard {}: abandoned {} batch(es) at the shutdown deadline ({} rows, {} bytes in {} "
                    + "chunks, {} of them still queued); their acks failed, their offsets are not committed and "
                    + "they replay on restart", sinkName, shard, batches, rows, bytes, chunks, queued);
        }
        abandonedBatches += batches;
        finished = true;
        return batches;
    }

    /** Whether the worker is done: drained or abandoned during shutdown. */
    boolean isFinished() {
        return finished;
    }

    int abandonedBatches() {
        return abandonedBatches;
    }

    int shard() {
        return shard;
    }

    ShardWriter writer() {
        return writer;
    }
}
