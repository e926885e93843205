package dev.etl.autoconfigure;

import dev.etl.error.Secrets;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports an {@link InvalidEtlConfigurationException} as a description and an action. */
class InvalidEtlConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<InvalidEtlConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidEtlConfigurationException cause) {
        // the report is logged: no URL user info, no password=... (the action is our own text)
        return new FailureAnalysis(Secrets.mask(cause.getMessage()), cause.getAction(), cause);
    }
}
