package dev.etl.it.kafka;

import static dev.etl.it.kafka.KafkaItSupport.pipelineConfig;
import static dev.etl.it.kafka.KafkaItSupport.produce;
import static dev.etl.it.kafka.KafkaItSupport.sourceConfig;
import static dev.etl.it.support.ConsumerGroupOffsets.committed;
import static dev.etl.it.support.ConsumerGroupOffsets.endOffsets;
import static dev.etl.it.support.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.deser.Deserializer;
import dev.etl.error.ErrorPolicy;
import dev.etl.kafka.KafkaDeadLetterWriter;
import dev.etl.kafka.KafkaSource;
import dev.etl.ops.Chains;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.PipelineState;
import dev.etl.pipeline.RunReport;
import dev.etl.record.Payload;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.capture.TestEncoders;
import dev.etl.test.infra.InfraServer;
import dev.etl.test.infra.KafkaTestTopics;
import dev.etl.test.infra.LocalInfra;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Kafka source → a stage that fails some records under DEAD_LETTER → capture sink, with the failing
 * records produced to a real dead-letter topic by {@link KafkaDeadLetterWriter}: every bad record is
 * in the topic with its original bytes and context headers, and the group commits to the end.
 */
@LocalInfra(InfraServer.KAFKA)
class DeadLetterKafkaIT {

    private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
        return record.headers().lastHeader(name) == null
                ? null
                : new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void failedRecordsLandInTheDeadLetterTopicAndTheGroupCommitsToTheEnd(KafkaTestTopics topics) throws Exception {
        int partitions = 3;
        int n = 3_000;
        String topic = topics.create("dlq-source", partitions);
        String dlqTopic = topics.create("dlq-target", 1);
        String group = "it-" + topic;
        produce(topics.bootstrapServers(), topic, partitions, 0, n);
        List<Integer> bad = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (i % 100 == 7) {
                bad.add(i);
            }
        }

        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CaptureSink capture = CaptureSink.create("capture", 1);
        KafkaSource source = new KafkaSource(sourceConfig(topics.bootstrapServers(), group, topic, registry, "dlq")
                .property("max.poll.records", 500)
                .build());
        PipelineRuntime runtime = Pipeline.builder(pipelineConfig("dlq", 2).build())
                .source(source)
                .sink(capture.definition())
                .deadLetter(KafkaDeadLetterWriter.sink(
                        "dead-letter",
                        Map.of("bootstrap.servers", topics.bootstrapServers()),
                        dlqTopic,
                        Duration.ofSeconds(10)))
                .chains(ctx -> Chains.from(ctx, Deserializer.payload())
                        .tryMap(
                                "check",
                                (Payload p) -> {
                                    int value = Integer.parseInt(p.toUtf8String());
                                    if (value % 100 == 7) {
                                        throw new IllegalArgumentException("unlucky value " + value);
                                    }
                                    return p;
                                },
                                ErrorPolicy.DEAD_LETTER)
                        .sink(TestEncoders.payload(), (value, meta, shards) -> 0))
                .meterRegistry(registry)
                .build();
        runtime.start();
        Map<TopicPartition, Long> end = endOffsets(topics.admin(), topic, partitions);
        RunReport report;
        try {
            await(
                    Duration.ofSeconds(60),
                    "all good rows (have " + capture.script().rows() + ")",
                    () -> capture.script().rows() >= n - bad.size());
            await(
                    Duration.ofSeconds(30),
                    "committed offsets to equal the end offsets " + end,
                    () -> committed(topics.admin(), group).equals(end));
        } finally {
            runtime.shutdown();
            report = runtime.awaitTermination(Duration.ofSeconds(30));
        }
        assertThat(report).isNotNull();
        assertThat(report.state()).isEqualTo(PipelineState.STOPPED);
        assertThat(report.exitCode()).isZero();
        assertThat(committed(topics.admin(), group)).isEqualTo(end);
        assertThat(registry.get("etl.dead.letters")
                        .tag("stage", "check")
                        .tag("error_type", "operator")
                        .counter()
                        .count())
                .isEqualTo(bad.size());

        List<ConsumerRecord<byte[], byte[]>> dead = readAll(topics.bootstrapServers(), dlqTopic, bad.size());
        TreeSet<Integer> seen = new TreeSet<>();
        for (ConsumerRecord<byte[], byte[]> record : dead) {
            String value = new String(record.value(), StandardCharsets.US_ASCII);
            int i = Integer.parseInt(value);
            seen.add(i);
            assertThat(record.key()).as("key of %s", value).isEqualTo(record.value()); // produced with key = value
            assertThat(header(record, "etl.source.topic")).isEqualTo(topic);
            assertThat(header(record, "etl.source.partition")).isEqualTo(Integer.toString(i % partitions));
            assertThat(header(record, "etl.source.offset")).isEqualTo(Integer.toString(i / partitions));
            assertThat(header(record, "etl.stage")).isEqualTo("check");
            assertThat(header(record, "etl.error.class")).isEqualTo("operator");
            assertThat(header(record, "etl.exception")).isEqualTo(IllegalArgumentException.class.getName());
            assertThat(header(record, "etl.error.message"))
                    .contains("unlucky value " + i)
                    .contains(topic + "-" + (i % partitions) + "@" + (i / partitions));
            assertThat(Long.parseLong(header(record, "etl.source.timestamp"))).isPositive();
        }
        assertThat(seen).containsExactlyElementsOf(bad);
        // Nothing bad reached the main sink.
        assertThat(capture.script().writes().stream()
                        .flatMap(w -> TestEncoders.decodeStrings(w.bytes()).stream())
                        .map(Integer::parseInt)
                        .filter(i -> i % 100 == 7))
                .isEmpty();
    }

    private static List<ConsumerRecord<byte[], byte[]>> readAll(String bootstrap, String topic, int atLeast) {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(
                Map.of("bootstrap.servers", bootstrap), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long endOffset = consumer.endOffsets(List.of(tp)).get(tp);
            assertThat(endOffset).as("records in the dead-letter topic").isGreaterThanOrEqualTo(atLeast);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (consumer.position(tp) < endOffset && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }
}
