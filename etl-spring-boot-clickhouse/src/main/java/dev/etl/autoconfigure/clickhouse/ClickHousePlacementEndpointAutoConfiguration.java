package dev.etl.autoconfigure.clickhouse;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code etlplacement} Actuator endpoint ({@link ClickHousePlacementEndpoint}), when Actuator is on the
 * class path, the ClickHouse sink is configured and the endpoint is available
 * ({@code management.endpoints.web.exposure.include} names it, or it is exposed over JMX, and
 * {@code management.endpoint.etlplacement.access} is not {@code none}).
 */
@AutoConfiguration(after = ClickHouseSinkAutoConfiguration.class)
@ConditionalOnClass(
        name = {
            "dev.etl.clickhouse.ClickHouseSink",
            "org.springframework.boot.actuate.endpoint.annotation.Endpoint",
            "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint"
        })
@ConditionalOnBean(ClickHouseSinkConfigs.class)
public final class ClickHousePlacementEndpointAutoConfiguration {

    /** Nested: its condition's class is only loaded once Actuator is known to be present. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnAvailableEndpoint(ClickHousePlacementEndpoint.class)
    static class EndpointConfiguration {

        @Bean
        @ConditionalOnMissingBean
        ClickHousePlacementEndpoint etlPlacementEndpoint(ClickHouseSinkConfigs sinks) {
            return new ClickHousePlacementEndpoint(sinks);
        }
    }
}
