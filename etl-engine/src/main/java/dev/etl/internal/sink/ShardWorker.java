package dev.etl.internal.sink;

import dev.etl.error.ErrorClass;
import dev.etl.error.ErrorPolicy;
import dev.etl.error.FatalPipelineException;
import dev.etl.error.RateLimitedLog;
import dev.etl.error.SinkWriteException;
import dev.etl.internal.backpressure.InFlightBudget;
import dev.etl.sink.ShardWriter;
import dev.etl.sink.SinkDefinition;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything one shard of a sink does on its io thread, one duty cycle at a time: merge queued chunks
 * into the open batch, seal it (rows, bytes, linger, flush or drain), write the sealed batch, retry it
 * after a transient failure (same bytes, same token), and settle it: acks released with the outcome,
 * in-flight budget returned, chunks counted out of the {@link ShardQueue}. The worker decides when;
 * what it holds (the open and the sealed batch, the chunk being merged) and the bookkeeping of every way
 * that leaves — settled, failed, abandoned — live in its {@link ShardHoldings}.
 *
 * <p>One sealed batch at a time: a shard with several writers ({@link SinkDefinition#writersPerShard()}) has a
 * worker, a queue and a writer for each. While it waits for a retry the open batch keeps filling up to its
 * limits, then the queue fills and lanes pause.
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
    private static final int INITIAL_BATCH_BYTES = 64 * 1024;

    private final String sinkName;
    private final int shard;
    private final ShardQueue queue;
    private final ShardWriter writer;
    private final WriteGate gate;
    private final SinkMetrics metrics;
    private final BackoffPolicy backoff;
    private final ErrorPolicy permanentFailure;
    private final Consumer<FatalPipelineException> fatalListener;
    private final LongSupplier nanoClock;
    /** Names source partitions in messages (the pipeline's source, once a lane has opened it). */
    private final PartitionNames partitionNames;

    private final RateLimitedLog failureLog;
    private final int maxRows;
    private final long maxBytes;
    private final long lingerNs;

    private final BatchAccumulator open;
    private final ShardBatch batch;
    /** The open and sealed batch, the chunk being merged, and their accounting. */
    private final ShardHoldings holdings;

    private final AtomicLong flushRequests = new AtomicLong();
    private long flushesHandled;
    private long retryAtNs;
    private boolean finished;
    private int abandonedBatches;
    /** An unexpected throwable struck this worker: it fails every chunk it receives from now on. */
    private boolean failed;

    ShardWorker(
            SinkDefinition definition,
            int shard,
            ShardQueue queue,
            ChunkPool pool,
            InFlightBudget budget,
            ShardWriter writer,
            WriteGate gate,
            SinkMetrics metrics,
            BackoffPolicy backoff,
            Consumer<FatalPipelineException> fatalListener,
            LongSupplier nanoClock,
            PartitionNames partitionNames,
            AtomicLong batchSequence) {
        this.sinkName = definition.name();
        this.partitionNames = partitionNames;
        this.shard = shard;
        this.queue = queue;
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
        int bufferCap = batchBufferCap(maxBytes, definition.writersPerShard());
        this.open = new BatchAccumulator(INITIAL_BATCH_BYTES, bufferCap);
        this.batch = new ShardBatch(sinkName, shard, INITIAL_BATCH_BYTES, bufferCap);
        this.holdings = new ShardHoldings(
                sinkName,
                shard,
                queue,
                pool,
                budget,
                metrics,
                fatalListener,
                maxRows,
                maxBytes,
                open,
                batch,
                batchSequence);
    }

    /**
     * The capacity each of a writer's two batch buffers keeps between batches: {@code max-bytes} shared by the
     * shard's writers (at least the initial 64 KiB), so a shard retains about as much however many writers it
     * has. Growth stops doubling there, and a buffer grown past it for one large batch is dropped once its batch
     * is settled.
     */
    static int batchBufferCap(long maxBytes, int writersPerShard) {
        return (int) Math.max(INITIAL_BATCH_BYTES, Math.min(maxBytes / writersPerShard, Integer.MAX_VALUE - 8));
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

        int work = holdings.mergeQueued(nowNs);
        if (!batch.isSealed()
                && !open.isEmpty()
                && (force
                        || holdings.nextChunkOverflows()
                        || open.isFull(maxRows, maxBytes)
                        || nowNs - open.firstChunkNs() >= lingerNs)) {
            holdings.seal();
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

    /**
     * After a duty cycle that did nothing: how long until this worker has something timed to do — the sealed
     * batch's retry, the open batch's linger — {@code 0} when it has something now (a chunk being queued), or
     * {@link Long#MAX_VALUE} when only a new chunk, a flush or a drain can give it work (each wakes its thread).
     */
    long nanosUntilDue(long nowNs) {
        if (finished) {
            return Long.MAX_VALUE;
        }
        if (!failed) {
            if (batch.isSealed()) {
                return Math.max(0, retryAtNs - nowNs);
            }
            if (!open.isEmpty()) {
                return Math.max(0, lingerNs - (nowNs - open.firstChunkNs()));
            }
        }
        return queue.size() > 0 ? 0 : Long.MAX_VALUE;
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
            holdings.settle(true);
        } else if (failure instanceof SinkWriteException e && e.isRejection()) {
            metrics.attemptFailed(false, endNs - startNs);
            rowsRejected(e, endNs - startNs);
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
                LOG.warn(
                        "Sink '{}' shard {}: write of batch {} ({} rows, {} bytes) failed on attempt {}, "
                                + "retrying in {} ms: {} ({} similar messages suppressed)",
                        sinkName,
                        shard,
                        batch.sequence(),
                        batch.rowCount(),
                        batch.byteCount(),
                        attempts,
                        delayNs / 1_000_000,
                        describe(failure),
                        suppressed);
            }
            return;
        }
        long suppressed = failureLog.permit();
        if (suppressed >= 0) {
            LOG.error(
                    "Sink '{}' shard {}: giving up on batch {} ({} rows, {} bytes) after {} attempts; its acks "
                            + "fail and its partitions stall: {} ({} similar messages suppressed)",
                    sinkName,
                    shard,
                    batch.sequence(),
                    batch.rowCount(),
                    batch.byteCount(),
                    attempts,
                    describe(failure),
                    suppressed);
        }
        metrics.batchFailed();
        holdings.settle(false);
    }

    private void failedPermanently(Throwable failure) {
        String message = "sink '" + sinkName + "' shard " + shard + ": permanent write failure of batch "
                + batch.sequence() + " (" + batch.rowCount() + " rows, " + batch.byteCount() + " bytes, attempt "
                + batch.attempt() + "): " + describe(failure);
        metrics.batchFailed();
        holdings.settle(false);
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
                LOG.warn(
                        "{}; skipped under policy SKIP, its partitions stall ({} similar messages suppressed)",
                        message,
                        suppressed);
            }
        }
    }

    /**
     * The server refused some rows for their content and the writer wrote every other row: the
     * permanent-failure policy applies to those rows only. {@code SKIP}: counted and logged with the rows'
     * source positions, the batch succeeds (its other rows are durable, the refused ones can never be).
     * {@code FAIL}: the batch's acks fail and the pipeline fails, naming the rows (a restart meets them
     * again: fix the data or the table, or choose {@code SKIP}).
     */
    private void rowsRejected(SinkWriteException rejection, long durationNs) {
        int[] rows = rejection.rejectedRows();
        String message = "sink '" + sinkName + "' shard " + shard + ": the server refused " + rows.length + " of "
                + batch.rowCount() + " rows of batch " + batch.sequence() + " for their content ("
                + describeRows(rows) + "): " + describe(rejection);
        if (permanentFailure == ErrorPolicy.FAIL) {
            metrics.batchFailed();
            holdings.settle(false);
            LOG.error("{}; failing the pipeline (policy FAIL)", message);
            try {
                fatalListener.accept(new FatalPipelineException(ErrorClass.SINK_PERMANENT, message, rejection));
            } catch (RuntimeException e) {
                LOG.error("Sink '{}' shard {}: fatal listener threw", sinkName, shard, e);
            }
            return;
        }
        metrics.rowsRejected(rows.length);
        metrics.written(batch.rowCount() - rows.length, batch.byteCount(), durationNs);
        holdings.settle(true);
        long suppressed = failureLog.permit();
        if (suppressed >= 0) {
            LOG.warn(
                    "{}; skipped under policy SKIP, the other rows are written (etl_sink_rejected_rows_total; {} "
                            + "similar messages suppressed)",
                    message,
                    suppressed);
        }
    }

    /** The refused rows' sources, e.g. {@code orders-3@1204, orders-3@1260}: the first ten. Failure path. */
    private String describeRows(int[] rows) {
        StringBuilder sb = new StringBuilder();
        int shown = Math.min(rows.length, 10);
        for (int i = 0; i < shown; i++) {
            int row = rows[i];
            int partition = batch.sourcePartition(row);
            sb.append(i == 0 ? "" : ", ");
            if (partition < 0) {
                sb.append("row ").append(row).append(" (no single source record)");
            } else {
                sb.append(partitionNames.name(partition)).append('@').append(batch.sourceOffset(row));
            }
        }
        if (rows.length > shown) {
            sb.append(", and ").append(rows.length - shown).append(" more");
        }
        return sb.toString();
    }

    private static String describe(Throwable failure) {
        String text = failure.getMessage();
        return text == null ? failure.toString() : text;
    }

    /**
     * Recovery from an unexpected throwable on the io thread (a bug, or an {@code Error} such as out of
     * memory) anywhere in a duty cycle — between {@code poll()} and the end of a merge, in a seal, in a
     * settle: fails the acks of everything the worker owns (the chunk being merged, the open batch, the
     * sealed batch), returns their budget bytes, counts them out of the queue, counts
     * {@code etl_sink_io_failures_total}, logs at ERROR and fails the pipeline through the fatal
     * listener ({@link ShardHoldings#failAll}). From then on the worker fails every chunk it receives (see
     * {@link #failQueued}), so nothing is stranded and shutdown drains normally. Io thread only.
     */
    void fail(Throwable cause) {
        boolean first = !failed;
        failed = true;
        holdings.failAll(cause, first);
    }

    /** After {@link #fail}: fails every queued chunk (acks failed, bytes returned, chunk recycled). */
    private int failQueued(boolean draining) {
        int work = holdings.failQueued();
        if (draining && queue.unsettledChunks() == 0) {
            finished = true;
        }
        return work;
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
        int batches = holdings.abandonAll();
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
