package com.example.orders;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.avro.SchemaRegistryClient;
import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.ops.ChainFactory;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The configuration docs/guides/spring-boot.md shows gives the topology and the encoder, as beans. */
class OrdersPipelineWiringTest {

    @Test
    void declaresTheChainFactoryAndTheRowEncoder() {
        new ApplicationContextRunner()
                .withUserConfiguration(OrdersPipeline.class)
                .withBean(
                        SchemaRegistryClient.class,
                        () -> SchemaRegistryClient.builder("http://localhost:1").build())
                .run((context) -> {
                    assertThat(context).hasSingleBean(ChainFactory.class);
                    RowBinaryEncoder<?> rows = context.getBean(RowBinaryEncoder.class);
                    assertThat(rows.columns())
                            .extracting(ClickHouseColumn::name)
                            .containsExactly("id", "customer", "amount");
                });
    }
}
