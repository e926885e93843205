package dev.etl.autoconfigure.clickhouse;

import dev.etl.clickhouse.sharding.DistributedPlacement;
import dev.etl.ops.ChainFactory;
import dev.etl.sink.SinkDefinition;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
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
import org.springframework.util.StringUtils;

/**
 * Defines the beans of each named table of {@code etl.sink.clickhouse.tables.<name>}, in declaration
 * order, after the {@code etl.sink.clickhouse.table} sink's: a {@link SinkDefinition}
 * {@code etlClickHouseSink.<name>} and, with {@code placement.distributed-table}, a
 * {@link DistributedPlacement} {@code etlClickHousePlacement.<name>}, both qualified {@code <name>} and
 * made by the {@link ClickHouseTables} bean; and per topic that a table's {@code from.topic} names, a
 * {@code ChainFactory} {@code etlClickHouseTablePipeline.<topic>} made by the {@link ClickHouseTablePipelines}
 * bean. The placement is injected only by its qualifier (it is not a
 * default candidate), so an unqualified {@code DistributedPlacement} is still the {@code table} sink's. A bean of the application with the same name replaces
 * the table's.
 */
class ClickHouseTablesRegistrar implements ImportBeanDefinitionRegistrar, EnvironmentAware {

    static final String TABLES = "etl.sink.clickhouse.tables";

    static final String FACTORY = "etlClickHouseTables";

    private Environment environment;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
        Binder binder = Binder.get(this.environment);
        for (String name : names(this.environment)) {
            define(registry, "etlClickHouseSink." + name, SinkDefinition.class, "sink", name, true);
            String placement = TABLES + "[" + name + "].placement.distributed-table";
            if (StringUtils.hasText(binder.bind(placement, String.class).orElse(null))) {
                // not a default candidate: an unqualified DistributedPlacement stays the table sink's
                define(
                        registry,
                        "etlClickHousePlacement." + name,
                        DistributedPlacement.class,
                        "placement",
                        name,
                        false);
            }
        }
        // one chain factory per topic that tables read (etl.sink.clickhouse[.tables.<name>].from.topic)
        for (String topic : ClickHouseTablePipelines.topics(this.environment).keySet()) {
            String bean = "etlClickHouseTablePipeline." + topic;
            if (!registry.containsBeanDefinition(bean)) {
                RootBeanDefinition definition = new RootBeanDefinition();
                definition.setTargetType(ChainFactory.class);
                definition.setFactoryBeanName(ClickHouseTablePipelines.BEAN);
                definition.setFactoryMethodName("chainFactory");
                definition.getConstructorArgumentValues().addIndexedArgumentValue(0, topic);
                registry.registerBeanDefinition(bean, definition);
            }
        }
    }

    /**
     * The names of the named tables in {@code environment}, in declaration order (bound as plain maps:
     * a table that does not bind is still named, and the properties bean's binding reports why).
     */
    static Set<String> names(Environment environment) {
        Map<String, Object> tables = Binder.get(environment)
                .bind(TABLES, Bindable.mapOf(String.class, Object.class))
                .orElse(Map.of());
        return new LinkedHashSet<>(tables.keySet());
    }

    private static void define(
            BeanDefinitionRegistry registry,
            String bean,
            Class<?> type,
            String factoryMethod,
            String table,
            boolean defaultCandidate) {
        if (registry.containsBeanDefinition(bean)) {
            return;
        }
        RootBeanDefinition definition = new RootBeanDefinition();
        definition.setTargetType(type);
        definition.setFactoryBeanName(FACTORY);
        definition.setFactoryMethodName(factoryMethod);
        definition.getConstructorArgumentValues().addIndexedArgumentValue(0, table);
        definition.addQualifier(new AutowireCandidateQualifier(Qualifier.class, table));
        definition.setDefaultCandidate(defaultCandidate);
        registry.registerBeanDefinition(bean, definition);
    }
}
