package dev.etl.it.kafka;

import static dev.etl.it.kafka.KafkaItSupport.pipelineConfig;
import static dev.etl.it.kafka.KafkaItSupport.produce;
import static dev.etl.it.kafka.KafkaItSupport.sourceConfig;
import static dev.etl.it.support.ConsumerGroupOffsets.committed;
import static dev.etl.it.support.ConsumerGroupOffsets.endOffsets;
import static dev.etl.it.support.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.deser.Deserializer;
import dev.etl.error.ErrorPolicy;
import dev.etl.kafka.KafkaConfigException;
import dev.etl.kafka.KafkaDeadLetterWriter;
import dev.etl.kafka.KafkaSource;
import dev.etl.ops.Chains;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.PipelineState;
import dev.etl.pipeline.RunReport;
import dev.etl.record.Payload;
import dev.etl.sink.SinkDefinition;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.capture.TestEncoders;
import dev.etl.test.infra.InfraServer;
import dev.etl.test.infra.KafkaTestTopics;
import dev.etl.test.infra.LocalInfra;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The dead-letter topic against the real broker: a missing topic fails the start naming it; a
 * record larger than the producer accepts is truncated with a header instead of failing the
 * pipeline; while dead-letter writes fail the pipeline is not ready and the failures are counted.
 */
@LocalInfra(InfraServer.KAFKA)
class DeadLetterTopicKafkaIT {

    /** Values starting with "bad" fail the "check" stage under DEAD_LETTER. */
    private static PipelineRuntime pipeline(
            String name, KafkaSource source, CaptureSink capture, SinkDefinition deadLetter, MeterRegistry registry) {
        return Pipeline.builder(pipelineConfig(name, 1).build())
                .source(source)
                .sink(capture.definition())
                .deadLetter(deadLetter)
                .chains(ctx -> Chains.from(ctx, Deserializer.payload())
                        .tryMap(
                                "check",
                                (Payload p) -> {
                                    if (p.length() >= 3 && p.toUtf8String().startsWith("bad")) {
                                        throw new IllegalArgumentException("bad record of " + p.length() + " bytes");
                                    }
                                    return p;
                                },
                                ErrorPolicy.DEAD_LETTER)
                        .sink(TestEncoders.payload(), (value, meta, shards) -> 0))
                .meterRegistry(registry)
                .build();
    }

    private static SinkDefinition deadLetter(
            KafkaTestTopics topics, String topic, MeterRegistry registry, Duration sendTimeout) {
        return KafkaDeadLetterWriter.sink(
                "dead-letter",
                Map.of("bootstrap.servers", topics.bootstrapServers()),
                topic,
                sendTimeout,
                new KafkaDeadLetterWriter.Options(
                        KafkaDeadLetterWriter.DEFAULT_MAX_RECORD_BYTES, true, registry, "dlt"));
    }

