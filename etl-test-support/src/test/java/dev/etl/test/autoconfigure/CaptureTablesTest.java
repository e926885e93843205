package dev.etl.test.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.sink.RowEncoder;
import dev.etl.sink.SinkDefinition;
import dev.etl.test.capture.CaptureScript;
import dev.etl.test.capture.CaptureSink;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The slice's doubles of named tables ({@code etl.sink.clickhouse.tables.<name>}): a capture sink per
 * table with the encoder qualified by its name, its script injectable by that qualifier, and the
 * {@code etl.sink.clickhouse.table} double only when that is set (or no table is named).
 */
class CaptureTablesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(EtlPipelineTestAutoConfiguration.class))
            .withUserConfiguration(Encoders.class);

    @Test
    void eachNamedTableHasACaptureSinkWithItsQualifiedEncoder() {
        this.runner
                .withPropertyValues(
                        "etl.sink.clickhouse.tables.orders.table=orders_local",
                        "etl.sink.clickhouse.tables.refunds.table=refunds_local",
                        "etl.sink.clickhouse.shards[0].replicas=http://a:8123",
                        "etl.sink.clickhouse.shards[1].replicas=http://b:8123")
                .withUserConfiguration(Scripts.class)
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBeanProvider(SinkDefinition.class).orderedStream())
                            .extracting(SinkDefinition::name)
                            .containsExactly("orders", "refunds");
                    SinkDefinition orders = context.getBean("etlCaptureSinkDefinition.orders", SinkDefinition.class);
                    assertThat(orders.encoder()).isSameAs(context.getBean("orderRows"));
                    assertThat(orders.shardCount()).isEqualTo(2);
                    assertThat(context.getBean("etlCaptureSinkDefinition.refunds", SinkDefinition.class)
                                    .encoder())
                            .isSameAs(context.getBean("refundRows"));
                    Scripts scripts = context.getBean(Scripts.class);
                    assertThat(scripts.orders)
                            .isSameAs(context.getBean("etlCaptureSink.orders", CaptureSink.class)
                                    .script());
                    assertThat(scripts.refunds)
                            .isSameAs(context.getBean("etlCaptureSink.refunds", CaptureSink.class)
                                    .script());
                    // no etl.sink.clickhouse.table: no double of it
                    assertThat(context).doesNotHaveBean("etlCaptureSink").doesNotHaveBean("etlCaptureSinkDefinition");
                });
    }

    @Test
    void theTableSinksDoubleStaysNextToNamedTablesWithTheUnclaimedEncoder() {
        this.runner
                .withPropertyValues(
                        "etl.sink.clickhouse.table=events_local",
                        "etl.sink.clickhouse.tables.orders.table=orders_local",
                        "etl.sink.clickhouse.tables.refunds.table=refunds_local")
                .withUserConfiguration(EventEncoder.class)
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBeanProvider(SinkDefinition.class).orderedStream())
                            .extracting(SinkDefinition::name)
                            .containsExactly("clickhouse", "orders", "refunds");
                    assertThat(context.getBean("etlCaptureSinkDefinition", SinkDefinition.class)
                                    .encoder())
                            .isSameAs(context.getBean("eventRows"));
                    // the unqualified script is the table sink's
                    assertThat(context.getBean(CaptureScript.class))
                            .isSameAs(context.getBean("etlCaptureSink", CaptureSink.class)
                                    .script());
                });
    }

    @Test
    void aSinkOfTheTestsOwnReplacesEveryDouble() {
        this.runner
                .withPropertyValues("etl.sink.clickhouse.tables.orders.table=orders_local")
                .withBean(
                        "own",
                        SinkDefinition.class,
                        () -> CaptureSink.create("own", 1).definition())
                .run((context) ->
                        assertThat(context.getBeansOfType(SinkDefinition.class)).containsOnlyKeys("own"));
    }

    @Configuration(proxyBeanMethods = false)
    static class Encoders {

        @Bean
        @Qualifier("orders")
        RowEncoder<Long> orderRows() {
            return (value, meta, out) -> out.writeLongLE(value);
        }

        @Bean
        @Qualifier("refunds")
        RowEncoder<Long> refundRows() {
            return (value, meta, out) -> out.writeLongLE(-value);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class EventEncoder {

        @Bean
        RowEncoder<String> eventRows() {
            return (value, meta, out) -> out.writeString(value);
        }
    }

    static class Scripts {

        final CaptureScript orders;

        final CaptureScript refunds;

        Scripts(@Qualifier("orders") CaptureScript orders, @Qualifier("refunds") CaptureScript refunds) {
            this.orders = orders;
            this.refunds = refunds;
        }
    }
}
