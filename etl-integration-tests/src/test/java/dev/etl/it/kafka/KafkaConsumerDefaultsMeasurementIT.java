package dev.etl.it.kafka;

import static dev.etl.it.kafka.KafkaItSupport.pipeline;
import static dev.etl.it.kafka.KafkaItSupport.pipelineConfig;
import static dev.etl.it.support.ConsumerGroupOffsets.committed;
import static dev.etl.it.support.ConsumerGroupOffsets.endOffsets;
import static dev.etl.it.support.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.it.support.OrderedProducer;
import dev.etl.kafka.KafkaSource;
import dev.etl.kafka.KafkaSourceConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.sink.SinkDefinition;
import dev.etl.test.infra.InfraServer;
import dev.etl.test.infra.KafkaTestTopics;
import dev.etl.test.infra.LocalInfra;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The measurement behind the source's throughput defaults ({@link KafkaSourceConfig#THROUGHPUT_DEFAULTS},
 * docs/deployment/tuning.md): a topic of {@code etl.defaults.records} 200-byte records over 8
 * partitions is read by the real pipeline (2 lanes, pass-through chain, a sink that discards with
 * the default batching) to the end, alternately with the shipped defaults and with Kafka's own
 * consumer defaults ({@code max.poll.records=500}, {@code fetch.min.bytes=1},
 * {@code max.partition.fetch.bytes=1 MiB}), {@code etl.defaults.repeats} times each after one
 * uncounted warm-up run, alternating which goes first. Logged as
 * {@code consumer-defaults ...}; asserts only that every run read everything.
 */
@LocalInfra(InfraServer.KAFKA)
class KafkaConsumerDefaultsMeasurementIT {
    private static final Logger log = LoggerFactory.getLogger(KafkaConsumerDefaultsMeasurementIT.class);
    private static final int PARTITIONS = 8;

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void shippedDefaultsAgainstKafkasDefaults(KafkaTestTopics topics) throws Exception {
        int records = Integer.getInteger("etl.defaults.records", 1_000_000);
        int repeats = Integer.getInteger("etl.defaults.repeats", 1);
        String topic = topics.create("consumer-defaults", PARTITIONS);
        byte[] value = new byte[200];
        Arrays.fill(value, (byte) 'v');
        try (OrderedProducer producer = new OrderedProducer(topics.bootstrapServers(), topic, PARTITIONS)) {
            for (int i = 0; i < records; i++) {
                producer.send(i % PARTITIONS, Integer.toString(i).getBytes(StandardCharsets.US_ASCII), value);
            }
            producer.flush();
        }
        Map<TopicPartition, Long> end = endOffsets(topics.admin(), topic, PARTITIONS);
        List<String> shipped = new ArrayList<>();
        List<String> kafka = new ArrayList<>();
        Map<String, Object> kafkaDefaults =
                Map.of("max.poll.records", 500, "fetch.min.bytes", 1, "max.partition.fetch.bytes", 1 << 20);
        String warmup = run(topics, topic, end, records, "warmup", Map.of()); // JIT, page cache: not counted
        for (int i = 0; i < repeats; i++) {
            // Alternate which variant goes first, so drift in the machine's load hits both alike.
            if (i % 2 == 0) {
                shipped.add(run(topics, topic, end, records, "shipped-" + i, Map.of()));
                kafka.add(run(topics, topic, end, records, "kafka-" + i, kafkaDefaults));
            } else {
                kafka.add(run(topics, topic, end, records, "kafka-" + i, kafkaDefaults));
                shipped.add(run(topics, topic, end, records, "shipped-" + i, Map.of()));
            }
        }
        log.info("consumer-defaults warm-up run (not counted): {}", warmup);
        String line = "consumer-defaults records=" + records + " shipped=" + shipped + " kafka=" + kafka;
        log.info(line);
        System.out.println(line);
    }

    /** One run to the end; returns "records/s (avg rows per sink batch, avg records per poll)". */
    private static String run(
            KafkaTestTopics topics,
            String topic,
            Map<TopicPartition, Long> end,
            int records,
            String name,
            Map<String, Object> overrides)
            throws Exception {
        String group = "it-" + topic + "-" + name;
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        KafkaSourceConfig.Builder config = KafkaSourceConfig.builder()
                .property("bootstrap.servers", topics.bootstrapServers())
                .property("group.id", group)
                .property("auto.offset.reset", "earliest")
                .topics(topic)
                .pipeline(name)
                .meterRegistry(registry);
        overrides.forEach(config::property);
        AtomicLong batches = new AtomicLong();
        AtomicLong rows = new AtomicLong();
        SinkDefinition discard = SinkDefinition.builder("discard", 1, shard -> batch -> {
                    batches.incrementAndGet();
                    rows.addAndGet(batch.rowCount());
                })
                .build();
        PipelineRuntime runtime = pipeline(
                pipelineConfig(name, 2)
                        .checkpointInterval(Duration.ofMillis(100))
                        .build(),
                new KafkaSource(config.build()),
                discard,
                (v, m, s) -> 0,
                registry);
        long startNs = System.nanoTime();
        runtime.start();
        long elapsedNs;
        try {
            await(
                    Duration.ofSeconds(240),
                    name + " to read to the end",
                    () -> rows.get() >= records
                            && committed(topics.admin(), group).equals(end));
            elapsedNs = System.nanoTime() - startNs;
        } finally {
            runtime.shutdown();
            runtime.awaitTermination(Duration.ofSeconds(30));
        }
        assertThat(rows.get()).isGreaterThanOrEqualTo(records);
        double polls = registry.find("etl.source.poll.duration").timers().stream()
                .mapToLong(t -> t.count())
                .sum();
        return String.format(
                "%,.0f rec/s (%.1f s, %,d rows per sink batch, %,.0f records per poll)",
                records / (elapsedNs / 1e9),
                elapsedNs / 1e9,
                rows.get() / Math.max(1, batches.get()),
                records / Math.max(1, polls));
    }
}
