package dev.etl.it.kafka;

import static org.assertj.core.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import dev.etl.deser.Deserializer;
import dev.etl.kafka.KafkaSource;
import dev.etl.kafka.KafkaSourceConfig;
import dev.etl.ops.Chains;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.record.Payload;
import dev.etl.sink.ChunkConfig;
import dev.etl.sink.Router;
import dev.etl.sink.SinkDefinition;
import dev.etl.test.capture.CaptureScript;
import dev.etl.test.capture.TestEncoders;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Shared pieces of the Kafka source ITs: values are decimal indexes {@code 0..n-1}, record {@code i}
 * goes to partition {@code i % partitions}, so a {@link BitSet} tells what arrived.
 */
final class KafkaItSupport {
    private KafkaItSupport() {
    }

    /**
     * Produces values {@code from..to-1} (decimal strings, key = value) to {@code i % partitions}, and
     * fails if any send failed. Not idempotent, one request in flight: a topic created a moment ago
     * can answer its first produce with NOT_LEADER, after which the idempotent producer was seen
     * looping on OUT_OF_ORDER_SEQUENCE_NUMBER here; ordering is kept by the single in-flight request.
     */
    static void produce(String bootstrap, String topic, int partitions, int from, int to) {
        Map<String, Object> props = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.LINGER_MS_CONFIG, 10, ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024,
                ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4", ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false,
                ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1,
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
        AtomicReference<Exception> failure = new AtomicReference<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            awaitLeaders(producer, topic, partitions);
            for (int i = from; i < to && failure.get() == null; i++) {
                byte[] bytes = Integer.toString(i).getBytes(StandardCharsets.US_ASCII);
                producer.send(new ProducerRecord<>(topic, i % partitions, bytes, bytes), (md, e) -> {
                    if (e != null) {
                        failure.compareAndSet(null, e);
                    }
                });
            }
            producer.flush();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("producing to " + topic + " failed: " + failure.get(), failure.get());
        }
    }

    private static void awaitLeaders(KafkaProducer<byte[], byte[]> producer, String topic, int partitions) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            List<PartitionInfo> infos = producer.partitionsFor(topic);
            if (infos.size() == partitions && infos.stream().allMatch(i -> i.leader() != null && !i.leader().isEmpty())) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("topic " + topic + " has no leader for every partition: " + infos);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /** Source properties every IT uses. */
    static KafkaSourceConfig.Builder sourceConfig(String bootstrap, String group, String topic, MeterRegistry registry,
            String pipeline) {
        return KafkaSourceConfig.builder().property("bootstrap.servers", bootstrap).property("group.id", group)
                .property("auto.offset.reset", "earliest").property("max.poll.records", 2000).topics(topic)
                .pipeline(pipeline).meterRegistry(registry);
    }

    static PipelineConfig.Builder pipelineConfig(String name, int lanes) {
        return PipelineConfig.builder(name).lanes(lanes).checkpointInterval(Duration.ofMillis(200))
                .drainTimeout(Duration.ofSeconds(10)).pollTimeout(Duration.ofMillis(50));
    }

    /** Kafka source → payload pass-through chain → {@code sink}, routed by {@code router}. */
    static PipelineRuntime pipeline(PipelineConfig config, KafkaSource source, SinkDefinition sink,
            Router<Payload> router, MeterRegistry registry) {
        return Pipeline.builder(config).source(source).sink(sink)
                .chains(ctx -> Chains.from(ctx, Deserializer.payload())
                        .sink(TestEncoders.payload(), router, ChunkConfig.defaults()))
                .meterRegistry(registry).build();
    }

    /** What a set of capture writes contained: distinct values and total rows. */
    static final class Tally {
        final BitSet seen = new BitSet();
        long rows;

        Tally add(CaptureScript script) {
            for (CaptureScript.Write write : script.writes()) {
                for (String value : TestEncoders.decodeStrings(write.bytes())) {
                    seen.set(Integer.parseInt(value));
                    rows++;
                }
            }
            return this;
        }

        long duplicates() {
            return rows - seen.cardinality();
        }

        /** First value in {@code [0, n)} never seen, or -1. */
        int firstMissing(int n) {
            int missing = seen.nextClearBit(0);
            return missing < n ? missing : -1;
        }
    }

    static Map<TopicPartition, Long> committed(Admin admin, String group) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets =
                admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
        Map<TopicPartition, Long> out = new HashMap<>();
        offsets.forEach((tp, om) -> {
            if (om != null) {
                out.put(tp, om.offset());
            }
        });
        return out;
    }

    static Map<TopicPartition, Long> endOffsets(Admin admin, String topic, int partitions) throws Exception {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            request.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        Map<TopicPartition, Long> out = new HashMap<>();
        admin.listOffsets(request).all().get(10, TimeUnit.SECONDS).forEach((tp, info) -> out.put(tp, info.offset()));
        return out;
    }

    /** Polls {@code condition} every 100 ms until true; fails with {@code what} (evaluated then) on timeout. */
    static void await(Duration timeout, String what, ThrowingBooleanSupplier condition) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out after " + timeout + " waiting for " + what);
            }
            Thread.sleep(100);
        }
    }

    @FunctionalInterface
    interface ThrowingBooleanSupplier {
        boolean getAsBoolean() throws Exception;
    }
}
