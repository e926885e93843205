package dev.etl.autoconfigure.avro.clickhouse;

import dev.etl.autoconfigure.EtlAutoConfiguration;
import dev.etl.autoconfigure.avro.SchemaRegistryAutoConfiguration;
import dev.etl.autoconfigure.clickhouse.ClickHouseSinkAutoConfiguration;
import dev.etl.autoconfigure.clickhouse.ClickHouseSinkColumns;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.avro.clickhouse.AvroRowMapping;
import dev.etl.avro.clickhouse.AvroRowTranscoder;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The Avro → RowBinary transcoder, when the application declares an {@link AvroRowMapping} bean: an
 * {@link AvroRowTranscoder.Builder} over the schema-registry client (Confluent framing) for the
 * application's {@code ChainFactory} to {@code build()} a transcoder per lane from, and the mapping's
 * columns as the ClickHouse sink's {@link ClickHouseSinkColumns}, so the sink validates the table
 * against the mapping and chains end in {@code .sink(transcoder, router)}.
 */
@AutoConfiguration(
        after = SchemaRegistryAutoConfiguration.class,
        before = {ClickHouseSinkAutoConfiguration.class, EtlAutoConfiguration.class})
@ConditionalOnClass(AvroRowTranscoder.class)
@ConditionalOnBean(AvroRowMapping.class)
public final class AvroTranscoderAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(SchemaRegistryClient.class)
    AvroRowTranscoder.Builder etlAvroRowTranscoder(AvroRowMapping mapping, SchemaRegistryClient registry) {
        return AvroRowTranscoder.confluent(mapping, registry);
    }

    @Bean
    @ConditionalOnMissingBean
    ClickHouseSinkColumns etlClickHouseSinkColumns(AvroRowMapping mapping) {
        return new ClickHouseSinkColumns(mapping.columns());
    }
}
