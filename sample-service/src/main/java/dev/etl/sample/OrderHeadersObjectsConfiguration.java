package dev.etl.sample;

import dev.etl.avro.AvroDeserializer;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.sample.avro.Order;
import dev.etl.sample.avro.OrderStatus;
import dev.etl.sink.KeyHashRouter;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;

/**
 * The {@code headers-objects} profile: the rows of {@link OrderHeadersTranscodingConfiguration}, on the
 * first-pipeline guide's object path. The generated {@code Order} (the deserializer reuses it), a Java
 * filter, a map into one reused {@link OrderHeaderRow} per lane, and its encoder.
 */
@Configuration(proxyBeanMethods = false)
@Profile("headers-objects")
public class OrderHeadersObjectsConfiguration {

    /** The encoder of the table sink (order_headers); startup validation checks it. */
    @Bean
    RowBinaryEncoder<OrderHeaderRow> headerRows() {
        return OrderHeaderRow.HEADER_ENCODER;
    }

    /** Called once per lane, on the lane's thread: the row belongs to that lane. */
    @Bean
    ChainFactory objectOrderHeaders(AvroDeserializer.Builder<Order> orders) {
        return ctx -> {
            OrderHeaderRow header = new OrderHeaderRow();
            return Chains.from(ctx, orders.build())
                    .filter("not-cancelled", order -> order.getStatus() != OrderStatus.CANCELLED)
                    .map("order-header", header::set)
                    .sink(KeyHashRouter.byKey(OrderHeaderRow::orderId));
        };
    }
}
