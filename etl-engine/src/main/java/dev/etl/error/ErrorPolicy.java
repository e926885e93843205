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
    FAIL,
    /**
     * Write the failing record's original source bytes (key and value as polled), with where and why
     * it failed, to the pipeline's dead-letter sink ({@code Pipeline.Builder.deadLetter}) and drop it
     * from the chain. Its share of the batch's ack is held by the dead-letter chunk, so its offset is
     * committed only once the dead-letter write is durable; a failed dead-letter write fails the
     * batch (its partition stalls). A pipeline without a dead-letter sink refuses this policy when
     * it is built.
     */
    DEAD_LETTER
}
