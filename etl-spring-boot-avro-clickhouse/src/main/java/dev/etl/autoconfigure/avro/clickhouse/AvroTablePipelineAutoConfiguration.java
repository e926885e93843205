package dev.etl.autoconfigure.avro.clickhouse;

import dev.etl.autoconfigure.avro.SchemaRegistryAutoConfiguration;
import dev.etl.autoconfigure.clickhouse.ClickHouseSinkAutoConfiguration;
import dev.etl.autoconfigure.clickhouse.ClickHouseTableRows;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.avro.clickhouse.AvroTableMapping;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.ResourceLoaderAware;
import org.springframework.context.annotation.Bean;
import org.springframework.core.io.ResourceLoader;

/**
 * Avro topics into tables from YAML alone: the {@link ClickHouseTableRows.Factory} of
 * {@code from.format=avro}, which derives each table's mapping by column name ({@link AvroTableMapping})
 * and writes it with the transcoder over the schema-registry client.
 */
@AutoConfiguration(after = SchemaRegistryAutoConfiguration.class, before = ClickHouseSinkAutoConfiguration.class)
@ConditionalOnClass({AvroTableMapping.class, ClickHouseTableRows.class})
public final class AvroTablePipelineAutoConfiguration implements ResourceLoaderAware {

    private ClassLoader classLoader = AvroTablePipelineAutoConfiguration.class.getClassLoader();

    @Override
    public void setResourceLoader(ResourceLoader resourceLoader) {
        ClassLoader loader = resourceLoader.getClassLoader();
        if (loader != null) {
            this.classLoader = loader;
        }
    }

    @Bean
    @ConditionalOnBean(SchemaRegistryClient.class)
    AvroTableRowsFactory etlAvroTableRows(SchemaRegistryClient registry, ObjectProvider<MeterRegistry> meters) {
        return new AvroTableRowsFactory(registry, this.classLoader, meters);
    }
}
