package com.example.tables;

import static com.example.tables.ShopEvent.Kind.ORDER;
import static com.example.tables.ShopEvent.Kind.REFUND;

import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.ops.FlatMapper;
import dev.etl.record.Collector;
import dev.etl.sink.KeyHashRouter;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * One topic, three tables: an order becomes a row of {@code orders} (its header) and a row of
 * {@code lines} per line; a refund a row of {@code refunds}. Each table is a named table
 * ({@code etl.sink.clickhouse.tables.<name>}) written with the encoder bean qualified with its name.
 */
// tag::tables[]
@Configuration(proxyBeanMethods = false)
public class ShopTables {

    record OrderRow(long orderId, long customerId, long amountCents) {}

    record LineRow(long orderId, int lineNo, String sku, int quantity) {}

    record RefundRow(long refundId, long orderId, long amountCents) {}

    static final FlatMapper<ShopEvent, LineRow> LINES = ShopTables::lines;

    @Bean
    @Qualifier("orders") // the encoder of etl.sink.clickhouse.tables.orders
    RowBinaryEncoder<OrderRow> orderRows() {
        return RowBinaryEncoder.<OrderRow>builder()
                .uint64("order_id", OrderRow::orderId)
                .uint64("customer_id", OrderRow::customerId)
                .decimal64("amount", 2, OrderRow::amountCents)
                .build();
    }

    @Bean
    @Qualifier("lines")
    RowBinaryEncoder<LineRow> lineRows() {
        return RowBinaryEncoder.<LineRow>builder()
                .uint64("order_id", LineRow::orderId)
                .uint16("line_no", LineRow::lineNo)
                .string("sku", LineRow::sku)
                .uint32("quantity", LineRow::quantity)
                .build();
    }

    @Bean
    @Qualifier("refunds")
    RowBinaryEncoder<RefundRow> refundRows() {
        return RowBinaryEncoder.<RefundRow>builder()
                .uint64("refund_id", RefundRow::refundId)
                .uint64("order_id", RefundRow::orderId)
                .decimal64("amount", 2, RefundRow::amountCents)
                .build();
    }

    @Bean
    ChainFactory shop() {
        return (ctx) -> Chains.from(ctx, new ShopEvent.Parser())
                .fanOut(
                        "by-kind", // every record goes to both branches
                        (orders) -> orders.filter("orders-only", (e) -> e.kind() == ORDER)
                                .fanOut(
                                        "order-rows", // one order: a header row and its line rows
                                        (header) -> header.map("to-order", ShopTables::order)
                                                .sink("orders", KeyHashRouter.byKey(OrderRow::orderId)),
                                        (lines) -> lines.flatMap("to-lines", LINES)
                                                .sink("lines", KeyHashRouter.byKey(LineRow::orderId))),
                        (refunds) -> refunds.filter("refunds-only", (e) -> e.kind() == REFUND)
                                .map("to-refund", ShopTables::refund)
                                .sink("refunds", KeyHashRouter.byKey(RefundRow::orderId)));
    }

    static OrderRow order(ShopEvent order) {
        return new OrderRow(order.id(), order.customerId(), order.amountCents());
    }

    static void lines(ShopEvent order, Collector<? super LineRow> out) {
        for (int i = 0; i < order.lines().size(); i++) {
            ShopEvent.Line line = order.lines().get(i);
            out.collect(new LineRow(order.id(), i, line.sku(), line.quantity()));
        }
    }

    static RefundRow refund(ShopEvent refund) {
        return new RefundRow(refund.id(), refund.orderId(), refund.amountCents());
    }
}
// end::tables[]
