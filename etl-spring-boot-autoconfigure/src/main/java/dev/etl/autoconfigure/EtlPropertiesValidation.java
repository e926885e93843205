package dev.etl.autoconfigure;

import java.time.Duration;
import org.springframework.validation.Errors;

/**
 * The checks behind {@link EtlProperties#validate}. Each rejection names the property in its
 * {@code etl.*} form and the allowed values, so the startup failure reads as an instruction.
 */
final class EtlPropertiesValidation {

    private final EtlProperties properties;

    private final Errors errors;

    EtlPropertiesValidation(EtlProperties properties, Errors errors) {
        this.properties = properties;
        this.errors = errors;
    }

    void validate() {
        pipeline();
        checkpoint();
        backpressure();
        errors();
    }

    private void errors() {
        EtlErrorsProperties errors = this.properties.getErrors();
        errors.getTypes().forEach((type, policy) -> {
            if (policy == dev.etl.error.ErrorPolicy.DEAD_LETTER
                    && type != dev.etl.error.ErrorClass.DESERIALIZATION
                    && type != dev.etl.error.ErrorClass.OPERATOR
                    && type != dev.etl.error.ErrorClass.ENCODE) {
                reject(
                        "errors.types",
                        "etl.errors.types." + type.label().replace('_', '-') + " cannot be "
                                + "DEAD_LETTER: only record failures (deserialization, operator, encode) can be dead-lettered");
            }
        });
    }

    private void pipeline() {
        EtlProperties.Pipeline pipeline = this.properties.getPipeline();
        if (pipeline.getName() != null && pipeline.getName().isBlank()) {
            reject(
                    "pipeline.name",
                    "etl.pipeline.name must not be blank (leave it unset to use "
                            + "spring.application.name or \"etl\")");
        }
        atLeastOne("pipeline.threads", "etl.pipeline.threads", pipeline.getThreads());
        if (pipeline.getIoThreads() < 0) {
            reject(
                    "pipeline.ioThreads",
                    "etl.pipeline.io-threads must be >= 0 (0 = one per shard), got " + pipeline.getIoThreads());
        }
        positive("pipeline.pollTimeout", "etl.pipeline.poll-timeout", pipeline.getPollTimeout());
    }

    private void checkpoint() {
        EtlProperties.Checkpoint checkpoint = this.properties.getCheckpoint();
        positive("checkpoint.interval", "etl.checkpoint.interval", checkpoint.getInterval());
        positive("checkpoint.drainTimeout", "etl.checkpoint.drain-timeout", checkpoint.getDrainTimeout());
        Duration stalled = checkpoint.getStalledFailAfter();
        if (stalled == null || stalled.isNegative()) {
            reject(
                    "checkpoint.stalledFailAfter",
                    "etl.checkpoint.stalled-fail-after must be >= 0 (0 disables the check), got " + stalled);
        }
    }

    private void backpressure() {
        EtlProperties.Backpressure backpressure = this.properties.getBackpressure();
        // Unset (null) means the heap-derived default.
        if (backpressure.getMaxInFlightBytes() != null
                && backpressure.getMaxInFlightBytes().toBytes() <= 0) {
            reject(
                    "backpressure.maxInFlightBytes",
                    "etl.backpressure.max-in-flight-bytes must be > 0, got " + backpressure.getMaxInFlightBytes());
        }
        double pauseAbove = backpressure.getPauseAbove();
        if (!(pauseAbove > 0 && pauseAbove <= 1)) {
            reject(
                    "backpressure.pauseAbove",
                    "etl.backpressure.pause-above must be in (0, 1] (a fraction of max-in-flight-bytes), got "
                            + pauseAbove);
        }
        double resumeBelow = backpressure.getResumeBelow();
        if (resumeBelow < 0) {
            reject("backpressure.resumeBelow", "etl.backpressure.resume-below must be >= 0, got " + resumeBelow);
        } else if (resumeBelow >= pauseAbove) {
            reject(
                    "backpressure.resumeBelow",
                    "etl.backpressure.resume-below must be < pause-above (" + pauseAbove + "), got " + resumeBelow);
        }
        Duration minPause = backpressure.getMinPause();
        if (minPause == null || minPause.isNegative()) {
            reject("backpressure.minPause", "etl.backpressure.min-pause must be >= 0, got " + minPause);
        }
    }

    private void atLeastOne(String field, String key, int value) {
        if (value < 1) {
            reject(field, key + " must be >= 1, got " + value);
        }
    }

    private void positive(String field, String key, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            reject(field, key + " must be > 0, got " + value);
        }
    }

    private void reject(String field, String message) {
        this.errors.rejectValue(field, "etl.invalid", message);
    }
}
