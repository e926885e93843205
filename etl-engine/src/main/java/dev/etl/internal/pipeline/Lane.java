package dev.etl.internal.pipeline;

import dev.etl.error.ErrorClass;
import dev.etl.error.FatalPipelineException;
import dev.etl.internal.backpressure.PauseController;
import dev.etl.internal.checkpoint.AckQueue;
import dev.etl.internal.checkpoint.AckRef;
import dev.etl.internal.checkpoint.Checkpointer;
import dev.etl.internal.metrics.LaneMetrics;
import dev.etl.internal.ops.StatefulStage;
import dev.etl.internal.sink.ChunkOutbox;
import dev.etl.ops.Chain;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineState;
import dev.etl.pipeline.Scheduler;
import dev.etl.source.BatchHandler;
import dev.etl.source.PartitionBatch;
import dev.etl.source.SourceLane;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One lane: a thread that owns a source lane, a chain instance, a checkpointer and an ack queue, and
 * runs the poll loop as a short list of named steps:
 *
 * <pre>
 *   drainAcks → commitIfDue → failIfStalled → stalled.resume → handOffPending → applyBackpressure
 *     → poll (→ onBatch…) → handOffPending
 * </pre>
 *
 * Records never change threads between poll and encode. The lane never parks on a queue: when a sink
 * refuses a chunk it keeps it, pauses its partitions, and keeps polling.
 *
 * <p>Besides that lane-wide byte backpressure, a partition whose oldest outstanding batch is stalled
 * is paused on its own ({@link SourceLane#pausePartition}): when its head batch failed (nothing more
 * can be committed in this assignment) or {@link #HOLD_OUTSTANDING_BATCHES} batches are outstanding
 * behind it. Its checkpoint ring and replay distance then stop growing; {@link StalledPartitions} resumes
 * it once it is down to half that (never while its head failed: that lasts until the partition is
 * revoked, or {@code stalled-fail-after} fails the pipeline). The two pauses are independent in the
 * source, so resuming one never undoes the other.
 *
 * <p>Assignment changes reach the lane through {@link LaneAssignments}, the listener it opens its source
 * lane with; commits are {@link LaneCommits}', deterministic blocks {@link LaneBlocks}', the sinks' column
 * layouts {@link LaneLayouts}' (asked before every source batch).
 */
public final class Lane implements Runnable, BatchHandler {
    private static final Logger log = LoggerFactory.getLogger(Lane.class);
    private static final long PENDING_POLL_TIMEOUT_MS = 5;
    private static final long DRAIN_PARK_NS = TimeUnit.MILLISECONDS.toNanos(1);
    /** How often the stall detector's slow path runs while some batch waits longer than the limit. */
    private static final long STALL_CHECK_INTERVAL_NS = TimeUnit.SECONDS.toNanos(1);
    /** Outstanding batches of one partition at which the lane pauses that partition. */
    static final int HOLD_OUTSTANDING_BATCHES = PipelineConfig.MAX_OUTSTANDING_BATCHES_PER_PARTITION;

    private final PipelineRun runtime;
    private final int index;
    private final PipelineConfig config;
    private final LaneChainContext context;
    private final ChunkOutbox[] outboxes;
    private final Scheduler scheduler;
    private final Checkpointer checkpointer;
    /** The lane's inbox of completed acks and the pool its batches' acks come from. */
    private final AckQueue ackQueue = new AckQueue();

    private final Consumer<AckRef> ackHandler;
    private final PauseController pauseController;
    private final LaneMetrics metrics;
    /** The lane's deterministic blocks, or null when none of its sinks writes them. */
    private final LaneBlocks blocks;

    private final LaneCommits commits;
    /** The sinks' column layouts: switched between source batches when an encoder asks. */
    private final LaneLayouts layouts;
    /** Partitions paused on their own behind a stalled head. */
    private final StalledPartitions stalled;

    private final LaneAssignments assignments;
    private final long stalledFailAfterNs;
    private final long pollTimeoutMs;

    private volatile SourceLane sourceLane;
    private Chain chain;
    /** Open and not yet closed: its stateful operators may be flushed. */
    private boolean chainFlushable;

    private long reportedStaleAcks;
    /** The stall detector's slow path runs again no earlier than this (lane clock). */
    private long nextStallCheckNs;

    private volatile long watermarkAgeNs;
    private volatile boolean paused;
    private volatile boolean joined;

    Lane(PipelineRun runtime, int index, LaneChainContext context, LaneMetrics metrics) {
        this.runtime = runtime;
        this.index = index;
        this.config = runtime.config();
        this.scheduler = runtime.scheduler();
        this.checkpointer = new Checkpointer(scheduler::nanoTime);
        this.ackHandler = checkpointer::ack;
        this.context = context;
        this.outboxes = context.outboxArray();
        this.metrics = metrics;
        this.pauseController = new PauseController(
                runtime.budget(),
                config.pauseAbove(),
                config.resumeBelow(),
                config.minPause().toNanos());
        // A lane may hold at most its half share of the in-flight budget in open blocks before it seals them.
        this.blocks = LaneBlocks.of(
                outboxes,
                Math.max(1, config.maxInFlightBytes() / (2L * config.lanes())),
                runtime.meterRegistry(),
                config.name(),
                index);
        context.blocks(blocks);
        context.checkpointer(checkpointer);
        this.commits = new LaneCommits(runtime, index, checkpointer, blocks, metrics);
        this.layouts = new LaneLayouts(config.name(), index, blocks);
        this.stalled = new StalledPartitions(config, index, checkpointer, blocks, metrics);
        this.assignments = new LaneAssignments(this, runtime, index, checkpointer, blocks, stalled, metrics);
        this.stalledFailAfterNs = config.stalledFailAfter().toNanos();
        this.pollTimeoutMs = Math.max(1, config.pollTimeout().toMillis());
    }

    @Override
    public void run() {
        boolean chainOpen = false;
        try {
            sourceLane = runtime.source().openLane(index, assignments);
            runtime.sourceLaneOpened(sourceLane);
            stalled.open(sourceLane);
            assignments.open(sourceLane);
            context.partitionNames(sourceLane::describe, sourceLane::topic);
            if (blocks != null) {
                blocks.partitionIdentities(sourceLane::partitionIdentity);
            }
            chain = runtime.chainFactory().create(context);
            context.requireConfiguredStagesExist();
            layouts.open(outboxes);
            chain.open();
            chainOpen = true;
            chainFlushable = true;
            runtime.laneOpened();
            long startNs = scheduler.nanoTime();
            commits.open(sourceLane, startNs);
            nextStallCheckNs = startNs;
            pollLoop();
            if (runtime.state() == PipelineState.DRAINING) {
                // Buffering operators emit what they hold before the final hand-off, so the drain
                // can write it and the commit can cover it.
                chain.flush();
                sealBlocksForDrain(null);
                drain(checkpointer.partitions(), runtime.drainDeadlineNs(), "shutdown");
                commits.commitSync("shutdown");
            }
        } catch (FatalPipelineException e) {
            runtime.fail(e);
        } catch (Throwable t) {
            runtime.fail(new FatalPipelineException(
                    ErrorClass.SOURCE, "lane " + index + " of pipeline '" + config.name() + "' crashed: " + t, t));
        } finally {
            teardown(chainOpen);
        }
    }

    private void pollLoop() {
        while (runtime.state() == PipelineState.RUNNING) {
            long nowNs = scheduler.nanoTime();
            drainAcks();
            // Operators' timers: what they keep is emitted when it is due, not only when a record comes.
            long nextTimerNs = context.fireTimers(nowNs);
            if (blocks != null) {
                blocks.tick(nowNs);
            }
            commits.commitIfDue(nowNs);
            failIfStalled(nowNs);
            stalled.resume();
            reportStaleAcks();
            context.reportSuppressed(false);
            boolean pending = handOffPending();
            applyBackpressure(pending, nowNs);
            // Sealed blocks waiting for the commit that records their ends: poll briefly, so the commit's
            // callback (run inside a poll) is followed at once by the hand-off, and a commit that had to
            // wait for the one in flight goes out at the next iteration. The next block due by its linger
            // bounds the wait like an operator timer. (Before, each cost up to a poll timeout; issue 34.)
            boolean unrecorded = blocks != null && blocks.hasUnrecorded();
            long nextDueNs = blocks == null ? nextTimerNs : Math.min(nextTimerNs, blocks.nextLingerDeadlineNs());
            sourceLane.poll(pollTimeoutMs(pending || unrecorded, nextDueNs, nowNs), this);
            metrics.polls.increment();
            joined = sourceLane.hasJoined();
            handOffPending();
        }
    }

    /** Called by the source lane, from inside poll, once per partition with records. */
    @Override
    public void onBatch(PartitionBatch batch) {
        // Between batches every partition is at a record boundary: the one place an encoder's layout changes.
        layouts.beforeBatch();
        int partition = batch.partition();
        long seq = checkpointer.register(partition, batch.lastOffset() + 1);
        if (checkpointer.outstanding(partition) >= HOLD_OUTSTANDING_BATCHES || checkpointer.isFailedAtHead(partition)) {
            stalled.hold(partition);
        }
        // From the queue's pool: drainAcks recycles it once the checkpointer has applied it.
        AckRef ack = ackQueue.acquire(partition, checkpointer.epoch(partition), seq);
        context.meta().ack(ack);
        context.meta().batchAck(ack);
        int size = batch.size();
        runtime.recordsIn(size);
        context.recordsIn(size);
        metrics.recordsIn.increment(size);
        metrics.batches.increment();
        boolean pushed = false;
        try {
            chain.onBatch(batch);
            pushed = true;
            if (blocks != null) {
                blocks.afterBatch(partition, batch.lastOffset() + 1, batch.backlog());
                if (blocks.tooManyPending(partition)) {
                    stalled.hold(partition);
                }
            }
        } finally {
            // The lane's own hold: success unless the chain threw (then the batch fails, and the
            // pipeline with it). Rows already in chunks, and operators holding it, keep it alive.
            ack.release(pushed);
            // Between batches there is no current record: a stray emission must not reuse this ack.
            context.meta().ack(null);
            context.meta().batchAck(null);
        }
    }

    private void drainAcks() {
        ackQueue.drain(ackHandler);
    }

    /**
     * Before a drain (revoke, shutdown) with deterministic blocks: seals the open blocks and records
     * their ends synchronously, so the drain can write them and the final commit can cover them.
     */
    private void sealBlocksForDrain(int[] partitions) {
        if (blocks != null) {
            blocks.sealAll(partitions);
            if (!commits.commitSync("boundaries before the drain")
                    && !commits.commitSync("boundaries before the drain (retry)")) {
                // The ends of the blocks just sealed are not recorded, so those blocks may not be written:
                // the drain would wait the whole drain-timeout for them. Fail them now instead: their
                // offsets stay uncommitted and they replay, sealed at the same ends or freely (issue 30).
                blocks.failUnrecorded(partitions);
            }
        }
    }

    /**
     * How long the next poll may wait: the configured timeout, a short one while a chunk is pending (or a
     * sealed block waits for its boundary commit), and never past the next operator timer or block linger
     * deadline (so a due timer fires, and a due block is sealed, within a few milliseconds on an idle topic).
     */
    private long pollTimeoutMs(boolean pending, long nextTimerNs, long nowNs) {
        long timeoutMs = pending ? PENDING_POLL_TIMEOUT_MS : pollTimeoutMs;
        if (nextTimerNs != Long.MAX_VALUE) {
            long untilTimerNs = Math.max(0, nextTimerNs - nowNs);
            timeoutMs = Math.min(timeoutMs, (untilTimerNs + 999_999) / 1_000_000);
        }
        return timeoutMs;
    }

    /**
     * Fails the pipeline when a partition's oldest batch has waited longer than {@code stalled-fail-after}
     * for a sink: since it was polled, or since a stateful operator that kept its data emitted it. Data an
     * operator still keeps is not stuck while that operator's timer is scheduled (it will emit when the
     * timer fires: a window, a buffer waiting for input to pause); kept with no timer scheduled, it is (an
     * operator that waits for a record that may never come), and the failure names the stage.
     */
    private void failIfStalled(long nowNs) {
        watermarkAgeNs = checkpointer.maxWatermarkAgeNs();
        if (stalledFailAfterNs <= 0 || nowNs - nextStallCheckNs < 0) {
            return;
        }
        if (checkpointer.maxStallAgeNs() <= stalledFailAfterNs) {
            return;
        }
        // Slow path (allocates): at most once a second while something waits longer than the limit.
        nextStallCheckNs = nowNs + STALL_CHECK_INTERVAL_NS;
        for (int partition : checkpointer.partitions()) {
            long stallNs = checkpointer.stallAgeNs(partition);
            if (stallNs <= stalledFailAfterNs) {
                continue;
            }
            if (checkpointer.isHeadHeldByOperator(partition) && !checkpointer.isFailedAtHead(partition)) {
                List<StatefulStage> holding = context.stagesHolding(
                        partition, checkpointer.epoch(partition), checkpointer.headSeq(partition));
                List<String> withoutTimer = new ArrayList<>();
                boolean timerScheduled = false;
                for (StatefulStage stage : holding) {
                    if (stage.timerDeadlineNs() != Long.MAX_VALUE) {
                        timerScheduled = true;
                    } else {
                        withoutTimer.add(stage.stageName());
                    }
                }
                if (timerScheduled) {
                    continue; // kept on purpose until the operator's timer: not stuck
                }
                throw new FatalPipelineException(
                        ErrorClass.OPERATOR,
                        "partition " + sourceLane.describe(partition) + ": stage(s) " + withoutTimer
                                + " have kept the data of its oldest outstanding batch for "
                                + TimeUnit.NANOSECONDS.toMillis(stallNs) + " ms with no timer scheduled "
                                + "(stalled-fail-after " + config.stalledFailAfter() + "), so nothing can be "
                                + "committed past it until another record arrives. An operator that keeps data "
                                + "must schedule its timer (OperatorContext.timer()) and emit from onTimer; "
                                + "see StatefulOperator",
                        null);
            }
            throw new FatalPipelineException(
                    ErrorClass.SINK_TRANSIENT,
                    "partition "
                            + sourceLane.describe(partition)
                            + " has not committed past its oldest outstanding batch for "
                            + TimeUnit.NANOSECONDS.toMillis(stallNs)
                            + " ms (stalled-fail-after " + config.stalledFailAfter() + "; oldest batch "
                            + (checkpointer.isFailedAtHead(partition) ? "failed" : "still unwritten") + ")",
                    null);
        }
    }

    /** Offers every open chunk to its sink; true when something is still pending. */
    private boolean handOffPending() {
        boolean pending = false;
        for (ChunkOutbox outbox : outboxes) {
            pending |= !outbox.flush();
        }
        return pending;
    }

    private void applyBackpressure(boolean pending, long nowNs) {
        switch (pauseController.evaluate(pending, nowNs)) {
            case PAUSE:
                sourceLane.pause();
                paused = true;
                metrics.pauses.increment();
                break;
            case RESUME:
                sourceLane.resume();
                paused = false;
                break;
            default:
                break;
        }
    }

    /**
     * Waits until every batch of {@code partitions} is resolved (written, or failed so nothing more
     * can be committed) or the deadline passes, keeping chunks moving and acks flowing meanwhile.
     */
    private void drain(int[] partitions, long deadlineNs, String reason) {
        while (true) {
            boolean pending = handOffPending();
            runtime.flushSinks();
            drainAcks();
            int unresolved = unresolvedBatches(partitions);
            if (unresolved == 0 && !pending) {
                return;
            }
            if (scheduler.nanoTime() - deadlineNs >= 0) {
                log.warn(
                        "pipeline={} lane={} {} drain reached its deadline with {} batches unwritten; "
                                + "their offsets are not committed and will replay",
                        config.name(),
                        index,
                        reason,
                        unresolved);
                return;
            }
            scheduler.parkNanos(DRAIN_PARK_NS);
        }
    }

    private int unresolvedBatches(int[] partitions) {
        int unresolved = 0;
        for (int partition : partitions) {
            if (checkpointer.isAssigned(partition) && !checkpointer.isFailedAtHead(partition)) {
                unresolved += checkpointer.outstanding(partition);
            }
        }
        return unresolved;
    }

    /**
     * Revoke ({@link LaneAssignments#onRevoked}, the pipeline not failed): flushes the chain, seals and
     * records the partitions' open blocks, drains them and commits synchronously before they leave.
     */
    void drainRevoked(int[] partitions) {
        if (chainFlushable) {
            // Operators emit what they buffered, so the drain below writes it and the commit
            // covers it; what they still hold keeps its batches uncommitted (they replay).
            chain.flush();
        }
        sealBlocksForDrain(partitions);
        drain(partitions, scheduler.nanoTime() + config.drainTimeout().toNanos(), "revoke");
        commits.commitSync("revoke");
    }

    private void teardown(boolean chainOpen) {
        // Whatever was never handed to a sink cannot be written any more: fail its acks.
        long droppedChunks = 0;
        for (ChunkOutbox outbox : outboxes) {
            droppedChunks += outbox.failAll();
        }
        chainFlushable = false;
        reportUnwritten(droppedChunks);
        if (chainOpen) {
            try {
                // Also fails every ack an operator still holds: buffered data replays, never commits.
                chain.close();
            } catch (RuntimeException e) {
                log.warn("pipeline={} lane={} chain close failed", config.name(), index, e);
            }
        }
        if (sourceLane != null) {
            try {
                sourceLane.close();
            } catch (RuntimeException e) {
                log.warn("pipeline={} lane={} source close failed", config.name(), index, e);
            }
        }
        reportStaleAcks();
        context.reportSuppressed(true);
        runtime.laneStopped(index);
    }

    /**
     * Tells the runtime what this lane leaves uncommitted (for the run report's exit code): every
     * batch still outstanding on an assigned partition (not written by the drain deadline, failed, or
     * behind a failed one) and the chunks given up.
     */
    private void reportUnwritten(long droppedChunks) {
        drainAcks();
        long uncommitted = 0;
        long failed = 0;
        for (int partition : checkpointer.partitions()) {
            int outstanding = checkpointer.outstanding(partition);
            uncommitted += outstanding;
            if (checkpointer.isFailedAtHead(partition)) {
                failed += outstanding;
            }
        }
        if (uncommitted > 0 || droppedChunks > 0) {
            log.warn(
                    "pipeline={} lane={} stopped with uncommittedBatches={} (failedBatches={}) droppedChunks={}; "
                            + "their offsets were not committed and will replay",
                    config.name(),
                    index,
                    uncommitted,
                    failed,
                    droppedChunks);
        }
        runtime.laneLeftUnwritten(uncommitted, failed, droppedChunks);
    }

    private void reportStaleAcks() {
        long stale = checkpointer.staleAcks();
        if (stale != reportedStaleAcks) {
            metrics.staleAcks.increment(stale - reportedStaleAcks);
            reportedStaleAcks = stale;
        }
    }

    /** Wakes a poll blocked in the source (shutdown). Any thread. */
    void wakeup() {
        SourceLane lane = sourceLane;
        if (lane != null) {
            lane.wakeup();
        }
    }

    /** Age of this lane's oldest outstanding batch, as of its last loop iteration. Any thread. */
    long watermarkAgeNs() {
        return watermarkAgeNs;
    }

    /** Whether the lane's source has joined its group, as of its last poll. Any thread. */
    boolean hasJoined() {
        return joined;
    }

    /** Names of the partitions paused behind a stalled head, as of the last change. Any thread. */
    List<String> heldPartitions() {
        return stalled.names();
    }

    /** Whether the lane has paused its partitions. Any thread. */
    boolean isPaused() {
        return paused;
    }
}
