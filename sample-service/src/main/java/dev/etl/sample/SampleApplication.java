package dev.etl.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The sample service: Avro orders from Kafka, through {@link OrdersChain}, into the sharded
 * {@code orders} table. Everything else — lanes, Kafka consumers, the ClickHouse sink, commits,
 * probes, metrics, graceful shutdown — comes from the starter, configured in
 * {@code application.yaml}; the topology is in {@link OrdersPipelineConfiguration}.
 */
// tag::application[]
@SpringBootApplication
public class SampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(SampleApplication.class, args);
    }
}
// end::application[]
