package dev.etl.sample;

import dev.etl.avro.AvroDeserializer;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.ops.ChainFactory;
import dev.etl.sample.avro.Order;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;

/**
 * The pipeline's beans: the topology ({@link ChainFactory}), the row encoder the ClickHouse sink
 * validates against the table at startup, and the Avro deserializer builder. In a class of its own,
 * so {@code @EtlPipelineTest} loads exactly this (it keeps configuration classes that declare a
 * {@code ChainFactory}).
 */
// tag::configuration[]
@Configuration(proxyBeanMethods = false)
public class OrdersPipelineConfiguration {

    /**
     * The rows of the orders table: the ClickHouse sink checks its columns against system.columns at
     * startup and writes every row with it (chains end in {@code .sink(router)}).
     */
    @Bean
    @Profile("!transcode & !headers")
    RowBinaryEncoder<OrderLineRow> orderLineRows() {
        return OrderLineRow.ENCODER;
    }

    /**
     * Confluent wire format, writer schemas fetched by id from the registry (the client is
     * auto-configured from etl.avro.registry.url), resolved against the generated v2 Order class.
     */
    @Bean
    AvroDeserializer.Builder<Order> orderDeserializer(SchemaRegistryClient registry) {
        return AvroDeserializer.specific(Order.class).confluent(registry);
    }

    /**
     * The topology: called once per lane, on the lane's thread. The {@code tables}, {@code transcode} and
     * {@code headers-*} profiles replace it with their own ({@link OrderTablesConfiguration},
     * {@link OrdersTranscodingConfiguration}, {@link OrderHeadersObjectsConfiguration} and its siblings).
     */
    @Bean
    @Profile("!tables & !transcode & !headers")
    ChainFactory orders(AvroDeserializer.Builder<Order> orders) {
        return ctx -> OrdersChain.build(ctx, orders);
    }
}
// end::configuration[]
