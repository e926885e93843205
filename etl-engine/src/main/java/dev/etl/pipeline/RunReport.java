package dev.etl.pipeline;

/**
 * How a pipeline run ended.
 *
 * @param state            {@link PipelineState#STOPPED} or {@link PipelineState#FAILED}
 * @param failure          the fatal error when failed, else null
 * @param abandonedBatches sink batches abandoned unwritten at the drain deadline (their offsets were
 *                         not committed; they replay on restart)
 * @param recordsIn        records polled from the source
 */
public record RunReport(PipelineState state, Throwable failure, long abandonedBatches, long recordsIn) {
    /** Exit status of a clean drain. */
    public static final int EXIT_OK = 0;
    /** Exit status of a failed pipeline. */
    public static final int EXIT_FAILED = 1;
    /** Exit status of a shutdown that abandoned unwritten data (nothing lost: it replays, but say so). */
    public static final int EXIT_ABANDONED = 2;

    /** 0 for a clean run; 1 when failed; 2 when data was abandoned at the drain deadline. */
    public int exitCode() {
        if (state == PipelineState.FAILED) {
            return EXIT_FAILED;
        }
        return abandonedBatches > 0 ? EXIT_ABANDONED : EXIT_OK;
    }
}
