package dev.etl.sample;

import dev.etl.avro.AvroDeserializer;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.sink.KeyHashRouter;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;

/**
 * The {@code headers-generic} profile: the rows of {@link OrderHeadersTranscodingConfiguration}, from
 * {@code GenericRecord}s, written the way the docs show a generic chain ({@code examples/consumer},
 * the testing guide): the reader schema parsed from its text, the deserializer built in the chain
 * factory, a filter on the status field, a map computing the row (a new immutable row per order, strings
 * copied with {@code toString()}), and a {@code RowBinaryEncoder} bean. Nothing here is tuned: it is
 * what a user writes first, measured by {@code scripts/bench.sh} ({@code BENCH_PATHS=1}).
 */
@Configuration(proxyBeanMethods = false)
@Profile("headers-generic")
public class OrderHeadersGenericConfiguration {

    /** The reader schema: {@code src/main/avro/Order.avsc} (version 2), as a user's application holds it. */
    public static final Schema ORDER = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "namespace": "dev.etl.sample.avro", "fields": [
              {"name": "id", "type": "long"},
              {"name": "customer", "type": "string"},
              {"name": "status", "type": {"type": "enum", "name": "OrderStatus",
                  "symbols": ["NEW", "PAID", "SHIPPED", "CANCELLED"]}},
              {"name": "updated_ms", "type": "long"},
              {"name": "lines", "type": {"type": "array", "items": {
                "type": "record", "name": "OrderLine", "fields": [
                  {"name": "sku", "type": "string"},
                  {"name": "quantity", "type": "int"},
                  {"name": "price_cents", "type": "long"}]}}},
              {"name": "coupon", "type": ["null", "string"], "default": null}]}""");

    static final Map<String, Integer> STATUS = Map.of("NEW", 0, "PAID", 1, "SHIPPED", 2, "CANCELLED", 3);

    /** One row of {@code order_headers}: an order that is not cancelled, its lines summed. */
    record OrderHeader(
            long orderId,
            String customer,
            int status,
            int lineCount,
            long quantity,
            long totalCents,
            String coupon,
            long updatedMs) {

        static OrderHeader of(GenericRecord order) {
            @SuppressWarnings("unchecked")
            List<GenericRecord> lines = (List<GenericRecord>) order.get("lines");
            long quantity = 0;
            long totalCents = 0;
            for (GenericRecord line : lines) {
                int q = (Integer) line.get("quantity");
                quantity += q;
                totalCents += q * (Long) line.get("price_cents");
            }
            Object coupon = order.get("coupon");
            return new OrderHeader(
                    (Long) order.get("id"),
                    order.get("customer").toString(),
                    STATUS.get(order.get("status").toString()),
                    lines.size(),
                    quantity,
                    totalCents,
                    coupon == null ? null : coupon.toString(),
                    (Long) order.get("updated_ms"));
        }
    }

    /** The encoder of the table sink (order_headers); startup validation checks it. */
    @Bean
    RowBinaryEncoder<OrderHeader> genericHeaderRows() {
        return RowBinaryEncoder.<OrderHeader>builder()
                .uint64("order_id", OrderHeader::orderId)
                .string("customer", OrderHeader::customer)
                .enum8("status", STATUS, OrderHeader::status)
                .uint16("line_count", OrderHeader::lineCount)
                .uint32("quantity", OrderHeader::quantity)
                .decimal64("total", 2, OrderHeader::totalCents)
                .nullableString("coupon", OrderHeader::coupon)
                .int64("updated_ms", OrderHeader::updatedMs)
                .build();
    }

    /** Called once per lane: one deserializer per lane. */
    @Bean
    ChainFactory genericOrderHeaders(SchemaRegistryClient registry) {
        return ctx -> Chains.from(
                        ctx, AvroDeserializer.generic(ORDER).confluent(registry).build())
                .filter(
                        "not-cancelled",
                        order -> !"CANCELLED".equals(order.get("status").toString()))
                .map("order-header", OrderHeader::of)
                .sink(KeyHashRouter.byKey(OrderHeader::orderId));
    }
}
