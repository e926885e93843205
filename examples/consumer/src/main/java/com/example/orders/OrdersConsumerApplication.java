package com.example.orders;

import dev.etl.avro.AvroDeserializer;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.sink.KeyHashRouter;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * Avro orders from Kafka (Confluent wire format, writer schemas from the registry) into a ClickHouse table:
 * the topology in two beans, every setting in {@code application.yaml}.
 */
@SpringBootApplication
public class OrdersConsumerApplication {

    /** The order the producers write and the chain reads. */
    public static final Schema ORDER = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "namespace": "com.example.orders", "fields": [
              {"name": "id", "type": "long"},
              {"name": "customer", "type": "string"},
              {"name": "amount_cents", "type": "long"}]}""");

    /** One row of the {@code orders} table, in its column order. */
    record OrderRow(long id, String customer, long amountCents) {

        static OrderRow of(GenericRecord order) {
            return new OrderRow(
                    (Long) order.get("id"), order.get("customer").toString(), (Long) order.get("amount_cents"));
        }
    }

    public static void main(String[] args) {
        SpringApplication.run(OrdersConsumerApplication.class, args);
    }

    @Bean
    RowBinaryEncoder<OrderRow> orderRows() {
        return RowBinaryEncoder.<OrderRow>builder()
                .uint64("id", OrderRow::id)
                .string("customer", OrderRow::customer)
                .int64("amount_cents", OrderRow::amountCents)
                .build();
    }

    @Bean
    ChainFactory orders(SchemaRegistryClient registry, RowBinaryEncoder<OrderRow> orderRows) {
        return (ctx) -> Chains.from(ctx, AvroDeserializer.generic(ORDER).confluent(registry).build())
                .map("to-row", OrderRow::of)
                .sink(orderRows, KeyHashRouter.byKey(OrderRow::id));
    }
}
