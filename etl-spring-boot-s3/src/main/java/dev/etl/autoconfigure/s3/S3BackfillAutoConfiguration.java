package dev.etl.autoconfigure.s3;

import dev.etl.autoconfigure.BoundedRunCompletion;
import dev.etl.autoconfigure.EtlAutoConfiguration;
import dev.etl.autoconfigure.EtlPipelineLifecycle;
import dev.etl.autoconfigure.InvalidEtlConfigurationException;
import dev.etl.autoconfigure.kafka.EtlKafkaProperties;
import dev.etl.autoconfigure.kafka.KafkaSourceAutoConfiguration;
import dev.etl.kafka.KafkaSourceConfig;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.s3.BackfillFormats;
import dev.etl.s3.BackfillPlanner;
import dev.etl.s3.ObjectStore;
import dev.etl.s3.S3BackfillConfig;
import dev.etl.s3.S3BackfillSource;
import dev.etl.s3.S3ObjectStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.kafka.autoconfigure.KafkaConnectionDetails;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.StringUtils;

/**
 * The backfill source, when any {@code etl.source.s3.*} property is set and etl-s3 is on the class path:
 * an {@link S3BackfillSource} reading the work topic in the group {@code etl.source.s3.group-id}, with the
 * Kafka connection of {@code spring.kafka.*} (and {@code etl.source.kafka.properties}), objects through an
 * {@link S3ObjectStore} (or the application's own {@link ObjectStore} bean), and a
 * {@link BackfillPlanner} that writes the work list in modes {@code plan} and {@code plan-and-run}.
 *
 * <p>Ordered before the Kafka source's auto-configuration, whose source backs off when a {@code Source}
 * bean exists: a backfill replaces the Kafka source for this run of the application (the chains stay the
 * same: the rows report the topic {@code etl.source.s3.topic}). In mode {@code plan} the pipeline does
 * not start ({@link BackfillPlanModePostProcessor}): the planner runs and the application ends.
 */
@AutoConfiguration(
        before = EtlAutoConfiguration.class,
        beforeName = "dev.etl.autoconfigure.kafka.KafkaSourceAutoConfiguration")
@ConditionalOnClass({S3BackfillSource.class, KafkaProperties.class})
@Conditional(S3BackfillAutoConfiguration.OnS3.class)
@EnableConfigurationProperties({EtlS3Properties.class, EtlKafkaProperties.class, KafkaProperties.class})
public final class S3BackfillAutoConfiguration {

    private static final Logger logger = LoggerFactory.getLogger(S3BackfillAutoConfiguration.class);

    @Bean
    @ConditionalOnMissingBean(ObjectStore.class)
    S3ObjectStore etlS3ObjectStore(EtlS3Properties s3) {
        S3ObjectStore.Builder builder = S3ObjectStore.builder().pathStyleAccess(s3.isPathStyle());
        PropertyMapper map = PropertyMapper.get();
        map.from(s3::getEndpoint).to(builder::endpoint);
        String region = s3.getRegion();
        if (!StringUtils.hasText(region) && s3.getEndpoint() != null) {
            region = "us-east-1";
        }
        map.from(region).whenHasText().to(builder::region);
        map.from(s3::getAccessKey).whenHasText().to((accessKey) -> builder.credentials(accessKey, s3.getSecretKey()));
        return builder.build();
    }

    @Bean
    @ConditionalOnMissingBean
    BackfillPlanner etlBackfillPlanner(
            EtlS3Properties s3,
            ObjectStore store,
            KafkaProperties kafkaProperties,
            ObjectProvider<KafkaConnectionDetails> connectionDetails,
            EtlKafkaProperties kafka,
            Environment environment) {
        Map<String, Object> settings = KafkaSourceAutoConfiguration.consumerProperties(
                kafkaProperties, connectionDetails.getIfAvailable(), kafka.getProperties(), pipelineName(environment));
        BackfillPlanner.Builder builder = BackfillPlanner.builder()
                .store(store)
                .kafka(settings)
                .workTopic(workTopic(s3, pipelineName(environment)))
                .partitions(s3.getWorkTopicPartitions())
                .bucket(s3.getBucket())
                .prefix(s3.getPrefix())
                .keys(s3.getKeys())
                .splitBytes(s3.getSplitSize().toBytes());
        if (StringUtils.hasText(s3.getFormat())) {
            BackfillFormats formats = BackfillFormats.discover();
            if (formats.find(s3.getFormat()).isEmpty()) {
                throw new InvalidEtlConfigurationException(
                        "etl.source.s3.format is '" + s3.getFormat() + "', but no backfill format has that name"
                                + " (on the class path: " + String.join(", ", formats.names()) + ")",
                        "Set it to one of those (parquet needs dev.etl:etl-s3-parquet), or remove it to choose"
                                + " each object's format by its extension.");
            }
            builder.format(s3.getFormat());
        }
        return builder.build();
    }

