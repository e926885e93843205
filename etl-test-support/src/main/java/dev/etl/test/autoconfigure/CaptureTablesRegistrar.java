package dev.etl.test.autoconfigure;

import dev.etl.sink.RowEncoder;
import dev.etl.sink.SinkDefinition;
import dev.etl.test.capture.CaptureScript;
import dev.etl.test.capture.CaptureSink;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.annotation.BeanFactoryAnnotationUtils;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.support.AutowireCandidateQualifier;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * The capture doubles of the named tables ({@code etl.sink.clickhouse.tables.<name>}): per table a
 * {@link CaptureSink} named {@code <name>} with as many shards as {@code etl.sink.clickhouse.shards}
 * lists, its {@link SinkDefinition} (written with the {@code RowEncoder} bean qualified {@code <name>},
 * as the ClickHouse sink would be) and its {@link CaptureScript}. The sink and the script are qualified
 * {@code <name>} and injected only by that qualifier ({@code @Autowired @Qualifier("orders") CaptureScript}),
 * so they never compete with the {@code etl.sink.clickhouse.table} sink's double. Nothing is defined
 * when the test has a {@code SinkDefinition} of its own.
 */
class CaptureTablesRegistrar implements ImportBeanDefinitionRegistrar, EnvironmentAware, BeanFactoryAware {

    static final String TABLES = "etl.sink.clickhouse.tables";

    private Environment environment;

    private ListableBeanFactory beanFactory;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
        this.beanFactory = (ListableBeanFactory) beanFactory;
    }

    @Override
    public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
        Set<String> tables = names(this.environment);
        boolean ownSink = Arrays.stream(this.beanFactory.getBeanNamesForType(SinkDefinition.class, true, false))
                .anyMatch((bean) -> !bean.startsWith("etlCapture"));
        if (tables.isEmpty() || ownSink) {
            return;
        }
        int shards = EtlPipelineTestAutoConfiguration.shards(this.environment);
        ListableBeanFactory beans = this.beanFactory;
        for (String table : tables) {
            String sink = "etlCaptureSink." + table;
            define(registry, sink, CaptureSink.class, false, table, () -> CaptureSink.create(table, shards));
            define(
                    registry,
                    "etlCaptureScript." + table,
                    CaptureScript.class,
                    false,
                    table,
                    () -> beans.getBean(sink, CaptureSink.class).script());
            define(registry, "etlCaptureSinkDefinition." + table, SinkDefinition.class, true, table, () -> {
                SinkDefinition definition =
                        beans.getBean(sink, CaptureSink.class).definition();
                RowEncoder<?> encoder = encoder(beans, table);
                return (encoder != null)
                        ? definition.toBuilder().encoder(encoder).build()
                        : definition;
            });
        }
    }

    /** The named tables of {@code environment}, in declaration order. */
    static Set<String> names(Environment environment) {
        Map<String, Object> tables = Binder.get(environment)
                .bind(TABLES, Bindable.mapOf(String.class, Object.class))
                .orElse(Map.of());
        return new LinkedHashSet<>(tables.keySet());
    }

    /** The row encoder qualified {@code table} (or named so), or null. */
    static RowEncoder<?> encoder(ListableBeanFactory beans, String table) {
        try {
            return BeanFactoryAnnotationUtils.qualifiedBeanOfType(beans, RowEncoder.class, table);
        } catch (NoSuchBeanDefinitionException ex) {
            return null; // including several: the chain's sink(...) call then says what is missing
        }
    }

    /** The row encoders that no named table claims by qualifier or bean name. */
    static List<String> unclaimedEncoders(ListableBeanFactory beans, Set<String> tables) {
        return Arrays.stream(beans.getBeanNamesForType(RowEncoder.class))
                .filter((bean) -> tables.stream()
                        .noneMatch((table) -> BeanFactoryAnnotationUtils.isQualifierMatch(table::equals, bean, beans)))
                .toList();
    }

    private static <T> void define(
            BeanDefinitionRegistry registry,
            String name,
            Class<T> type,
            boolean defaultCandidate,
            String table,
            Supplier<T> supplier) {
        if (registry.containsBeanDefinition(name)) {
            return;
        }
        RootBeanDefinition definition = new RootBeanDefinition(type, supplier);
        definition.addQualifier(new AutowireCandidateQualifier(Qualifier.class, table));
        definition.setDefaultCandidate(defaultCandidate);
        registry.registerBeanDefinition(name, definition);
    }
}
