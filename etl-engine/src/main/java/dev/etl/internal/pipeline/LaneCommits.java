package dev.etl.internal.pipeline;

import dev.etl.internal.checkpoint.Checkpointer;
import dev.etl.internal.metrics.LaneMetrics;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineState;
import dev.etl.source.CommitOffsets;
import dev.etl.source.SourceLane;
import org.agrona.collections.Long2LongHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How one lane commits: what is committable (the checkpointer's watermarks, or with deterministic
 * blocks the highest block boundary at or below them plus the boundary metadata), when (every
 * checkpoint interval; with blocks also as soon as a sealed block's end must be recorded before it may be
 * written, or written blocks let the committed offset move to a later boundary, at most every
 * {@link LaneBlocks#BOUNDARY_COMMIT_SPACING_NS}; synchronously at revoke and shutdown), and what a
 * commit's success changes. Nothing is
 * committed once the pipeline has failed. At most one asynchronous commit is in flight.
 *
 * <p>Confined to the lane thread (callbacks of asynchronous commits arrive there too, from inside a
 * later poll or commit).
 */
public final class LaneCommits {
    private static final Logger log = LoggerFactory.getLogger(LaneCommits.class);

    private final PipelineRun runtime;
    private final PipelineConfig config;
    private final int index;
    private final Checkpointer checkpointer;
    private final LaneBlocks blocks;
    private final LaneMetrics metrics;
    private final long checkpointIntervalNs;
    /** Reused to collect committable watermarks (commits happen per interval, revoke and shutdown). */
    private final Long2LongHashMap committableScratch = new Long2LongHashMap(-1);

    private final SourceLane.CommitCallback asyncCallback = this::onAsyncCommit;
    private final java.util.function.IntToLongFunction watermarks;
    private SourceLane sourceLane;
    private long nextCommitNs;
    private long lastBoundaryCommitNs;
    /** The asynchronous commit in flight, or null. */
    private CommitOffsets inFlight;

    private LaneBlocks.BlockCommit inFlightBlocks;

    LaneCommits(PipelineRun runtime, int index, Checkpointer checkpointer, LaneBlocks blocks, LaneMetrics metrics) {
        this.runtime = runtime;
        this.config = runtime.config();
        this.index = index;
        this.checkpointer = checkpointer;
        this.blocks = blocks;
        this.metrics = metrics;
        this.checkpointIntervalNs = config.checkpointInterval().toNanos();
        this.watermarks = checkpointer::watermark;
    }

    void open(SourceLane sourceLane, long nowNs) {
        this.sourceLane = sourceLane;
        this.nextCommitNs = nowNs + checkpointIntervalNs;
    }

    /**
     * Loop step: an asynchronous commit when the interval has passed, or (deterministic blocks) when
     * sealed blocks wait for their ends to be recorded.
     */
    void commitIfDue(long nowNs) {
        boolean interval = nowNs - nextCommitNs >= 0;
        boolean boundaries = blocks != null
                && nowNs - lastBoundaryCommitNs >= LaneBlocks.BOUNDARY_COMMIT_SPACING_NS
                && (blocks.hasUnrecorded() || blocks.canAdvance(watermarks));
        if (!interval && !boundaries) {
            return;
        }
        if (interval) {
            nextCommitNs = nowNs + checkpointIntervalNs;
        }
        if (inFlight != null || runtime.state() == PipelineState.FAILED) {
            return; // one in flight at a time; nothing is committed once FAILED
        }
        if (boundaries) {
            lastBoundaryCommitNs = nowNs;
        }
        Prepared prepared = prepare();
        if (prepared != null) {
            inFlight = prepared.offsets();
            inFlightBlocks = prepared.blocks();
            sourceLane.commit(prepared.offsets(), false, asyncCallback);
        }
    }

    /** A commit to send, and (deterministic blocks) what it records. */
    private record Prepared(CommitOffsets offsets, LaneBlocks.BlockCommit blocks) {}

    /** What can be committed now, or null when nothing changed. */
    private Prepared prepare() {
        if (blocks != null) {
            LaneBlocks.BlockCommit commit = blocks.commit(watermarks);
            return commit == null ? null : new Prepared(commit.offsets(), commit);
        }
        committableScratch.clear();
        if (checkpointer.collectCommittable(committableScratch) == 0) {
            return null;
        }
        CommitOffsets.Builder offsets = CommitOffsets.builder(committableScratch.size());
        Long2LongHashMap.EntryIterator it = committableScratch.entrySet().iterator();
        while (it.hasNext()) {
            it.next();
            offsets.add((int) it.getLongKey(), it.getLongValue(), null);
        }
        return new Prepared(offsets.build(), null);
    }

    private void onAsyncCommit(CommitOffsets offsets, Exception error) {
        LaneBlocks.BlockCommit commit = offsets == inFlight ? inFlightBlocks : null;
        if (offsets == inFlight) {
            inFlight = null;
            inFlightBlocks = null;
        }
        if (error == null) {
            succeeded(offsets, commit);
            metrics.commitsAsyncOk.increment();
        } else {
            metrics.commitsAsyncFailed.increment();
            if (error.getClass().getSimpleName().equals("RebalanceInProgressException")) {
                // Expected during a cooperative rebalance; the revoke commits synchronously anyway.
                log.debug(
                        "pipeline={} lane={} asynchronous commit deferred by a rebalance in progress",
                        config.name(),
                        index);
            } else {
                log.warn(
                        "pipeline={} lane={} asynchronous commit of {} failed (will retry): {}",
                        config.name(),
                        index,
                        offsets,
                        error.toString());
            }
        }
    }

    private void succeeded(CommitOffsets offsets, LaneBlocks.BlockCommit commit) {
        for (int i = 0; i < offsets.size(); i++) {
            int partition = offsets.partition(i);
            checkpointer.markCommitted(partition, offsets.offset(i));
            runtime.committed(partition, offsets.offset(i));
        }
        if (commit != null) {
            blocks.committed(commit);
        }
    }

    /** A synchronous commit (revoke, shutdown, boundaries before a drain); false when it failed or was skipped. */
    boolean commitSync(String reason) {
        if (runtime.state() == PipelineState.FAILED) {
            // The pipeline failed (possibly during this drain): nothing is committed after FAILED.
            log.info(
                    "pipeline={} lane={} not committing at {}: the pipeline has failed; uncommitted offsets replay",
                    config.name(),
                    index,
                    reason);
            return false;
        }
        Prepared prepared = prepare();
        if (prepared == null) {
            return true;
        }
        CommitOffsets offsets = prepared.offsets();
        try {
            sourceLane.commit(offsets, true, null);
            succeeded(offsets, prepared.blocks());
            metrics.commitsSyncOk.increment();
            log.debug("pipeline={} lane={} committed {} at {}", config.name(), index, offsets, reason);
            return true;
        } catch (RuntimeException e) {
            metrics.commitsSyncFailed.increment();
            log.warn(
                    "pipeline={} lane={} synchronous commit at {} failed; those offsets replay: {}",
                    config.name(),
                    index,
                    reason,
                    e.toString());
            return false;
        }
    }
}
