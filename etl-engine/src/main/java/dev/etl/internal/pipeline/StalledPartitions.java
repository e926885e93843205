package dev.etl.internal.pipeline;

import dev.etl.internal.checkpoint.Checkpointer;
import dev.etl.internal.metrics.LaneMetrics;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.source.SourceLane;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.agrona.collections.IntHashSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partitions one lane has paused on their own because their oldest outstanding batch is stalled
 * (see {@link Lane}): {@link #hold} pauses one in the source ({@link SourceLane#pausePartition}),
 * {@link #resume} resumes those down to half of {@link Lane#HOLD_OUTSTANDING_BATCHES} outstanding
 * batches with a head that has not failed (and, with deterministic blocks, whose blocks allow it), and
 * {@link #forget} drops the holds of partitions revoked, lost or assigned anew. The held partitions'
 * names are republished on every change for health details.
 *
 * <p>Confined to the lane thread, except {@link #names()}. Logs under the lane's category.
 */
public final class StalledPartitions {
    private static final Logger log = LoggerFactory.getLogger(Lane.class);
    private static final int RELEASE_OUTSTANDING_BATCHES = Lane.HOLD_OUTSTANDING_BATCHES / 2;

    private final PipelineConfig config;
    private final int index;
    private final Checkpointer checkpointer;
    /** The lane's deterministic blocks, or null. */
    private final LaneBlocks blocks;

    private final LaneMetrics metrics;
    /** Partitions this lane paused on their own because their head is stalled (lane thread only). */
    private final IntHashSet held = new IntHashSet();
    /** {@link #held} by name, republished on every change, for health details. Any thread. */
    private volatile List<String> heldNames = List.of();

    private SourceLane sourceLane;

    StalledPartitions(
            PipelineConfig config, int index, Checkpointer checkpointer, LaneBlocks blocks, LaneMetrics metrics) {
        this.config = config;
        this.index = index;
        this.checkpointer = checkpointer;
        this.blocks = blocks;
        this.metrics = metrics;
    }

    void open(SourceLane sourceLane) {
        this.sourceLane = sourceLane;
    }

    /** Pauses one partition whose head is stalled (see {@link Lane}). */
    void hold(int partition) {
        if (held.add(partition)) {
            sourceLane.pausePartition(partition);
            String name = sourceLane.describe(partition);
            metrics.partitionHeld(name).increment();
            publishHeld();
            // A failed head holds until re-assigned: worth a warning, once per hold. A distance hold is
            // flow control that may repeat under a slow sink: debug only (the counter shows it).
            if (checkpointer.isFailedAtHead(partition)) {
                log.warn(
                        "pipeline={} lane={} partition={} paused: its oldest outstanding batch failed; nothing more "
                                + "can be committed until it is re-assigned (stalled-fail-after {})",
                        config.name(),
                        index,
                        name,
                        config.stalledFailAfter());
            } else {
                log.debug(
                        "pipeline={} lane={} partition={} paused: {} batches outstanding behind an unwritten one",
                        config.name(),
                        index,
                        name,
                        checkpointer.outstanding(partition));
            }
        }
    }

    /** Resumes held partitions whose head is no longer stalled. Allocation-free while none is held. */
    void resume() {
        if (held.isEmpty()) {
            return;
        }
        boolean changed = false;
        IntHashSet.IntIterator it = held.iterator();
        while (it.hasNext()) {
            int partition = it.nextValue();
            if (!checkpointer.isFailedAtHead(partition)
                    && checkpointer.outstanding(partition) <= RELEASE_OUTSTANDING_BATCHES
                    && (blocks == null || blocks.mayResume(partition))) {
                it.remove();
                sourceLane.resumePartition(partition);
                changed = true;
                log.debug(
                        "pipeline={} lane={} partition={} resumed",
                        config.name(),
                        index,
                        sourceLane.describe(partition));
            }
        }
        if (changed) {
            publishHeld();
        }
    }

    /** Forgets holds of partitions that are revoked, lost or assigned anew (a new assignment starts unpaused). */
    void forget(int[] partitions, boolean resumeInSource) {
        boolean changed = false;
        for (int partition : partitions) {
            if (held.remove(partition)) {
                changed = true;
                if (resumeInSource) {
                    sourceLane.resumePartition(partition);
                }
            }
        }
        if (changed) {
            publishHeld();
        }
    }

    private void publishHeld() {
        List<String> names = new ArrayList<>(held.size());
        IntHashSet.IntIterator it = held.iterator();
        while (it.hasNext()) {
            names.add(sourceLane.describe(it.nextValue()));
        }
        Collections.sort(names);
        heldNames = List.copyOf(names);
    }

    /** Names of the partitions paused behind a stalled head, as of the last change. Any thread. */
    List<String> names() {
        return heldNames;
    }
}
