package dev.etl.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.autoconfigure.avro.SchemaRegistryAutoConfiguration;
import dev.etl.autoconfigure.avro.clickhouse.AvroTranscoderAutoConfiguration;
import dev.etl.autoconfigure.clickhouse.ClickHouseSinkAutoConfiguration;
import dev.etl.autoconfigure.clickhouse.ClickHouseSinkColumns;
import dev.etl.avro.clickhouse.AvroRowMapping;
import dev.etl.avro.clickhouse.AvroRowTranscoder;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.deser.Deserializer;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.record.Payload;
import dev.etl.sink.KeyHashRouter;
import dev.etl.sink.SinkDefinition;
import dev.etl.test.avro.StubSchemaRegistry;
import org.apache.avro.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The transcoder's auto-configuration: an {@code AvroRowMapping} bean gives the chains an
 * {@code AvroRowTranscoder.Builder} and the ClickHouse sink its columns; it backs off without a
 * mapping, without the module, and leaves an application's {@code RowBinaryEncoder} bean in charge.
 */
class AvroTranscoderAutoConfigurationTest {
    static final Schema ORDER = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "fields": [{"name": "id", "type": "long"},
              {"name": "coupon", "type": ["null", "string"], "default": null}]}""");

    private final StubSchemaRegistry registry = StubSchemaRegistry.start();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    SchemaRegistryAutoConfiguration.class,
                    AvroTranscoderAutoConfiguration.class,
                    ClickHouseSinkAutoConfiguration.class,
                    EtlAutoConfiguration.class))
            .withPropertyValues(
                    "etl.pipeline.exit-on-failure=false",
                    "etl.sink.clickhouse.table=orders_local",
                    "etl.sink.clickhouse.shards[0].replicas=http://127.0.0.1:18123",
                    "etl.avro.registry.url=" + registry.url())
            .withUserConfiguration(
                    ConnectorAutoConfigurationTest.MemorySourceOnly.class,
                    ConnectorAutoConfigurationTest.NotStarted.class);

    @AfterEach
    void stopRegistry() {
        registry.close();
    }

    @Test
    void aMappingBeanGivesTheChainsATranscoderAndTheSinkItsColumns() {
        this.runner.withUserConfiguration(Mapping.class, TranscodingChain.class).run((context) -> {
            assertThat(context).hasNotFailed();
            AvroRowTranscoder.Builder builder = context.getBean(AvroRowTranscoder.Builder.class);
            assertThat(builder.mapping()).isSameAs(context.getBean(AvroRowMapping.class));
            assertThat(context.getBean(ClickHouseSinkColumns.class).columns())
                    .isEqualTo(context.getBean(AvroRowMapping.class).columns());
            SinkDefinition sink = context.getBean("etlClickHouseSink", SinkDefinition.class);
            assertThat(sink.encoder()).as("the chain passes the transcoder").isNull();
        });
    }

    @Test
    void backsOffWithoutAMapping() {
        this.runner
                .withUserConfiguration(ConnectorAutoConfigurationTest.Encoder.class, TestPipelines.Chain.class)
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(AvroRowTranscoder.Builder.class);
                    assertThat(context).doesNotHaveBean(ClickHouseSinkColumns.class);
                });
    }

    @Test
    void backsOffWithoutTheModule() {
        this.runner
                .withClassLoader(new FilteredClassLoader(AvroRowTranscoder.class))
                .withUserConfiguration(ConnectorAutoConfigurationTest.Encoder.class, TestPipelines.Chain.class)
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(ClickHouseSinkColumns.class);
                });
    }

    @Test
    void withoutARegistryOnlyTheSinkColumnsAreDeclared() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        SchemaRegistryAutoConfiguration.class,
                        AvroTranscoderAutoConfiguration.class,
                        ClickHouseSinkAutoConfiguration.class,
                        EtlAutoConfiguration.class))
                .withPropertyValues(
                        "etl.pipeline.exit-on-failure=false",
                        "etl.sink.clickhouse.table=orders_local",
                        "etl.sink.clickhouse.shards[0].replicas=http://127.0.0.1:18123")
                .withUserConfiguration(
                        ConnectorAutoConfigurationTest.MemorySourceOnly.class,
                        ConnectorAutoConfigurationTest.NotStarted.class,
                        Mapping.class,
                        TestPipelines.Chain.class)
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(AvroRowTranscoder.Builder.class);
                    assertThat(context).hasSingleBean(ClickHouseSinkColumns.class);
                });
    }

    @Test
    void aRowBinaryEncoderBeanStaysTheSinksEncoder() {
        this.runner
                .withUserConfiguration(
                        Mapping.class, ConnectorAutoConfigurationTest.Encoder.class, TestPipelines.Chain.class)
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    SinkDefinition sink = context.getBean("etlClickHouseSink", SinkDefinition.class);
                    assertThat(sink.encoder()).isSameAs(context.getBean(RowBinaryEncoder.class));
                });
    }

    // tag::spring[]
    @Configuration(proxyBeanMethods = false)
    static class Mapping {

        @Bean
        AvroRowMapping ordersMapping() {
            return AvroRowMapping.builder(ORDER)
                    .column("id", "UInt64")
                    .column("coupon", "Nullable(String)")
                    .build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TranscodingChain {

        @Bean
        ChainFactory ordersChain(AvroRowTranscoder.Builder orders) {
            return (ctx) -> Chains.from(ctx, Deserializer.payload())
                    .filter("not-tombstone", Payload::isPresent)
                    .sink(orders.build(), KeyHashRouter.byRecordKey());
        }
    }
    // end::spring[]

}
