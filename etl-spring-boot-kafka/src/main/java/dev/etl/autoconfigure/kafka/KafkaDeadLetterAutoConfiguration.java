package dev.etl.autoconfigure.kafka;

import dev.etl.autoconfigure.DeadLetterSinkDefinition;
import dev.etl.autoconfigure.EtlAutoConfiguration;
import dev.etl.autoconfigure.EtlErrorsProperties;
import dev.etl.kafka.KafkaDeadLetterWriter;
import dev.etl.pipeline.PipelineConfig;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.kafka.autoconfigure.KafkaConnectionDetails;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.context.annotation.Bean;

/**
 * The Kafka dead-letter sink, when {@code etl.errors.dead-letter.topic} is set: a
 * {@link DeadLetterSinkDefinition} named {@code dead-letter} whose writer is a
 * {@link KafkaDeadLetterWriter}.
 *
 * <p>Producer properties are layered like the source's consumer properties: Boot's
 * {@code spring.kafka.producer.*} (and common {@code spring.kafka.*} settings); then bootstrap servers,
 * security protocol and SSL bundle from the {@link KafkaConnectionDetails} bean; then
 * {@code etl.errors.dead-letter.properties}. Serializers are always {@link ByteArraySerializer} (the
 * original bytes are written); {@code acks=all} and idempotence are enforced by the writer.
 *
 * <p>The pipeline's start checks that the topic exists ({@code etl.errors.dead-letter.check-topic});
 * records over {@code etl.errors.dead-letter.max-record-size} are truncated with a header saying so.
 */
@AutoConfiguration(
        before = EtlAutoConfiguration.class,
        afterName = "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration")
@ConditionalOnClass({KafkaDeadLetterWriter.class, KafkaProperties.class})
@ConditionalOnBooleanProperty(name = "etl.pipeline.enabled", matchIfMissing = true)
@ConditionalOnProperty(name = "etl.errors.dead-letter.topic")
@EnableConfigurationProperties({EtlErrorsProperties.class, KafkaProperties.class})
public final class KafkaDeadLetterAutoConfiguration {

    /** Name of the dead-letter sink: the {@code sink} label of its {@code etl_sink_*} meters. */
    public static final String SINK_NAME = "dead-letter";

    @Bean
    @ConditionalOnMissingBean
    DeadLetterSinkDefinition etlKafkaDeadLetterSink(
            EtlErrorsProperties errors,
            KafkaProperties kafkaProperties,
            ObjectProvider<KafkaConnectionDetails> connectionDetails,
            PipelineConfig pipeline,
            ObjectProvider<MeterRegistry> meterRegistries) {
        EtlErrorsProperties.DeadLetter deadLetter = errors.getDeadLetter();
        Map<String, Object> producer =
                producerProperties(kafkaProperties, connectionDetails.getIfAvailable(), deadLetter.getProperties());
        MeterRegistry registry = meterRegistries.getIfUnique();
        long maxRecordBytes = deadLetter.getMaxRecordSize().toBytes();
        KafkaDeadLetterWriter.Options options = new KafkaDeadLetterWriter.Options(
                (int) Math.min(Integer.MAX_VALUE, maxRecordBytes),
                deadLetter.isCheckTopic(),
                registry,
                pipeline.name());
        return new DeadLetterSinkDefinition(KafkaDeadLetterWriter.sink(
                SINK_NAME, producer, deadLetter.getTopic(), deadLetter.getSendTimeout(), options));
    }

    static Map<String, Object> producerProperties(
            KafkaProperties kafkaProperties, KafkaConnectionDetails connectionDetails, Map<String, String> overrides) {
        Map<String, Object> producer = new LinkedHashMap<>(kafkaProperties.buildProducerProperties());
        // The original bytes are written; Boot's String defaults would be refused by the writer.
        producer.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        producer.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return KafkaClientProperties.layered(
                producer, (connectionDetails != null) ? connectionDetails.getProducer() : null, overrides);
    }
}
