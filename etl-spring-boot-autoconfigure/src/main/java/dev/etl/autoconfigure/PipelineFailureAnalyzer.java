package dev.etl.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a {@link PipelineAssemblyException} as a description and an action. */
class PipelineFailureAnalyzer extends AbstractFailureAnalyzer<PipelineAssemblyException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, PipelineAssemblyException cause) {
        return new FailureAnalysis(cause.getMessage(), cause.getAction(), cause);
    }

}
