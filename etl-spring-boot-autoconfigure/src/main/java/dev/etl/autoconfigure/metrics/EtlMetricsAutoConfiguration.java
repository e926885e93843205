package dev.etl.autoconfigure.metrics;

import dev.etl.autoconfigure.EtlMetricsProperties;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.config.MeterFilter;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Adds {@code etl.metrics.tags} to every engine meter (names starting with {@code etl.}) through a
 * {@link MeterFilter} bean, which Boot applies to each registry it manages when it configures the
 * registry, before the pipeline registers its meters. The engine's meter names are Micrometer names
 * ({@code etl.sink.rows}); the Prometheus registry renders them as in {@code docs/METRICS.md}
 * ({@code etl_sink_rows_total}).
 */
@AutoConfiguration(beforeName = "dev.etl.autoconfigure.EtlAutoConfiguration")
@EnableConfigurationProperties(EtlMetricsProperties.class)
public final class EtlMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "etlMetricsTagsFilter")
    MeterFilter etlMetricsTagsFilter(EtlMetricsProperties metrics) {
        List<Tag> common = new ArrayList<>();
        metrics.getTags().forEach((key, value) -> common.add(Tag.of(key, value)));
        return new EtlMeterTagsFilter(common);
    }
}
