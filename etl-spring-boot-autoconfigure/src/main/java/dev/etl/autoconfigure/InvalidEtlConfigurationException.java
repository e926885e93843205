package dev.etl.autoconfigure;

/**
 * Thrown at startup when the configuration would silently lose its meaning: an {@code etl.*} property
 * that binds to nothing (a typo), or a Kafka setting the pipeline cannot honour
 * ({@code spring.kafka.consumer.enable-auto-commit=true}). {@link InvalidEtlConfigurationFailureAnalyzer}
 * reports it as a description and an action.
 */
public class InvalidEtlConfigurationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String action;

    public InvalidEtlConfigurationException(String description, String action) {
        super(description);
        this.action = action;
    }

    /** What the user should do about it. */
    public String getAction() {
        return this.action;
    }
}
