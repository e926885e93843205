package dev.etl.autoconfigure;

import java.time.Duration;
import org.springframework.validation.Errors;

/**
 * Rejections shared by the {@code etl.*} properties classes' {@code validate} methods. Each names the
 * property in its {@code etl.*} form and the allowed values, so the startup failure reads as an
 * instruction.
 */
final class EtlPropertiesValidation {

    private EtlPropertiesValidation() {}

    static void positive(Errors errors, String field, String key, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            errors.rejectValue(field, "etl.invalid", key + " must be > 0, got " + value);
        }
    }

    static void notNegative(Errors errors, String field, String key, String meaningOfZero, Duration value) {
        if (value == null || value.isNegative()) {
            errors.rejectValue(field, "etl.invalid", key + " must be >= 0" + meaningOfZero + ", got " + value);
        }
    }
}
