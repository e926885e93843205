package dev.etl.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * The dead-letter replay of docs/operations/dead-letter-replay.md, run against Kafka's MockConsumer and
 * MockProducer: it copies each dead letter of the chosen stage once (a record dead-lettered twice is copied
 * once), to its source topic with its key and value, skips truncated ones and other stages, stops at the end
 * the topic had when it started, and commits that end so a second run copies nothing again.
 */
class DeadLetterReplayTest {

    // tag::replay[]
    /** Opens the clients; the replay itself is {@link #replay}. */
    static void replay(String bootstrapServers, String deadLetterTopic, String stage) {
        Map<String, Object> consumerProps = new HashMap<>();
        consumerProps.put("bootstrap.servers", bootstrapServers);
        consumerProps.put("group.id", deadLetterTopic + "-replay"); // its own group: where the last run stopped
        consumerProps.put("enable.auto.commit", false);
        consumerProps.put("key.deserializer", ByteArrayDeserializer.class);
        consumerProps.put("value.deserializer", ByteArrayDeserializer.class);
        Map<String, Object> producerProps = new HashMap<>();
        producerProps.put("bootstrap.servers", bootstrapServers);
        producerProps.put("acks", "all");
        producerProps.put("enable.idempotence", true);
        producerProps.put("key.serializer", ByteArraySerializer.class);
        producerProps.put("value.serializer", ByteArraySerializer.class);
        try (Consumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProps);
                Producer<byte[], byte[]> producer = new KafkaProducer<>(producerProps)) {
            replay(consumer, producer, deadLetterTopic, stage);
        }
    }

    /**
     * Reads the dead-letter topic from where the last run stopped to the end it has now, and produces each
     * dead letter of {@code stage} once to its source topic, with its original key and value (the etl.*
     * headers stay behind). Returns how many it copied.
     */
    static int replay(
            Consumer<byte[], byte[]> consumer,
            Producer<byte[], byte[]> producer,
            String deadLetterTopic,
            String stage) {
        List<TopicPartition> partitions = consumer.partitionsFor(deadLetterTopic).stream()
                .map(p -> new TopicPartition(p.topic(), p.partition()))
                .toList();
        Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(Set.copyOf(partitions));
        consumer.assign(partitions);
        Map<TopicPartition, Long> end = consumer.endOffsets(partitions); // not further: see the page
        for (TopicPartition tp : partitions) {
            OffsetAndMetadata from = committed.get(tp);
            if (from != null) {
                consumer.seek(tp, from.offset());
            } else {
                consumer.seekToBeginning(List.of(tp));
            }
        }
        Set<String> copied = new HashSet<>(); // the dead-letter topic is at-least-once
        while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofSeconds(1))) {
                if (r.offset() >= end.get(new TopicPartition(r.topic(), r.partition()))
                        || !stage.equals(header(r, "etl.stage"))
                        || r.headers().lastHeader("etl.truncated") != null) { // cut: replay from the source
                    continue;
                }
                String source = header(r, "etl.source.topic");
                String origin = source + "-" + header(r, "etl.source.partition") + "@" + header(r, "etl.source.offset");
                if (copied.add(origin)) {
                    producer.send(new ProducerRecord<>(source, r.key(), r.value()));
                }
            }
        }
        producer.flush(); // every copy acknowledged before the commit
        Map<TopicPartition, OffsetAndMetadata> done = new HashMap<>();
        end.forEach((tp, offset) -> done.put(tp, new OffsetAndMetadata(offset)));
        consumer.commitSync(done);
        return copied.size();
    }

    static String header(ConsumerRecord<?, ?> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
    // end::replay[]

    static final String DLQ = "orders-dlq";

    /** A dead letter as KafkaDeadLetterWriter writes it: the original bytes, the etl.* headers. */
    static ConsumerRecord<byte[], byte[]> deadLetter(
            int partition, long offset, String stage, int sourcePartition, long sourceOffset, boolean truncated) {
        ConsumerRecord<byte[], byte[]> r = new ConsumerRecord<>(
                DLQ, partition, offset, bytes("key-" + sourceOffset), bytes("value-" + sourceOffset));
        r.headers().add("etl.source.topic", bytes("orders"));
        r.headers().add("etl.source.partition", bytes(Integer.toString(sourcePartition)));
        r.headers().add("etl.source.offset", bytes(Long.toString(sourceOffset)));
        r.headers().add("etl.stage", bytes(stage));
        r.headers().add("etl.error.class", bytes("deserialization"));
        if (truncated) {
            r.headers().add("etl.truncated", bytes("value"));
        }
        return r;
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void copiesEachDeadLetterOfTheStageOnceToItsSourceTopicAndCommitsWhereItStopped() {
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
        MockProducer<byte[], byte[]> producer =
                new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
        TopicPartition p0 = new TopicPartition(DLQ, 0);
        TopicPartition p1 = new TopicPartition(DLQ, 1);
        consumer.updatePartitions(
                DLQ, List.of(new PartitionInfo(DLQ, 0, null, null, null), new PartitionInfo(DLQ, 1, null, null, null)));
        consumer.updateBeginningOffsets(Map.of(p0, 0L, p1, 0L));
        consumer.updateEndOffsets(Map.of(p0, 4L, p1, 2L));
        List<ConsumerRecord<byte[], byte[]>> records = List.of(
                deadLetter(0, 0, "deserialize", 3, 250, false),
                deadLetter(0, 1, "deserialize", 3, 250, false), // the same dead letter again
                deadLetter(0, 2, "operator", 3, 251, false), // another stage
                deadLetter(0, 3, "deserialize", 3, 252, true), // truncated
                deadLetter(1, 0, "deserialize", 5, 17, false),
                deadLetter(1, 1, "deserialize", 3, 253, false));
        consumer.schedulePollTask(() -> records.forEach(consumer::addRecord));

        assertThat(replay(consumer, producer, DLQ, "deserialize")).isEqualTo(3);

        List<String> sent = new ArrayList<>();
        for (ProducerRecord<byte[], byte[]> r : producer.history()) {
            assertThat(r.topic()).isEqualTo("orders");
            assertThat(r.headers().toArray())
                    .as("the etl.* headers stay behind")
                    .isEmpty();
            sent.add(new String(r.key(), StandardCharsets.UTF_8) + "=" + new String(r.value(), StandardCharsets.UTF_8));
        }
        assertThat(sent).containsExactlyInAnyOrder("key-250=value-250", "key-17=value-17", "key-253=value-253");
        assertThat(consumer.committed(Set.of(p0, p1)))
                .containsEntry(p0, new OffsetAndMetadata(4))
                .containsEntry(p1, new OffsetAndMetadata(2));

        // A second run starts at the committed offsets: nothing new, nothing copied again.
        producer.clear();
        assertThat(replay(consumer, producer, DLQ, "deserialize")).isZero();
        assertThat(producer.history()).isEmpty();
    }
}
