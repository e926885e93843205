package dev.etl.autoconfigure.actuate;

import dev.etl.error.Secrets;
import org.springframework.boot.actuate.endpoint.SanitizableData;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;

/**
 * Masks secrets in what {@code /actuator/env} and {@code /actuator/configprops} show <em>when values
 * are shown at all</em> ({@code management.endpoint.env.show-values} / {@code
 * management.endpoint.configprops.show-values} set to {@code always} or {@code when-authorized}; by
 * default Boot shows no value): the value of every key that {@link Secrets#isSecretKey names a secret}
 * ({@code etl.sink.clickhouse.password}, {@code etl.avro.registry.password},
 * {@code spring.kafka.properties.sasl.jaas.config}, {@code spring.ssl.bundle.*.password}, their
 * environment-variable forms) becomes {@value SanitizableData#SANITIZED_VALUE}, and in every other
 * text value the password of URL user info and {@code password=…} assignments are masked
 * ({@link Secrets#mask}), so {@code etl.avro.registry.url=https://etl:…@registry} shows the user but
 * not the password.
 */
public final class EtlSecretsSanitizingFunction implements SanitizingFunction {

    @Override
    public SanitizableData apply(SanitizableData data) {
        Object value = data.getValue();
        if (value == null) {
            return data;
        }
        if (Secrets.isSecretKey(data.getKey())) {
            return data.withSanitizedValue();
        }
        if (value instanceof CharSequence text) {
            String original = text.toString();
            String masked = Secrets.mask(original);
            if (!masked.equals(original)) {
                return data.withValue(masked);
            }
        }
        return data;
    }
}
