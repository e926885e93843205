package dev.etl.autoconfigure.actuate;

import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Secrets stay masked in Actuator's {@code env} and {@code configprops} endpoints even when an
 * operator switches {@code show-values} on: an {@link EtlSecretsSanitizingFunction} bean, which
 * Boot's endpoints apply to every value they show. Present whenever Actuator is on the class path,
 * whether or not a pipeline runs; an application's own bean named {@code etlSecretsSanitizingFunction}
 * replaces it.
 */
@AutoConfiguration
@ConditionalOnClass(SanitizingFunction.class)
public final class EtlSecretsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "etlSecretsSanitizingFunction")
    EtlSecretsSanitizingFunction etlSecretsSanitizingFunction() {
        return new EtlSecretsSanitizingFunction();
    }
}
