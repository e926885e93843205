package dev.etl.autoconfigure.datagen;

import dev.etl.autoconfigure.BoundedRunCompletion;
import dev.etl.autoconfigure.EtlAutoConfiguration;
import dev.etl.autoconfigure.EtlPipelineLifecycle;
import dev.etl.autoconfigure.InvalidEtlConfigurationException;
import dev.etl.datagen.DatagenSource;
import dev.etl.datagen.RecordGenerator;
import dev.etl.pipeline.PipelineConfig;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

/**
 * The load-generator source, when any {@code etl.source.datagen.*} property is set and etl-datagen is on
 * the class path: a {@link DatagenSource} with {@code etl.pipeline.threads} lanes, generating from the
 * Avro schema {@code etl.source.datagen.schema} or with a {@link RecordGenerator} bean.
 *
 * <p>Ordered before the Kafka source's auto-configuration, whose source backs off when a
 * {@code Source} bean exists: with datagen configured no Kafka consumer is created and no broker is
 * needed, even when {@code etl.source.kafka.topics} is set too (a log line says it is not used). A bounded
 * run ends by {@code etl.source.datagen.when-done} once everything generated is committed.
 */
@AutoConfiguration(
        before = EtlAutoConfiguration.class,
        beforeName = "dev.etl.autoconfigure.kafka.KafkaSourceAutoConfiguration")
@ConditionalOnClass(DatagenSource.class)
@ConditionalOnBooleanProperty(name = "etl.pipeline.enabled", matchIfMissing = true)
@Conditional(DatagenSourceAutoConfiguration.OnDatagen.class)
@EnableConfigurationProperties(EtlDatagenProperties.class)
public final class DatagenSourceAutoConfiguration {

    private static final Logger logger = LoggerFactory.getLogger(DatagenSourceAutoConfiguration.class);

    /** Not closed by the context: the pipeline closes its source when its run ends. */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean(dev.etl.source.Source.class)
    DatagenSource etlDatagenSource(
            EtlDatagenProperties properties,
            PipelineConfig pipeline,
            BeanFactory beanFactory,
            ObjectProvider<RecordGenerator> generators,
            ObjectProvider<MeterRegistry> meterRegistries,
            Environment environment) {
        RecordGenerator generator = generator(properties, beanFactory, generators);
        DatagenSource.Builder builder = DatagenSource.builder(generator)
                .partitions(properties.getPartitions())
                .seed(properties.getSeed())
                .topic(properties.getTopic())
                .maxPollRecords(properties.getMaxPollRecords())
                .lanes(pipeline.lanes())
                .pipeline(pipeline.name());
        PropertyMapper map = PropertyMapper.get(); // unset (null) values keep the builder's defaults
        map.from(properties::getRecords).to(builder::records);
        map.from(properties::getRate).to(builder::ratePerSecond);
        map.from(meterRegistries::getIfUnique).to(builder::meterRegistry);
        DatagenSource source = builder.build();
        String kafka = kafkaSubscription(environment);
        if (kafka != null) {
            logger.info(
                    "Pipeline '{}' reads generated records ({}): etl.source.datagen is set, so the Kafka source "
                            + "({}) is not used",
                    pipeline.name(),
                    source.describe(),
                    kafka);
        }
        return source;
    }

    @Bean
    @ConditionalOnBean(DatagenSource.class)
    @ConditionalOnMissingBean
    BoundedRunCompletion etlDatagenCompletion(
            DatagenSource source,
            EtlDatagenProperties properties,
            ApplicationContext context,
            ObjectProvider<EtlPipelineLifecycle> lifecycle,
            PipelineConfig pipeline) {
        BoundedRunCompletion completion = new BoundedRunCompletion(
                "datagen",
                "etl.source.datagen.when-done",
                properties.getWhenDone(),
                context,
                lifecycle,
                pipeline.name());
        if (source.isBounded()) {
            source.onDone(completion::done);
        }
        return completion;
    }

    private static RecordGenerator generator(
            EtlDatagenProperties properties, BeanFactory beanFactory, ObjectProvider<RecordGenerator> generators) {
        if (properties.getSchema() != null) {
            // the application's class loader, as the connectors' class conditions use
            ClassLoader loader = (beanFactory instanceof ConfigurableBeanFactory configurable
                            && configurable.getBeanClassLoader() != null)
                    ? configurable.getBeanClassLoader()
                    : DatagenSourceAutoConfiguration.class.getClassLoader();
            if (!ClassUtils.isPresent("org.apache.avro.Schema", loader)) {
                throw new InvalidEtlConfigurationException(
                        "etl.source.datagen.schema is set, but Avro is not on the " + "class path",
                        "Add dev.etl:etl-avro (or org.apache.avro:avro), or generate with a "
                                + "RecordGenerator bean (etl.source.datagen.generator).");
            }
            return AvroSchemaGenerators.fromSchema(properties, beanFactory, loader);
        }
        if (properties.getGenerator() != null) {
            try {
                return beanFactory.getBean(properties.getGenerator(), RecordGenerator.class);
            } catch (NoSuchBeanDefinitionException ex) {
                throw new InvalidEtlConfigurationException(
                        "etl.source.datagen.generator is '" + properties.getGenerator()
                                + "', but there is no RecordGenerator bean of that name (" + ex.getMessage() + ")",
                        "Name a bean of type dev.etl.datagen.RecordGenerator, or set etl.source.datagen.schema instead.");
            }
        }
        List<RecordGenerator> found = generators.orderedStream().toList();
        if (found.size() == 1) {
            return found.get(0);
        }
        throw new InvalidEtlConfigurationException(
                "etl.source.datagen is configured but says nothing to generate: "
                        + (found.isEmpty()
                                ? "neither etl.source.datagen.schema nor etl.source.datagen.generator is set, and "
                                        + "there is no RecordGenerator bean"
                                : "there are " + found.size()
                                        + " RecordGenerator beans and etl.source.datagen.generator names none"),
                "Set etl.source.datagen.schema to an Avro schema (e.g. classpath:order.avsc), or "
                        + "etl.source.datagen.generator to the name of a RecordGenerator bean.");
    }

    private static String kafkaSubscription(Environment environment) {
        Binder binder = Binder.get(environment);
        List<String> topics = binder.bind("etl.source.kafka.topics", Bindable.listOf(String.class))
                .orElse(List.of());
        if (!topics.isEmpty()) {
            return "etl.source.kafka.topics=" + topics;
        }
        return binder.bind("etl.source.kafka.pattern", String.class)
                .map((p) -> "etl.source.kafka.pattern=" + p)
                .orElse(null);
    }

    /** Matches when any {@code etl.source.datagen.*} property is set. */
    static class OnDatagen extends SpringBootCondition {

        private static final ConfigurationPropertyName PREFIX = ConfigurationPropertyName.of("etl.source.datagen");

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            for (ConfigurationPropertySource source : ConfigurationPropertySources.get(context.getEnvironment())) {
                if (source instanceof IterableConfigurationPropertySource iterable
                        && iterable.stream().anyMatch(PREFIX::isAncestorOf)) {
                    return ConditionOutcome.match("etl.source.datagen configured");
                }
            }
            return ConditionOutcome.noMatch("no etl.source.datagen.* property is set");
        }
    }
}
