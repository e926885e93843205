package dev.etl.testcontainers;

import dev.etl.autoconfigure.avro.SchemaRegistryAutoConfiguration;
import dev.etl.autoconfigure.clickhouse.ClickHouseSinkAutoConfiguration;
import dev.etl.autoconfigure.kafka.KafkaSourceAutoConfiguration;
import dev.etl.pipeline.PipelineConfig;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The etl connectors' auto-configurations (ClickHouse sink, schema registry, Kafka source) and the
 * pipeline configuration they need; no pipeline is assembled or run, so the tests see the
 * configurations the connectors build from the connection details.
 */
@Configuration(proxyBeanMethods = false)
@ImportAutoConfiguration({
    ClickHouseSinkAutoConfiguration.class,
    SchemaRegistryAutoConfiguration.class,
    KafkaSourceAutoConfiguration.class
})
class EtlConnectors {

    @Bean
    PipelineConfig pipelineConfig() {
        return PipelineConfig.builder("orders").build();
    }
}
