package dev.etl.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.autoconfigure.EtlAutoConfiguration;
import dev.etl.autoconfigure.EtlPipelineLifecycle;
import dev.etl.autoconfigure.clickhouse.ClickHouseSinkAutoConfiguration;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.ops.ChainFactory;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.sink.SinkDefinition;
import dev.etl.test.memory.MemorySource;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.ConfigDataApplicationContextInitializer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The real ClickHouse sink auto-configuration over the sample's {@code application.yaml}, with and
 * without {@code application-tables.yaml}: which sinks exist, which encoder each writes with, which
 * chain factory is defined. Nothing connects: the pipeline is assembled but not started (a memory
 * source in place of Kafka, the lifecycle not auto-started), so no server is needed.
 */
class OrderTablesWiringTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withInitializer(new ConfigDataApplicationContextInitializer()) // application[-tables].yaml
            .withConfiguration(AutoConfigurations.of(ClickHouseSinkAutoConfiguration.class, EtlAutoConfiguration.class))
            .withPropertyValues("etl.pipeline.exit-on-failure=false", "etl.pipeline.handle-signals=false")
            .withUserConfiguration(NotStarted.class, OrdersPipelineConfiguration.class, OrderTablesConfiguration.class);

    @Test
    void theTablesProfileAddsTheHeaderAndCancelledTablesNextToTheLineRows() {
        runner.withPropertyValues("spring.profiles.active=tables").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBeanProvider(SinkDefinition.class)
                            .orderedStream()
                            .map(SinkDefinition::name))
                    .containsExactly("orders", "headers", "cancelled");
            SinkDefinition lines = context.getBean("etlClickHouseSink", SinkDefinition.class);
            SinkDefinition headers = context.getBean("etlClickHouseSink.headers", SinkDefinition.class);
            SinkDefinition cancelled = context.getBean("etlClickHouseSink.cancelled", SinkDefinition.class);
            assertThat(lines.encoder()).isSameAs(OrderLineRow.ENCODER); // claimed by no named table
            assertThat(headers.encoder()).isSameAs(OrderHeaderRow.HEADER_ENCODER);
            assertThat(cancelled.encoder()).isSameAs(OrderHeaderRow.CANCELLED_ENCODER);
            for (SinkDefinition sink : new SinkDefinition[] {lines, headers, cancelled}) {
                assertThat(sink.shardCount()).isEqualTo(2); // the one connection
                assertThat(sink.batch().maxRows()).isEqualTo(1_000_000); // the default, inherited by every table
            }
            assertThat(headers.batch().linger()).isEqualTo(Duration.ofSeconds(1));
            assertThat(cancelled.batch().linger()).isEqualTo(Duration.ofSeconds(2)); // its own
            assertThat(context.getBeansOfType(ChainFactory.class)).containsOnlyKeys("orderTables");
        });
    }

    @Test
    void withoutTheProfileTheSampleWritesItsOneOrdersTable() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBeanProvider(SinkDefinition.class)
                            .orderedStream()
                            .map(SinkDefinition::name))
                    .containsExactly("clickhouse");
            assertThat(context.getBean(SinkDefinition.class).encoder()).isSameAs(OrderLineRow.ENCODER);
            assertThat(context.getBeansOfType(ChainFactory.class)).containsOnlyKeys("orders");
        });
    }

    /** What the application's Kafka and registry auto-configuration would bring, and a lifecycle that waits. */
    @Configuration(proxyBeanMethods = false)
    static class NotStarted {
        @Bean
        SchemaRegistryClient registry() {
            return SchemaRegistryClient.builder("http://127.0.0.1:1").build(); // never called: nothing decodes
        }

        @Bean
        MemorySource source() {
            return MemorySource.create();
        }

        @Bean
        EtlPipelineLifecycle notStartedLifecycle(PipelineRuntime runtime, ApplicationContext context) {
            return new EtlPipelineLifecycle(runtime, context, false, false, Duration.ofSeconds(30)) {
                @Override
                public boolean isAutoStartup() {
                    return false;
                }
            };
        }
    }
}
