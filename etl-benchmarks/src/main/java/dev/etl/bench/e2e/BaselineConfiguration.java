package dev.etl.bench.e2e;

import dev.etl.avro.SchemaRegistryClient;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.EnableKafka;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.listener.ContainerProperties.AckMode;

/**
 * Spring Kafka wiring as the reference documentation shows it: a consumer factory of raw
 * {@code byte[]} records (decoding is the listener's job, as with a hand-written Avro deserializer),
 * and a batch, manually acknowledged container factory with one consumer thread per
 * {@code --threads}.
 */
@Configuration(proxyBeanMethods = false)
@EnableKafka
class BaselineConfiguration {

    /**
     * The consumer settings the etl sample uses where they apply: earliest offset for a new group,
     * no auto-commit, {@code fetch.min.bytes} 64 KiB and {@code max.poll.records} 5000 by default,
     * which here is also the listener's batch and so the size of its inserts.
     */
    @Bean
    ConsumerFactory<byte[], byte[]> consumerFactory(BaselineOptions options) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrap());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, options.group());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, options.maxPollRecords());
        props.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, 65536);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        return new DefaultKafkaConsumerFactory<>(props);
    }

    @Bean
    ConcurrentKafkaListenerContainerFactory<byte[], byte[]> kafkaListenerContainerFactory(
            ConsumerFactory<byte[], byte[]> consumerFactory, BaselineOptions options) {
        ConcurrentKafkaListenerContainerFactory<byte[], byte[]> factory =
                new ConcurrentKafkaListenerContainerFactory<>();
        factory.setConsumerFactory(consumerFactory);
        factory.setBatchListener(true);
        factory.setConcurrency(options.threads());
        // Offsets are committed only after the listener acknowledged, i.e. after its inserts succeeded.
        factory.getContainerProperties().setAckMode(AckMode.MANUAL);
        return factory;
    }

    @Bean
    SchemaRegistryClient schemaRegistryClient(BaselineOptions options) {
        return SchemaRegistryClient.builder(options.registry()).build();
    }

    @Bean
    OrdersBatchListener ordersBatchListener(BaselineOptions options, SchemaRegistryClient registry) {
        return new OrdersBatchListener(options, registry);
    }
}
