package dev.etl.test.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The local Kafka broker does what the source relies on: topics with several partitions, a
 * consumer group, and committed offsets visible to a separate admin client.
 */
@LocalInfra(InfraServer.KAFKA)
class KafkaBrokerIT {

    private static final int RECORDS = 200;

    @Test
    void committedGroupOffsetsEqualEndOffsets(KafkaTestTopics topics) throws Exception {
        String topic = topics.create("broker-smoke", 2);
        String group = "broker-smoke-" + UUID.randomUUID();

        produce(topics.bootstrapServers(), topic);
        Set<Integer> partitionsSeen = consumeAllAndCommit(topics.bootstrapServers(), topic, group);
        assertThat(partitionsSeen).as("records landed on both partitions").containsExactlyInAnyOrder(0, 1);

        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, topics.bootstrapServers()))) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS);
            Map<TopicPartition, OffsetSpec> latest = Map.of(
                    new TopicPartition(topic, 0),
                    OffsetSpec.latest(),
                    new TopicPartition(topic, 1),
                    OffsetSpec.latest());
            Map<TopicPartition, Long> endOffsets =
                    admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).entrySet().stream()
                            .collect(Collectors.toMap(
                                    Map.Entry::getKey,
                                    (entry) -> entry.getValue().offset()));

            assertThat(committed.entrySet().stream()
                            .collect(Collectors.toMap(
                                    Map.Entry::getKey,
                                    (entry) -> entry.getValue().offset())))
                    .isEqualTo(endOffsets);
            assertThat(endOffsets.values().stream().mapToLong(Long::longValue).sum())
                    .isEqualTo(RECORDS);
            admin.deleteConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS);
        }
    }

    private static void produce(String bootstrap, String topic) throws Exception {
        Map<String, Object> config = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ProducerConfig.ACKS_CONFIG,
                "all",
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                StringSerializer.class);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            Future<?>[] sends = new Future<?>[RECORDS];
            for (int i = 0; i < RECORDS; i++) {
                sends[i] = producer.send(new ProducerRecord<>(topic, "key-" + i, "value-" + i));
            }
            producer.flush();
            for (Future<?> send : sends) {
                assertThat(send.get(30, TimeUnit.SECONDS)).isInstanceOf(RecordMetadata.class);
            }
        }
    }

    private static Set<Integer> consumeAllAndCommit(String bootstrap, String topic, String group) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        Set<String> values = new HashSet<>();
        Set<Integer> partitions = new HashSet<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            consumer.subscribe(List.of(topic));
            long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (values.size() < RECORDS && System.nanoTime() - deadlineNs < 0) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    values.add(record.value());
                    partitions.add(record.partition());
                }
            }
            assertThat(values).as("distinct values consumed").hasSize(RECORDS);
            consumer.commitSync(Duration.ofSeconds(30));
        }
        return partitions;
    }
}
