package dev.etl.autoconfigure.kafka;

import dev.etl.autoconfigure.EtlAutoConfiguration;
import dev.etl.autoconfigure.InvalidEtlConfigurationException;
import dev.etl.kafka.KafkaSource;
import dev.etl.kafka.KafkaSourceConfig;
import dev.etl.pipeline.PipelineConfig;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.kafka.autoconfigure.KafkaConnectionDetails;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.StringUtils;

/**
 * The Kafka source, when {@code etl.source.kafka.topics} or {@code etl.source.kafka.pattern} is set.
 *
 * <p>Consumer properties are layered: Boot's {@code spring.kafka.consumer.*} (and {@code spring.kafka.*}
 * common settings, SASL and SSL included); then bootstrap servers, security protocol and SSL bundle
 * from the {@link KafkaConnectionDetails} bean (Boot's properties-backed one, or a service
 * connection's); then {@code etl.source.kafka.properties}. On top of that the source's own rules: key
 * and value deserializers are always {@link ByteArrayDeserializer} (the chain deserializes),
 * {@code enable.auto.commit} is always false, and {@code group.id} defaults to the pipeline name.
 */
@AutoConfiguration(
        before = EtlAutoConfiguration.class,
        afterName = "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration")
@ConditionalOnClass({KafkaSource.class, KafkaProperties.class})
@ConditionalOnBooleanProperty(name = "etl.pipeline.enabled", matchIfMissing = true)
@Conditional(KafkaSourceAutoConfiguration.OnKafkaSubscription.class)
@EnableConfigurationProperties({EtlKafkaProperties.class, KafkaProperties.class})
public final class KafkaSourceAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    KafkaSourceConfig etlKafkaSourceConfig(
            EtlKafkaProperties kafka,
            KafkaProperties kafkaProperties,
            ObjectProvider<KafkaConnectionDetails> connectionDetails,
            PipelineConfig pipeline,
            ObjectProvider<MeterRegistry> meterRegistries) {
        Map<String, Object> consumer = consumerProperties(
                kafkaProperties, connectionDetails.getIfAvailable(), kafka.getProperties(), pipeline.name());
        KafkaSourceConfig.Builder builder =
                KafkaSourceConfig.builder().properties(consumer).pipeline(pipeline.name());
        if (StringUtils.hasText(kafka.getPattern())) {
            builder.topicPattern(Pattern.compile(kafka.getPattern()));
        } else {
            builder.topics(kafka.getTopics());
        }
        PropertyMapper.get().from(meterRegistries::getIfUnique).to(builder::meterRegistry);
        return builder.build();
    }

    /** Not closed by the context: the pipeline closes its source when its run ends. */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean(dev.etl.source.Source.class)
    KafkaSource etlKafkaSource(KafkaSourceConfig config) {
        return new KafkaSource(config);
    }

    /**
     * The consumer settings of the pipeline's Kafka clients: Boot's {@code spring.kafka.*}, the connection details,
     * then {@code overrides}; byte-array deserializers, no auto-commit, {@code group.id} defaulting to the pipeline.
     * Also used for the backfill's work topic.
     */
    public static Map<String, Object> consumerProperties(
            KafkaProperties kafkaProperties,
            KafkaConnectionDetails connectionDetails,
            Map<String, String> overrides,
            String pipelineName) {
        Map<String, Object> boot = kafkaProperties.buildConsumerProperties();
        Object autoCommit = boot.get(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG);
        if (autoCommit != null
                && !"false".equalsIgnoreCase(String.valueOf(autoCommit).trim())) {
            throw new InvalidEtlConfigurationException(
                    "spring.kafka.consumer.enable-auto-commit (or "
                            + "spring.kafka.consumer.properties[enable.auto.commit]) is " + autoCommit
                            + ", but the pipeline "
                            + "commits offsets itself, only after their rows are durable; Kafka's auto-commit would commit "
                            + "records that were never written.",
                    "Remove the setting (or set it to false): the pipeline's "
                            + "consumer always runs with enable.auto.commit=false.");
        }
        Map<String, Object> consumer = new LinkedHashMap<>(boot);
        consumer.putIfAbsent(ConsumerConfig.GROUP_ID_CONFIG, pipelineName);
        // The chain deserializes; Boot's String defaults would be refused by the source.
        consumer.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        consumer.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        Map<String, Object> layered = KafkaClientProperties.layered(
                consumer, (connectionDetails != null) ? connectionDetails.getConsumer() : null, overrides);
        layered.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        return layered;
    }

    /** Matches when topics or a pattern are configured. */
    static class OnKafkaSubscription extends SpringBootCondition {

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            Binder binder = Binder.get(context.getEnvironment());
            boolean topics = binder.bind("etl.source.kafka.topics", Bindable.listOf(String.class))
                    .map((list) -> !list.isEmpty())
                    .orElse(false);
            boolean pattern = binder.bind("etl.source.kafka.pattern", String.class)
                    .map(StringUtils::hasText)
                    .orElse(false);
            return (topics || pattern)
                    ? ConditionOutcome.match("etl.source.kafka topics or pattern configured")
                    : ConditionOutcome.noMatch("neither etl.source.kafka.topics nor etl.source.kafka.pattern is set");
        }
    }
}
