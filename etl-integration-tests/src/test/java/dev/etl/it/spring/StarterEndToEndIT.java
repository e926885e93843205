package dev.etl.it.spring;

import static dev.etl.it.spring.StarterItSupport.get;
import static dev.etl.it.spring.StarterItSupport.shardRows;
import static dev.etl.it.spring.StarterItSupport.sum;
import static dev.etl.it.support.ConsumerGroupOffsets.committed;
import static dev.etl.it.support.ConsumerGroupOffsets.endOffsets;
import static dev.etl.it.support.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.it.spring.StarterItSupport.OrderProducer;
import dev.etl.it.spring.StarterItSupport.PartitionRows;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.PipelineState;
import dev.etl.test.infra.ClickHouseTestDatabase;
import dev.etl.test.infra.InfraEndpoints;
import dev.etl.test.infra.KafkaTestTopics;
import dev.etl.test.infra.LocalInfra;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A Boot application that uses only the starter ({@link StarterApplication}), against the real Kafka,
 * schema registry and 2 × 2 ClickHouse cluster: Avro orders produced to Kafka land as rows in both
 * shards, every offset is committed, and the probes and the scrape endpoint answer over HTTP.
 */
@LocalInfra
class StarterEndToEndIT {

    private static final Logger log = LoggerFactory.getLogger(StarterEndToEndIT.class);

    private static final int PARTITIONS = 4;

    private static final int ORDERS = 20_000;

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void ordersFlowFromKafkaToBothShardsWithProbesAndMetricsOverHttp(
            InfraEndpoints infra, ClickHouseTestDatabase db, KafkaTestTopics topics) throws Exception {
        String topic = topics.create("starter-e2e", PARTITIONS);
        String group = "it-" + topic;
        StarterItSupport.createOrdersTable(db);
        int schemaId = StarterItSupport.registerSchema(infra, topic);

        List<String> properties = new ArrayList<>(StarterApplication.properties(infra, topic, group, db.name()));
        // this JVM is the test runner: keep its signals and never exit it
        properties.add("etl.pipeline.handle-signals=false");
        properties.add("etl.pipeline.exit-on-failure=false");
        long started = System.nanoTime();
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(StarterApplication.class)
                .properties(properties.toArray(String[]::new))
                .run()) {
            int port = context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
            int readyAtStart = get(port, "/readyz").statusCode();
            log.info(
                    "started in {} ms; /readyz answered {} right after startup",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                    readyAtStart);
            assertThat(readyAtStart).as("/readyz right after startup").isIn(200, 503);

            try (OrderProducer producer = new OrderProducer(infra.kafkaBootstrap(), topic, PARTITIONS, schemaId)) {
                producer.send(0, ORDERS);
                producer.flush();
            }
            Map<TopicPartition, Long> end = endOffsets(topics.admin(), topic, PARTITIONS);
            assertThat(sum(end)).as("produced").isEqualTo(ORDERS);

            await(
                    Duration.ofSeconds(60),
                    "every end offset committed " + end,
                    () -> committed(topics.admin(), group).equals(end));
            PipelineRuntime runtime = context.getBean(PipelineRuntime.class);
            assertThat(runtime.state()).isEqualTo(PipelineState.RUNNING);

            long shard1 = shardRows(infra.clickhouseShard(1), db);
            long shard2 = shardRows(infra.clickhouseShard(2), db);
            log.info("rows: shard 1 {}, shard 2 {}, total {} of {}", shard1, shard2, shard1 + shard2, ORDERS);
            assertThat(shard1).as("rows in shard 1").isPositive();
            assertThat(shard2).as("rows in shard 2").isPositive();
            assertThat(shard1 + shard2).as("rows in both shards").isEqualTo(ORDERS);
            Map<Integer, PartitionRows> byPartition = StarterItSupport.rowsByPartition(infra, db, PARTITIONS);
            for (int p = 0; p < PARTITIONS; p++) {
                long produced = end.get(new TopicPartition(topic, p));
                assertThat(byPartition.get(p))
                        .as("partition %d", p)
                        .isEqualTo(new PartitionRows(produced, produced, (produced - 1) * PARTITIONS + p));
            }

            await(
                    Duration.ofSeconds(10),
                    "/actuator/health/readiness 200",
                    () -> get(port, "/actuator/health/readiness").statusCode() == 200);
            assertThat(get(port, "/readyz").statusCode()).as("/readyz").isEqualTo(200);
            assertThat(get(port, "/healthz").statusCode()).as("/healthz").isEqualTo(200);
            HttpResponse<String> scrape = get(port, "/actuator/prometheus");
            assertThat(scrape.statusCode()).isEqualTo(200);
            assertThat(scrape.body())
                    .contains(
                            "etl_source_records_total{",
                            "etl_sink_rows_total{",
                            "etl_checkpoint_watermark_age_seconds{",
                            "etl_source_lag_records{",
                            "pipeline=\"starter-it\"");
            assertThat(sinkRowsTotal(scrape.body()))
                    .as("etl_sink_rows_total summed")
                    .isEqualTo(ORDERS);

            // Probes and scrapes over one kept-alive connection, as Prometheus scrapes: with reactor-netty
            // 1.3.6 and 1.3.7 (Spring Boot 4.0.7, 4.0.8) about one health request in 40 got no answer at all
            // (reactor-netty #4361), so 400 requests met it with near certainty.
            for (int i = 0; i < 100; i++) {
                for (String path : KEPT_ALIVE_PATHS) {
                    assertThat(get(port, path, Duration.ofSeconds(5)).statusCode())
                            .as("%s, request %d on a kept-alive connection", path, i)
                            .isEqualTo(200);
                }
            }
        }
    }

    private static final List<String> KEPT_ALIVE_PATHS =
            List.of("/readyz", "/healthz", "/actuator/health", "/actuator/prometheus");

    /** Sum of the {@code etl_sink_rows_total} samples in a Prometheus scrape. */
    private static double sinkRowsTotal(String scrape) {
        return scrape.lines()
                .filter((line) -> line.startsWith("etl_sink_rows_total{"))
                .mapToDouble((line) -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .sum();
    }
}
