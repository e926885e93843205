package dev.etl.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports an {@link InvalidEtlConfigurationException} as a description and an action. */
class InvalidEtlConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<InvalidEtlConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidEtlConfigurationException cause) {
        return new FailureAnalysis(cause.getMessage(), cause.getAction(), cause);
    }

}
