package dev.etl.error;

/** What a stage does with a record that failed in it. */
public enum ErrorPolicy {
    /**
     * Count the failure ({@code etl_errors_total{error_type,stage}}), log it rate-limited, drop the
     * record and resolve its share of the ack as success: its offset may be committed.
     */
    SKIP,
    /**
     * Stop the pipeline: it goes to {@code FAILED}, watermarks stop advancing (the failed batch and
     * everything after it is never committed), and the process exits non-zero.
     */
    FAIL
}
