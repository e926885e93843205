package dev.etl.app;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The etl application: the starter and this {@code main}, no pipeline code. Every table whose
 * {@code etl.sink.clickhouse[.tables.<name>].from.topic} is set becomes a pipeline from that topic into
 * the table, its mapping derived at startup from the table's columns and the reader schema; everything
 * else (servers, lanes, batches, checkpoints) is configuration too. It reads the environment (Spring
 * Boot's relaxed binding: {@code ETL_SINK_CLICKHOUSE_FROM_TOPIC=orders}), the placeholders of its
 * {@code application.yaml} ({@code KAFKA_BOOTSTRAP}, {@code CLICKHOUSE_SHARDS}, …) and any YAML file named
 * by {@code SPRING_CONFIG_ADDITIONAL_LOCATION}. A mapping mistake fails startup with one message and a
 * non-zero exit status. See docs/deployment/container.md.
 */
@SpringBootApplication
public class EtlApplication {

    /**
     * Runs the application until SIGTERM (then the pipeline drains and commits) or a failure (then the
     * process exits non-zero).
     *
     * @param args Spring Boot arguments ({@code --etl.pipeline.threads=4})
     */
    public static void main(String[] args) {
        SpringApplication.run(EtlApplication.class, args);
    }
}
