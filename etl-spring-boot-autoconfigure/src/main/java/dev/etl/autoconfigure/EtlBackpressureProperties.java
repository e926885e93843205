package dev.etl.autoconfigure;

import dev.etl.pipeline.PipelineConfig;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * The in-flight byte budget and pause/resume hysteresis ({@code etl.backpressure.*}). Defaults are
 * the engine's ({@link PipelineConfig}'s {@code DEFAULT_*} constants).
 *
 * <p>Validated when bound (the class is its own {@link Validator}), so a bad value fails startup with
 * the property's name, its origin, and the allowed values.
 */
@ConfigurationProperties("etl.backpressure")
public class EtlBackpressureProperties implements Validator {

    /**
     * Global budget of encoded bytes handed to sinks and not yet written. Unset: a quarter of the
     * JVM's maximum heap, between 32 MiB and 1 GiB (256 MiB for -Xmx1g, 512 MiB for -Xmx2g).
     */
    private DataSize maxInFlightBytes;

    /**
     * Budget utilisation, in (0, 1], at which lanes pause their partitions (and keep polling).
     */
    private double pauseAbove = PipelineConfig.DEFAULT_PAUSE_ABOVE;

    /**
     * Budget utilisation, in [0, pause-above), below which paused lanes resume.
     */
    private double resumeBelow = PipelineConfig.DEFAULT_RESUME_BELOW;

    /**
     * Shortest pause, against flapping.
     */
    private Duration minPause = PipelineConfig.DEFAULT_MIN_PAUSE;

    public @Nullable DataSize getMaxInFlightBytes() {
        return this.maxInFlightBytes;
    }

    public void setMaxInFlightBytes(@Nullable DataSize maxInFlightBytes) {
        this.maxInFlightBytes = maxInFlightBytes;
    }

    public double getPauseAbove() {
        return this.pauseAbove;
    }

    public void setPauseAbove(double pauseAbove) {
        this.pauseAbove = pauseAbove;
    }

    public double getResumeBelow() {
        return this.resumeBelow;
    }

    public void setResumeBelow(double resumeBelow) {
        this.resumeBelow = resumeBelow;
    }

    public Duration getMinPause() {
        return this.minPause;
    }

    public void setMinPause(Duration minPause) {
        this.minPause = minPause;
    }

    @Override
    public boolean supports(Class<?> clazz) {
        return EtlBackpressureProperties.class.isAssignableFrom(clazz);
    }

    @Override
    public void validate(Object target, Errors errors) {
        EtlBackpressureProperties backpressure = (EtlBackpressureProperties) target;
        // Unset (null) means the heap-derived default.
        if (backpressure.getMaxInFlightBytes() != null
                && backpressure.getMaxInFlightBytes().toBytes() <= 0) {
            errors.rejectValue(
                    "maxInFlightBytes",
                    "etl.invalid",
                    "etl.backpressure.max-in-flight-bytes must be > 0, got " + backpressure.getMaxInFlightBytes());
        }
        double pauseAbove = backpressure.getPauseAbove();
        if (!(pauseAbove > 0 && pauseAbove <= 1)) {
            errors.rejectValue(
                    "pauseAbove",
                    "etl.invalid",
                    "etl.backpressure.pause-above must be in (0, 1] (a fraction of max-in-flight-bytes), got "
                            + pauseAbove);
        }
        double resumeBelow = backpressure.getResumeBelow();
        if (resumeBelow < 0) {
            errors.rejectValue(
                    "resumeBelow", "etl.invalid", "etl.backpressure.resume-below must be >= 0, got " + resumeBelow);
        } else if (resumeBelow >= pauseAbove) {
            errors.rejectValue(
                    "resumeBelow",
                    "etl.invalid",
                    "etl.backpressure.resume-below must be < pause-above (" + pauseAbove + "), got " + resumeBelow);
        }
        EtlPropertiesValidation.notNegative(
                errors, "minPause", "etl.backpressure.min-pause", "", backpressure.getMinPause());
    }
}
