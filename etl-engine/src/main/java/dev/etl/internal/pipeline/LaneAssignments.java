package dev.etl.internal.pipeline;

import dev.etl.internal.checkpoint.Checkpointer;
import dev.etl.internal.metrics.LaneMetrics;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineState;
import dev.etl.source.PartitionListener;
import dev.etl.source.SourceLane;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link PartitionListener} a {@link Lane} opens its source lane with: what the lane does when its
 * assignment changes. An assigned partition gets a new epoch in the checkpointer and, with deterministic
 * blocks, the block ends its previous owner recorded; a revoked one is drained and committed
 * synchronously first ({@link Lane#drainRevoked}, unless the pipeline has failed), then dropped; a lost
 * one is dropped without a commit. Each forgets its {@link StalledPartitions stalled partitions}.
 *
 * <p>Confined to the lane thread: the source calls it from inside a poll (or from its close). Logs
 * under the lane's category.
 */
public final class LaneAssignments implements PartitionListener {
    private static final Logger log = LoggerFactory.getLogger(Lane.class);

    private final Lane lane;
    private final PipelineRun runtime;
    private final PipelineConfig config;
    private final int index;
    private final Checkpointer checkpointer;
    /** The lane's deterministic blocks, or null. */
    private final LaneBlocks blocks;

    private final StalledPartitions stalled;
    private final LaneMetrics metrics;
    private SourceLane sourceLane;

    LaneAssignments(
            Lane lane,
            PipelineRun runtime,
            int index,
            Checkpointer checkpointer,
            LaneBlocks blocks,
            StalledPartitions stalled,
            LaneMetrics metrics) {
        this.lane = lane;
        this.runtime = runtime;
        this.config = runtime.config();
        this.index = index;
        this.checkpointer = checkpointer;
        this.blocks = blocks;
        this.stalled = stalled;
        this.metrics = metrics;
    }

    void open(SourceLane sourceLane) {
        this.sourceLane = sourceLane;
    }

    @Override
    public void onAssigned(int[] partitions) {
        stalled.forget(partitions, true);
        for (int partition : partitions) {
            checkpointer.assign(partition);
            if (blocks != null) {
                // Where the previous owner's blocks ended: a replay seals at exactly those offsets.
                blocks.assigned(partition, checkpointer.epoch(partition), sourceLane.committed(partition));
            }
            metrics.partitionHeld(sourceLane.describe(partition)); // registered while owned, at 0 until a hold
        }
        metrics.rebalanceAssigned.increment(partitions.length);
        log.info("pipeline={} lane={} assigned {}", config.name(), index, names(partitions));
    }

    @Override
    public void onRevoked(int[] partitions) {
        metrics.rebalanceRevoked.increment(partitions.length);
        if (runtime.state() != PipelineState.FAILED) {
            lane.drainRevoked(partitions);
        }
        for (int partition : partitions) {
            checkpointer.remove(partition);
            if (blocks != null) {
                blocks.removed(partition);
            }
        }
        stalled.forget(partitions, false);
        log.info("pipeline={} lane={} revoked {}", config.name(), index, names(partitions));
    }

    @Override
    public void onLost(int[] partitions) {
        metrics.rebalanceLost.increment(partitions.length);
        for (int partition : partitions) {
            checkpointer.remove(partition);
            if (blocks != null) {
                blocks.removed(partition);
            }
        }
        stalled.forget(partitions, false);
        log.warn(
                "pipeline={} lane={} lost {} without a chance to commit; in-flight data replays on the new owner",
                config.name(),
                index,
                names(partitions));
    }

    private String names(int[] partitions) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < partitions.length; i++) {
            sb.append(i == 0 ? "" : ", ").append(sourceLane.describe(partitions[i]));
        }
        return sb.append(']').toString();
    }
}
