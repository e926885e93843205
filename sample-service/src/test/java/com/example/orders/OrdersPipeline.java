package com.example.orders;

import dev.etl.avro.AvroDeserializer;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.sample.avro.Order;
import dev.etl.sample.avro.OrderStatus;
import dev.etl.sink.KeyHashRouter;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

// tag::configuration[]
@Configuration(proxyBeanMethods = false)
class OrdersPipeline {

    @Bean
    RowBinaryEncoder<OrderRow> orderRows() { // the sink validates its columns, writes with it
        return RowBinaryEncoder.<OrderRow>builder()
                .uint64("id", OrderRow::id)
                .string("customer", OrderRow::customer)
                .decimal64("amount", 2, OrderRow::amountCents)
                .build();
    }

    @Bean
    ChainFactory orders(SchemaRegistryClient registry) {
        AvroDeserializer.Builder<Order> avro =
                AvroDeserializer.specific(Order.class).confluent(registry);
        return ctx -> Chains.from(ctx, avro.build()) // build() here: one deserializer per lane
                .filter("not-cancelled", o -> o.getStatus() != OrderStatus.CANCELLED)
                .map("to-row", OrderRow::of)
                .sink(KeyHashRouter.byKey(OrderRow::id)); // rows written with the orderRows bean
    }
}
// end::configuration[]
