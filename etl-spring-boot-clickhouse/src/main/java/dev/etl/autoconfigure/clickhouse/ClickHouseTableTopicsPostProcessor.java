package dev.etl.autoconfigure.clickhouse;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.util.StringUtils;

/**
 * A pipeline from YAML alone subscribes to the topics its tables read: when tables name a
 * {@code from.topic} and neither {@code etl.source.kafka.topics} nor {@code etl.source.kafka.pattern} is
 * set, the tables' topics become {@code etl.source.kafka.topics} (a property source of the lowest
 * precedence, so anything the application sets wins). When the application sets the topics, every table's
 * topic must be among them (checked when the table's chain factory is made).
 */
class ClickHouseTableTopicsPostProcessor implements EnvironmentPostProcessor, Ordered {

    static final String SOURCE = "etl-clickhouse-table-topics";

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        if (StringUtils.hasText(environment.getProperty("etl.source.kafka.topics"))
                || StringUtils.hasText(environment.getProperty("etl.source.kafka.topics[0]"))
                || StringUtils.hasText(environment.getProperty("etl.source.kafka.pattern"))) {
            return;
        }
        List<String> topics =
                new ArrayList<>(ClickHouseTablePipelines.topics(environment).keySet());
        if (!topics.isEmpty()) {
            environment
                    .getPropertySources()
                    .addLast(
                            new MapPropertySource(SOURCE, Map.of("etl.source.kafka.topics", String.join(",", topics))));
        }
    }

    @Override
    public int getOrder() {
        // after the config data (application.yml, profiles) is loaded
        return Ordered.LOWEST_PRECEDENCE;
    }
}
