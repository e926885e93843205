package dev.etl.it.spring;

import dev.etl.autoconfigure.json.JsonDeserializers;
import dev.etl.avro.AvroDeserializer;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.it.spring.StarterApplication.OrderRow;
import dev.etl.json.JsonDeserializer;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.sink.KeyHashRouter;
import java.util.Set;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * {@link StarterApplication}'s topology with one more topic, written the way a user writes it with only
 * the starter: Avro orders (Confluent records from the registry, or the single-object rows of a backfill
 * of Avro container files) → a row → the ClickHouse sink, routed by order id; and orders as JSON lines on
 * the topic {@value #JSON_TOPIC} (or a backfill of NDJSON objects reporting that topic) → the same rows.
 * {@link StarterBackfillIT} runs it in child JVMs configured with {@code etl.source.s3.*} only.
 *
 * <p>Not a {@code @SpringBootApplication}: it shares the package of {@link StarterApplication}, whose
 * component scan would then pick it up (and this one that one). Its beans and the auto-configuration come
 * from this class alone.
 */
@EnableAutoConfiguration
public class StarterBackfillApplication {

    /** The topic of the JSON chain. */
    static final String JSON_TOPIC = "orders-json";

    /** An order as a JSON line: {@code {"id":1,"customer":"c","amountCents":7}}. */
    record JsonOrder(long id, String customer, long amountCents) {}

    public static void main(String[] args) {
        SpringApplication.run(StarterBackfillApplication.class, args);
    }

    @Bean
    RowBinaryEncoder<OrderRow> orderRows() {
        return RowBinaryEncoder.<OrderRow>builder()
                .uint64("id", OrderRow::id)
                .string("customer", OrderRow::customer)
                .int64("amount_cents", OrderRow::amountCents)
                .build();
    }

    /** Every topic but {@value #JSON_TOPIC}: Avro orders. */
    @Bean
    ChainFactory orders(SchemaRegistryClient registry, RowBinaryEncoder<OrderRow> orderRows) {
        return (ctx) -> Chains.from(
                        ctx,
                        AvroDeserializer.generic(StarterApplication.ORDER)
                                .confluent(registry)
                                .build())
                .map("to-row", OrderRow::of)
                .sink(orderRows, KeyHashRouter.byKey(OrderRow::id));
    }

    /** {@value #JSON_TOPIC}: orders as JSON documents. */
    @Bean
    ChainFactory jsonOrders(JsonDeserializers json, RowBinaryEncoder<OrderRow> orderRows) {
        JsonDeserializer.Builder<JsonOrder> orders = json.forType(JsonOrder.class);
        return ChainFactory.forTopics(
                Set.of(JSON_TOPIC),
                (ctx) -> Chains.from(ctx, orders.build())
                        .map("to-row", (order) -> new OrderRow(order.id(), order.customer(), order.amountCents()))
                        .sink(orderRows, KeyHashRouter.byKey(OrderRow::id)));
    }
}