    private static void produceValues(String bootstrap, String topic, List<byte[]> values) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
                Map.of("bootstrap.servers", bootstrap, "max.request.size", 8 << 20, "acks", "all"),
                new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (byte[] value : values) {
                producer.send(new ProducerRecord<>(topic, 0, null, value)).get(30, TimeUnit.SECONDS);
            }
        }
    }

    private static List<ConsumerRecord<byte[], byte[]>> readAll(String bootstrap, String topic) {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(
                Map.of("bootstrap.servers", bootstrap), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long endOffset = consumer.endOffsets(List.of(tp)).get(tp);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (consumer.position(tp) < endOffset && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }

    private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
        return record.headers().lastHeader(name) == null
                ? null
                : new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }

    private static double counter(MeterRegistry registry, String name) {
        return registry.find(name).counters().stream()
                .mapToDouble(c -> c.count())
                .sum();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aMissingDeadLetterTopicFailsTheStartNamingIt(KafkaTestTopics topics) {
        String topic = topics.create("dlt-missing-source", 1);
        String missing = "no-such-dead-letter-topic-" + topic;
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        PipelineRuntime runtime = pipeline(
                "dlt-missing",
                new KafkaSource(sourceConfig(topics.bootstrapServers(), "it-" + topic, topic, registry, "dlt-missing")
                        .build()),
                CaptureSink.create("capture", 1),
                deadLetter(topics, missing, registry, Duration.ofSeconds(10)),
                registry);
        long startNs = System.nanoTime();
        try {
            assertThatThrownBy(runtime::start)
                    .isInstanceOf(KafkaConfigException.class)
                    .hasMessageContaining("'" + missing + "' does not exist")
                    .hasMessageContaining(topics.bootstrapServers());
        } finally {
            runtime.shutdown();
        }
        assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startNs))
                .as("seconds to fail")
                .isLessThan(10);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void anOversizedRecordIsTruncatedWithAHeaderAndThePipelineGoesOn(KafkaTestTopics topics) throws Exception {
        String topic = topics.create("dlt-big-source", 1);
        String dlq = topics.create("dlt-big-target", 1);
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        topics.admin()
                .incrementalAlterConfigs(Map.of(
                        resource,
                        List.of(new AlterConfigOp(
                                new ConfigEntry("max.message.bytes", Integer.toString(8 << 20)),
                                AlterConfigOp.OpType.SET))))
                .all()
                .get(30, TimeUnit.SECONDS);
        byte[] big = new byte[3 << 20];
        Arrays.fill(big, (byte) 'x');
        System.arraycopy("bad".getBytes(StandardCharsets.US_ASCII), 0, big, 0, 3);
        List<byte[]> values = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            values.add((i == 3 ? "good-3" : "bad-" + i).getBytes(StandardCharsets.US_ASCII));
        }
        values.add(4, big);
        values.add("good-end".getBytes(StandardCharsets.US_ASCII));
        produceValues(topics.bootstrapServers(), topic, values);
        Map<TopicPartition, Long> end = endOffsets(topics.admin(), topic, 1);
        String group = "it-" + topic;

        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CaptureSink capture = CaptureSink.create("capture", 1);
        PipelineRuntime runtime = pipeline(
                "dlt-big",
                new KafkaSource(sourceConfig(topics.bootstrapServers(), group, topic, registry, "dlt-big")
                        .build()),
                capture,
                deadLetter(topics, dlq, registry, Duration.ofSeconds(10)),
                registry);
        runtime.start();
        RunReport report;
        try {
            await(Duration.ofSeconds(60), "committed offsets to equal the end offsets " + end, () -> {
                assertThat(runtime.state())
                        .as("pipeline (failure: %s)", runtime.failure())
                        .isNotEqualTo(PipelineState.FAILED);
                return committed(topics.admin(), group).equals(end);
            });
        } finally {
            runtime.shutdown();
            report = runtime.awaitTermination(Duration.ofSeconds(30));
        }
        assertThat(report.exitCode()).isZero();
        assertThat(capture.script().rows()).isEqualTo(2);
        List<ConsumerRecord<byte[], byte[]>> dead = readAll(topics.bootstrapServers(), dlq);
        assertThat(dead).hasSize(6);
        ConsumerRecord<byte[], byte[]> cut =
                dead.stream().filter(r -> r.value().length > 100).findFirst().orElseThrow();
        assertThat(cut.value().length).isBetween(900_000, 1 << 20);
        assertThat(header(cut, KafkaDeadLetterWriter.HEADER_TRUNCATED)).isEqualTo("value");
        assertThat(header(cut, KafkaDeadLetterWriter.HEADER_ORIGINAL_VALUE_BYTES))
                .isEqualTo(Integer.toString(3 << 20));
        assertThat(header(cut, "etl.source.offset")).isEqualTo("4");
        assertThat(dead.stream().filter(r -> header(r, KafkaDeadLetterWriter.HEADER_TRUNCATED) != null))
                .hasSize(1);
        assertThat(counter(registry, "etl.dead.letter.truncated")).isEqualTo(1);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void whileDeadLetterWritesFailThePipelineIsNotReadyAndTheFailuresAreCounted(KafkaTestTopics topics)
            throws Exception {
        String topic = topics.create("dlt-down-source", 1);
        String dlq = topics.create("dlt-down-target", 1);
        String group = "it-" + topic;
        produce(topics.bootstrapServers(), topic, 1, 0, 10);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CaptureSink capture = CaptureSink.create("capture", 1);
        PipelineRuntime runtime = pipeline(
                "dlt-down",
                new KafkaSource(sourceConfig(topics.bootstrapServers(), group, topic, registry, "dlt-down")
                        .build()),
                capture,
                deadLetter(topics, dlq, registry, Duration.ofSeconds(2)),
                registry);
        runtime.start();
        RunReport report;
        try {
            await(
                    Duration.ofSeconds(30),
                    "10 rows and readiness",
                    () -> capture.script().rows() >= 10 && runtime.isReady());
            // The dead-letter topic disappears; the next bad record cannot be dead-lettered.
            topics.admin().deleteTopics(List.of(dlq)).all().get(30, TimeUnit.SECONDS);
            await(
                    Duration.ofSeconds(30),
                    "the topic to be gone",
                    () -> !topics.admin()
                            .listTopics()
                            .names()
                            .get(10, TimeUnit.SECONDS)
                            .contains(dlq));
            produceValues(topics.bootstrapServers(), topic, List.of("bad-x".getBytes(StandardCharsets.US_ASCII)));
            await(
                    Duration.ofSeconds(30),
                    "readiness to drop and failures to be counted",
                    () -> !runtime.isReady() && counter(registry, "etl.dead.letter.write.failures") >= 1);
            assertThat(runtime.state()).isEqualTo(PipelineState.RUNNING);

            topics.admin()
                    .createTopics(List.of(new NewTopic(dlq, 1, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            Map<TopicPartition, Long> end = endOffsets(topics.admin(), topic, 1);
            await(
                    Duration.ofSeconds(60),
                    "readiness to return and the group to commit to the end",
                    () -> runtime.isReady() && committed(topics.admin(), group).equals(end));
        } finally {
            runtime.shutdown();
            report = runtime.awaitTermination(Duration.ofSeconds(30));
        }
        assertThat(report.exitCode()).isZero();
        List<ConsumerRecord<byte[], byte[]>> dead = readAll(topics.bootstrapServers(), dlq);
        assertThat(dead)
                .extracting(r -> new String(r.value(), StandardCharsets.US_ASCII))
                .contains("bad-x");
    }
}
