package dev.etl.pipeline;

/** Life-cycle states of a pipeline run. Transitions only move forward. */
public enum PipelineState {
    /** Built; lanes and sinks are starting. */
    STARTING(0),
    /** Lanes are polling and processing. */
    RUNNING(1),
    /** Shutdown requested: lanes stopped polling and are draining in-flight data, then committing. */
    DRAINING(2),
    /** Drained and stopped; the run report is final. */
    STOPPED(3),
    /** A fatal error stopped the pipeline; nothing further was committed. */
    FAILED(4);

    private final int code;

    PipelineState(int code) {
        this.code = code;
    }

    /** Numeric value exported as the {@code etl_pipeline_state} gauge. */
    public int code() {
        return code;
    }

    public boolean isTerminal() {
        return this == STOPPED || this == FAILED;
    }
}
