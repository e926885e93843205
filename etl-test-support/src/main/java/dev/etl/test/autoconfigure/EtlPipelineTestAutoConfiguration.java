package dev.etl.test.autoconfigure;

import dev.etl.avro.SchemaRegistryClient;
import dev.etl.sink.RowEncoder;
import dev.etl.sink.SinkDefinition;
import dev.etl.source.Source;
import dev.etl.test.avro.StubSchemaRegistry;
import dev.etl.test.capture.CaptureScript;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.memory.MemorySource;
import dev.etl.test.memory.MemorySourceHandle;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.StringUtils;

/**
 * The test doubles of {@link EtlPipelineTest @EtlPipelineTest}: a {@link MemorySource} as the pipeline's
 * source and a {@link CaptureSink} as its sink, with their scripting handles as beans (and one qualified
 * capture sink per named table, {@link CaptureTablesRegistrar}), and a
 * {@link StubSchemaRegistry} with a {@link SchemaRegistryClient} pointed at it. Ordered before the
 * pipeline and schema-registry auto-configurations, which consume or back off from them; a test's own
 * {@link Source}, {@link SinkDefinition}, {@link SchemaRegistryClient} or
 * {@code SchemaRegistryConnectionDetails} bean replaces the double.
 */
@AutoConfiguration(
        beforeName = {
            "dev.etl.autoconfigure.EtlAutoConfiguration",
            "dev.etl.autoconfigure.avro.SchemaRegistryAutoConfiguration"
        })
@Import(CaptureTablesRegistrar.class)
public final class EtlPipelineTestAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(Source.class)
    MemorySource etlMemorySource() {
        return MemorySource.create();
    }

    @Bean
    @ConditionalOnSingleCandidate(MemorySource.class)
    MemorySourceHandle etlMemorySourceHandle(MemorySource source) {
        return source.handle();
    }

    /**
     * The double of the {@code etl.sink.clickhouse.table} sink: when that is set, or when no named table
     * ({@code etl.sink.clickhouse.tables.*}) is, so a test without ClickHouse settings still has a sink.
     */
    @Bean
    @ConditionalOnMissingBean(SinkDefinition.class)
    @Conditional(DefaultCaptureSinkCondition.class)
    CaptureSink etlCaptureSink(Environment environment) {
        String name = Binder.get(environment)
                .bind("etl.sink.clickhouse.name", String.class)
                .orElse("clickhouse");
        return CaptureSink.create(name, shards(environment));
    }

    /**
     * The capture sink as the pipeline's sink, written with the application's row encoder when it has
     * exactly one {@code RowEncoder} bean (the one its ClickHouse sink would validate and write with) that
     * no named table claims (by {@code @Qualifier} or bean name), or one {@code @Primary} among them, so
     * chains that end in {@code .sink(router)} run unchanged.
     */
    @Bean
    @ConditionalOnSingleCandidate(CaptureSink.class)
    SinkDefinition etlCaptureSinkDefinition(
            CaptureSink sink,
            ObjectProvider<RowEncoder<?>> encoders,
            ListableBeanFactory beans,
            Environment environment) {
        Set<String> tables = CaptureTablesRegistrar.names(environment);
        RowEncoder<?> encoder = null;
        if (tables.isEmpty()) {
            encoder = encoders.getIfUnique();
        } else {
            List<String> unclaimed = CaptureTablesRegistrar.unclaimedEncoders(beans, tables);
            if (unclaimed.size() == 1) {
                encoder = beans.getBean(unclaimed.get(0), RowEncoder.class);
            }
        }
        return (encoder != null)
                ? sink.definition().toBuilder().encoder(encoder).build()
                : sink.definition();
    }

    @Bean
    @ConditionalOnSingleCandidate(CaptureSink.class)
    CaptureScript etlCaptureScript(CaptureSink sink) {
        return sink.script();
    }

    @Bean
    @ConditionalOnMissingBean(MeterRegistry.class)
    SimpleMeterRegistry etlTestMeterRegistry() {
        return new SimpleMeterRegistry();
    }

    /**
     * The schema registry of the slice, in place of the one {@code etl.avro.registry.url} names (as the
     * memory source and capture sink stand in for the configured Kafka and ClickHouse). Backs off when
     * the test brings a registry of its own: a client, or connection details (such as a
     * {@code @ServiceConnection}) for the schema-registry auto-configuration to build one from. The
     * types are named, not referenced: this module does not depend on the auto-configuration module,
     * and the Avro connector is optional (only applications that decode Avro have it).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "dev.etl.avro.SchemaRegistryClient")
    @ConditionalOnMissingBean(
            type = {"dev.etl.avro.SchemaRegistryClient", "dev.etl.autoconfigure.avro.SchemaRegistryConnectionDetails"})
    static class StubSchemaRegistryConfiguration {

        @Bean(destroyMethod = "close")
        StubSchemaRegistry etlStubSchemaRegistry() {
            return StubSchemaRegistry.start();
        }

        @Bean
        SchemaRegistryClient etlStubSchemaRegistryClient(StubSchemaRegistry registry) {
            return SchemaRegistryClient.builder(registry.url()).build();
        }
    }

    /** The shards {@code etl.sink.clickhouse.shards} lists, 1 if none. */
    static int shards(Environment environment) {
        int shards = Binder.get(environment)
                .bind("etl.sink.clickhouse.shards", Bindable.listOf(Shard.class))
                .map(List::size)
                .orElse(1);
        return Math.max(1, shards);
    }

    /** {@code etl.sink.clickhouse.table} is set, or no named table is. */
    static class DefaultCaptureSinkCondition implements Condition {

        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            Environment environment = context.getEnvironment();
            return StringUtils.hasText(environment.getProperty("etl.sink.clickhouse.table"))
                    || CaptureTablesRegistrar.names(environment).isEmpty();
        }
    }

    /** The shape of one {@code etl.sink.clickhouse.shards[i]} entry; only counted here. */
    static class Shard {

        private List<String> replicas = new ArrayList<>();

        public List<String> getReplicas() {
            return this.replicas;
        }

        public void setReplicas(List<String> replicas) {
            this.replicas = replicas;
        }
    }
}
