package dev.etl.autoconfigure;

/**
 * Thrown at startup when the application context's beans do not make a pipeline: no
 * {@code ChainFactory}, no {@code Source} or no {@code SinkDefinition} bean, two sources, or chain
 * factories that claim the same topic. {@link PipelineFailureAnalyzer} reports it as a description
 * and an action.
 */
public class PipelineAssemblyException extends RuntimeException {

    private final String action;

    public PipelineAssemblyException(String description, String action) {
        super(description);
        this.action = action;
    }

    /** What the user should do about it. */
    public String getAction() {
        return this.action;
    }
}
