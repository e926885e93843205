package dev.etl.autoconfigure;

import dev.etl.pipeline.PipelineConfig;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Watermark commits and the drain barrier ({@code etl.checkpoint.*}). Defaults are the engine's
 * ({@link PipelineConfig}'s {@code DEFAULT_*} constants).
 *
 * <p>Validated when bound (the class is its own {@link Validator}), so a bad value fails startup with
 * the property's name, its origin, and the allowed values.
 */
@ConfigurationProperties("etl.checkpoint")
public class EtlCheckpointProperties implements Validator {

    /**
     * How often advanced watermarks are committed (asynchronously). Revokes and shutdown commit
     * synchronously regardless.
     */
    private Duration interval = PipelineConfig.DEFAULT_CHECKPOINT_INTERVAL;

    /**
     * Bound on draining in-flight data at revoke and at shutdown; batches still unwritten then are
     * abandoned and their offsets not committed. Must fit inside
     * "spring.lifecycle.timeout-per-shutdown-phase".
     */
    private Duration drainTimeout = PipelineConfig.DEFAULT_DRAIN_TIMEOUT;

    /**
     * Fail the pipeline when a partition's watermark has not advanced past outstanding data for
     * this long (a failed or unwritten oldest batch, or one a stateful operator keeps with no timer
     * scheduled; the partition itself is paused meanwhile). Data an operator keeps while its timer is
     * scheduled does not count until it is emitted. Longer than a shard outage that retries ride out. 0
     * disables the check.
     */
    private Duration stalledFailAfter = PipelineConfig.DEFAULT_STALLED_FAIL_AFTER;

    public Duration getInterval() {
        return this.interval;
    }

    public void setInterval(Duration interval) {
        this.interval = interval;
    }

    public Duration getDrainTimeout() {
        return this.drainTimeout;
    }

    public void setDrainTimeout(Duration drainTimeout) {
        this.drainTimeout = drainTimeout;
    }

    public Duration getStalledFailAfter() {
        return this.stalledFailAfter;
    }

    public void setStalledFailAfter(Duration stalledFailAfter) {
        this.stalledFailAfter = stalledFailAfter;
    }

    @Override
    public boolean supports(Class<?> clazz) {
        return EtlCheckpointProperties.class.isAssignableFrom(clazz);
    }

    @Override
    public void validate(Object target, Errors errors) {
        EtlCheckpointProperties checkpoint = (EtlCheckpointProperties) target;
        EtlPropertiesValidation.positive(errors, "interval", "etl.checkpoint.interval", checkpoint.getInterval());
        EtlPropertiesValidation.positive(
                errors, "drainTimeout", "etl.checkpoint.drain-timeout", checkpoint.getDrainTimeout());
        EtlPropertiesValidation.notNegative(
                errors,
                "stalledFailAfter",
                "etl.checkpoint.stalled-fail-after",
                " (0 disables the check)",
                checkpoint.getStalledFailAfter());
    }
}
