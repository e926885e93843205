package dev.etl.internal.pipeline;

import dev.etl.error.ErrorClass;
import dev.etl.error.FatalPipelineException;
import dev.etl.internal.sink.ChunkOutbox;
import dev.etl.sink.RowEncoder;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One lane's column layouts ({@link RowEncoder#layout()}): between source batches, asks each sink's
 * encoders which layout they want to write ({@link RowEncoder#requestedLayout()}) and, when that changed,
 * switches the sink's outbox so that no chunk, block or batch ever holds rows of two layouts:
 *
 * <ol>
 *   <li>with deterministic blocks, seals every open block of the lane at its position
 *       ({@link LaneBlocks#sealAll}: a block is one partition's offset range for all sinks, so every
 *       sink's blocks are sealed); the seals are recorded write-ahead in the commit metadata like any
 *       other, before their blocks are written;</li>
 *   <li>hands off the outbox's open chunks of the old layout ({@link ChunkOutbox#switchLayout}; parked
 *       when the sink refuses them);</li>
 *   <li>calls {@link RowEncoder#adoptLayout} on each encoder.</li>
 * </ol>
 *
 * <p>The switch waits (the encoders keep writing the current layout) while the sink's encoders ask for
 * different layouts, and while a replayed partition's open block ends at a recorded boundary further on
 * (it cannot be cut early; the replay passes it within a batch or two).
 *
 * <p>Invariant: every encoder writing through an outbox has the outbox's layout, since only this class
 * changes either. So rows emitted later from held acks (timers, a flush) are encoded with the layout of the
 * chunk they land in.
 *
 * <p>Confined to the lane thread. Per source batch: one {@code requestedLayout()} call and an int compare
 * per encoder; no allocation.
 */
final class LaneLayouts {
    private static final Logger log = LoggerFactory.getLogger(LaneLayouts.class);

    private final String pipeline;
    private final int lane;
    /** The lane's deterministic blocks, or null. */
    private final LaneBlocks blocks;
    /** The outboxes some sink stage writes through (set by {@link #open}). */
    private ChunkOutbox[] outboxes = new ChunkOutbox[0];

    private long switches;
    private long deferrals;

    LaneLayouts(String pipeline, int lane, LaneBlocks blocks) {
        this.pipeline = pipeline;
        this.lane = lane;
        this.blocks = blocks;
    }

    /**
     * The chain is built: takes the outboxes its sink stages write through and starts each at its
     * encoders' layout (0 unless an encoder starts evolved).
     *
     * @throws FatalPipelineException when the encoders of one sink start at different layouts
     */
    void open(ChunkOutbox[] all) {
        List<ChunkOutbox> written = new ArrayList<>();
        for (ChunkOutbox outbox : all) {
            RowEncoder<?>[] encoders = outbox.encoders();
            if (encoders.length == 0) {
                continue;
            }
            written.add(outbox);
            int layout = encoders[0].layout();
            for (RowEncoder<?> e : encoders) {
                if (e.layout() != layout) {
                    throw new FatalPipelineException(
                            ErrorClass.ENCODE,
                            "sink '" + sinkName(outbox) + "' is written by encoders of different column layouts in "
                                    + "lane " + lane + ": " + encoders[0] + " writes layout " + layout + ", " + e
                                    + " writes layout " + e.layout() + "; a sink's rows must start in one layout",
                            null);
                }
            }
            outbox.switchLayout(layout); // nothing is open yet: nothing to seal or hand off
        }
        this.outboxes = written.toArray(new ChunkOutbox[0]);
    }

    /** Before a source batch enters the chain: switches every outbox whose encoders ask for another layout. */
    void beforeBatch() {
        ChunkOutbox[] outboxes = this.outboxes;
        for (int i = 0; i < outboxes.length; i++) {
            ChunkOutbox outbox = outboxes[i];
            int requested = outbox.requestedLayout();
            if (requested != outbox.layout()) {
                switchLayout(outbox, requested);
            }
        }
    }

    private void switchLayout(ChunkOutbox outbox, int layout) {
        int from = outbox.layout();
        if (outbox.blocks() != null && blocks != null) {
            if (blocks.replayingOpenBlock()) {
                if (deferrals++ == 0) {
                    log.info(
                            "pipeline={} lane={} sink '{}': column layout {} waits until the replay of recorded "
                                    + "blocks has passed the open ones (their rows stay in layout {})",
                            pipeline,
                            lane,
                            sinkName(outbox),
                            layout,
                            from);
                }
                return;
            }
            blocks.sealAll(null);
        }
        outbox.switchLayout(layout);
        for (RowEncoder<?> encoder : outbox.encoders()) {
            try {
                if (encoder.layout() != layout) {
                    encoder.adoptLayout(layout);
                }
            } catch (RuntimeException e) {
                throw new FatalPipelineException(
                        ErrorClass.ENCODE,
                        "encoder " + encoder + " of sink '" + sinkName(outbox) + "' asked for column layout " + layout
                                + " but could not adopt it: " + e,
                        e);
            }
        }
        RowEncoder<?> off = outbox.encoderOffLayout();
        if (off != null) {
            throw new FatalPipelineException(
                    ErrorClass.ENCODE,
                    "encoder " + off + " of sink '" + sinkName(outbox) + "' writes column layout " + off.layout()
                            + " after adopting layout " + layout + " (encoder bug)",
                    null);
        }
        switches++;
        log.info(
                "pipeline={} lane={} sink '{}': rows are encoded in column layout {} from now on (was {}); "
                        + "the open chunks and blocks of layout {} are sealed and handed off",
                pipeline,
                lane,
                sinkName(outbox),
                layout,
                from,
                from);
    }

    /** Layout switches made so far (tests). */
    long switches() {
        return switches;
    }

    private static String sinkName(ChunkOutbox outbox) {
        return outbox.definition() != null ? outbox.definition().name() : "?";
    }
}
