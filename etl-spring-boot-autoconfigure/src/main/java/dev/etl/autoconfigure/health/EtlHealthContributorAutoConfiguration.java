package dev.etl.autoconfigure.health;

import dev.etl.autoconfigure.EtlAutoConfiguration;
import dev.etl.pipeline.PipelineRuntime;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Health of the pipeline: an {@code etl} contributor with {@code liveness} and {@code readiness}
 * members ({@link EtlHealthIndicator}), added to Boot's probe groups and served at {@code /healthz}
 * and {@code /readyz} ({@link EtlProbeGroupsPostProcessor}). Switched off with
 * {@code management.health.etl.enabled=false}. On Reactor Netty older than 1.3.8 it warns at startup
 * ({@link ReactorNettyKeepAliveCheck}).
 */
@AutoConfiguration(
        after = EtlAutoConfiguration.class,
        afterName =
                "org.springframework.boot.health.autoconfigure.actuate.endpoint.AvailabilityProbesAutoConfiguration")
@ConditionalOnClass(CompositeHealthContributor.class)
@ConditionalOnBean(PipelineRuntime.class)
@ConditionalOnEnabledHealthIndicator("etl")
public final class EtlHealthContributorAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "etlHealthContributor")
    CompositeHealthContributor etlHealthContributor(PipelineRuntime runtime) {
        Map<String, HealthContributor> probes = new LinkedHashMap<>();
        probes.put("liveness", new EtlHealthIndicator(runtime, EtlHealthIndicator.Probe.LIVENESS));
        probes.put("readiness", new EtlHealthIndicator(runtime, EtlHealthIndicator.Probe.READINESS));
        return CompositeHealthContributor.fromMap(probes);
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(
            name = {
                "org.springframework.boot.health.actuate.endpoint.HealthEndpointGroupsPostProcessor",
                "org.springframework.boot.actuate.endpoint.web.AdditionalPathsMapper"
            })
    static class ProbeGroupsConfiguration {

        @Bean
        EtlProbeGroupsPostProcessor etlProbeGroupsPostProcessor(Environment environment) {
            return new EtlProbeGroupsPostProcessor(environment);
        }
    }

    /** The probes on Reactor Netty: warns of versions that leave kept-alive requests unanswered. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    @ConditionalOnClass(name = "reactor.netty.http.server.HttpServer")
    static class ReactorNettyConfiguration {

        @Bean
        SmartInitializingSingleton etlReactorNettyKeepAliveCheck() {
            return () -> ReactorNettyKeepAliveCheck.warnIfAffected(ReactorNettyConfiguration.class.getClassLoader());
        }
    }
}
