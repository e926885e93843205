package dev.etl.pipeline;

import org.jspecify.annotations.Nullable;

/**
 * How a pipeline run ended, and what it left unwritten.
 *
 * <p>The exit code is 0 only when everything polled was written, or deliberately skipped or
 * dead-lettered, and committed: {@link #EXIT_FAILED 1} when the pipeline failed; otherwise
 * {@link #EXIT_ABANDONED 2} when any of the counts below is non-zero (a clean shutdown, but data was
 * left unwritten: its offsets were not committed and it replays on restart); else {@link #EXIT_OK 0}.
 *
 * @param state              {@link PipelineState#STOPPED} or {@link PipelineState#FAILED}
 * @param failure            the fatal error when failed, else null
 * @param abandonedBatches   sink batches abandoned unwritten at the drain deadline
 * @param recordsIn          records polled from the source
 * @param uncommittedBatches source batches (one per partition per poll) the lanes still held
 *                           uncommitted when they stopped: not written by the drain deadline, or
 *                           behind a failed batch ({@code failedBatches} of them failed); their
 *                           offsets were not committed and they replay
 * @param failedBatches      of {@code uncommittedBatches}, those at or behind a failed head batch
 * @param droppedChunks      chunks the lanes gave up without handing them to a sink (refused by a
 *                           full sink until the lane stopped)
 */
public record RunReport(
        PipelineState state,
        @Nullable Throwable failure,
        long abandonedBatches,
        long recordsIn,
        long uncommittedBatches,
        long failedBatches,
        long droppedChunks) {
    /** Exit status of a clean drain. */
    public static final int EXIT_OK = 0;
    /** Exit status of a failed pipeline. */
    public static final int EXIT_FAILED = 1;
    /**
     * Exit status of a shutdown that left data unwritten (abandoned at the drain deadline, behind a
     * failed batch, or never handed to a sink): nothing lost, it replays, but say so.
     */
    public static final int EXIT_ABANDONED = 2;

    /** A report with no lane-side counts (sink-abandoned batches only). */
    public RunReport(PipelineState state, Throwable failure, long abandonedBatches, long recordsIn) {
        this(state, failure, abandonedBatches, recordsIn, 0, 0, 0);
    }

    /** Whether anything polled was left unwritten (and uncommitted). */
    public boolean leftDataUnwritten() {
        return abandonedBatches > 0 || uncommittedBatches > 0 || failedBatches > 0 || droppedChunks > 0;
    }

    /** 0 for a clean run; 1 when failed; 2 when data was left unwritten (see the class comment). */
    public int exitCode() {
        if (state == PipelineState.FAILED) {
            return EXIT_FAILED;
        }
        return leftDataUnwritten() ? EXIT_ABANDONED : EXIT_OK;
    }
}