    /** Not closed by the context: the pipeline closes its source when its run ends. */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean(dev.etl.source.Source.class)
    @ConditionalOnBooleanProperty(name = "etl.pipeline.enabled", matchIfMissing = true)
    S3BackfillSource etlS3BackfillSource(
            EtlS3Properties s3,
            PipelineConfig pipeline,
            ObjectStore store,
            BackfillPlanner planner,
            KafkaProperties kafkaProperties,
            ObjectProvider<KafkaConnectionDetails> connectionDetails,
            EtlKafkaProperties kafka,
            ObjectProvider<MeterRegistry> meterRegistries,
            Environment environment)
            throws IOException {
        if (s3.getMode() == EtlS3Properties.Mode.PLAN_AND_RUN) {
            logger.info("Pipeline '{}': planning the backfill ({})", pipeline.name(), planner.plan());
        }
        Map<String, Object> consumer = KafkaSourceAutoConfiguration.consumerProperties(
                kafkaProperties, connectionDetails.getIfAvailable(), kafka.getProperties(), pipeline.name());
        consumer.put(
                ConsumerConfig.GROUP_ID_CONFIG,
                StringUtils.hasText(s3.getGroupId()) ? s3.getGroupId() : pipeline.name() + "-backfill");
        KafkaSourceConfig.Builder work = KafkaSourceConfig.builder()
                .properties(consumer)
                .topics(workTopic(s3, pipeline.name()))
                .pipeline(pipeline.name());
        MeterRegistry registry = meterRegistries.getIfUnique();
        if (registry != null) {
            work.meterRegistry(registry);
        }
        long segment = s3.getSegmentSize().toBytes();
        S3BackfillConfig.Builder config = S3BackfillConfig.builder()
                .workTopic(work.build())
                .store(store)
                .bucket(s3.getBucket()) // the plan's scope, enforced on every work item read
                .prefix(s3.getPrefix())
                .keys(s3.getKeys())
                .topic(routingTopic(s3, pipeline.name(), environment))
                .segmentBytes((int) segment)
                .readAheadSegments((int) Math.max(1, s3.getReadAhead().toBytes() / segment))
                .maxBatchRows(s3.getMaxBatchRows())
                .prefetchItems(s3.getPrefetchItems())
                .readAttempts(s3.getReadAttempts())
                .onCorrupt(
                        S3BackfillConfig.CorruptPolicy.valueOf(s3.getOnCorrupt().name()))
                .maxCorruptRatio(s3.getMaxCorruptRatio(), 10)
                .progressInterval(s3.getProgressInterval())
                .pipeline(pipeline.name());
        if (registry != null) {
            config.meterRegistry(registry);
        }
        S3BackfillSource source = new S3BackfillSource(config.build());
        logger.info(
                "Pipeline '{}' reads a backfill: {} (etl.source.s3 is set, so the Kafka source is not used)",
                pipeline.name(),
                source.describe());
        return source;
    }

    @Bean
    @ConditionalOnBean(S3BackfillSource.class)
    @ConditionalOnMissingBean
    BoundedRunCompletion etlS3BackfillCompletion(
            S3BackfillSource source,
            EtlS3Properties s3,
            ApplicationContext context,
            ObjectProvider<EtlPipelineLifecycle> lifecycle,
            PipelineConfig pipeline) {
        BoundedRunCompletion completion = new BoundedRunCompletion(
                "backfill", "etl.source.s3.when-done", s3.getWhenDone(), context, lifecycle, pipeline.name());
        source.onDone(completion::done);
        return completion;
    }

    /** Mode plan: writes the work list; the application then ends (its pipeline is off, see the post-processor). */
    @Bean
    @ConditionalOnProperty(name = "etl.source.s3.mode", havingValue = "plan")
    ApplicationRunner etlBackfillPlanRunner(BackfillPlanner planner) {
        return (args) -> logger.info("Backfill plan: {}", planner.plan());
    }

    static String pipelineName(Environment environment) {
        String name = environment.getProperty("etl.pipeline.name");
        if (StringUtils.hasText(name)) {
            return name;
        }
        String application = environment.getProperty("spring.application.name");
        return StringUtils.hasText(application) ? application : "etl";
    }

    static String workTopic(EtlS3Properties s3, String pipeline) {
        return StringUtils.hasText(s3.getWorkTopic()) ? s3.getWorkTopic() : pipeline + "-backfill-work";
    }

    static String routingTopic(EtlS3Properties s3, String pipeline, Environment environment) {
        if (StringUtils.hasText(s3.getTopic())) {
            return s3.getTopic();
        }
        List<String> topics = Binder.get(environment)
                .bind("etl.source.kafka.topics", Bindable.listOf(String.class))
                .orElse(List.of());
        return topics.size() == 1 ? topics.get(0) : workTopic(s3, pipeline);
    }

    /** Matches when any {@code etl.source.s3.*} property is set. */
    static class OnS3 extends SpringBootCondition {

        private static final ConfigurationPropertyName PREFIX = ConfigurationPropertyName.of("etl.source.s3");

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            for (ConfigurationPropertySource source : ConfigurationPropertySources.get(context.getEnvironment())) {
                if (source instanceof IterableConfigurationPropertySource iterable
                        && iterable.stream().anyMatch(PREFIX::isAncestorOf)) {
                    return ConditionOutcome.match("etl.source.s3 configured");
                }
            }
            return ConditionOutcome.noMatch("no etl.source.s3.* property is set");
        }
    }
}
