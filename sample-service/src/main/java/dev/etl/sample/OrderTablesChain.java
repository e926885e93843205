package dev.etl.sample;

import dev.etl.avro.AvroDeserializer;
import dev.etl.ops.Chain;
import dev.etl.ops.ChainContext;
import dev.etl.ops.Chains;
import dev.etl.sample.avro.Order;
import dev.etl.sample.avro.OrderStatus;
import dev.etl.sink.KeyHashRouter;

/**
 * The topology of the {@code tables} profile ({@link OrderTablesConfiguration}): the same Avro orders
 * as {@link OrdersChain}, written to three tables. An order that is not cancelled becomes a header
 * row in {@code order_headers} (sink {@code headers}) and a row per line in {@code orders} (sink
 * {@code orders}, the line rows of the default profile); a cancelled order becomes one row in
 * {@code cancelled_orders} (sink {@code cancelled}) instead of being dropped. Every table is sharded by
 * order id, so an order's header and its lines land on one shard.
 *
 * <p>Acks: each sink a record reaches holds the record's batch ack, so an order's offset is committed
 * once its header and its lines are both written; a cancelled order waits for {@code cancelled} alone
 * (the branch whose filter dropped it takes no ack).
 */
public final class OrderTablesChain {
    private OrderTablesChain() {}

    // tag::chain[]
    /** Builds one lane's chain; {@code orders} builds the lane's own deserializer. */
    public static Chain build(ChainContext ctx, AvroDeserializer.Builder<Order> orders) {
        OrderHeaderRow header = new OrderHeaderRow(); // reused rows: one per branch and lane
        OrderHeaderRow cancelled = new OrderHeaderRow();
        return Chains.from(ctx, orders.build())
                .fanOut(
                        "by-status", // every order goes to both branches
                        (live) -> live.filter("not-cancelled", (o) -> o.getStatus() != OrderStatus.CANCELLED)
                                .fanOut(
                                        "header-and-lines", // one order: a header row and its line rows
                                        (headers) -> headers.map("order-header", header::set)
                                                .sink("headers", KeyHashRouter.byKey(OrderHeaderRow::orderId)),
                                        (lines) -> lines.flatMap("order-lines", new OrdersChain.LinesToRows())
                                                .sink("orders", KeyHashRouter.byKey(OrderLineRow::orderId))),
                        (gone) -> gone.filter("cancelled-only", (o) -> o.getStatus() == OrderStatus.CANCELLED)
                                .map("cancelled-order", cancelled::set)
                                .sink("cancelled", KeyHashRouter.byKey(OrderHeaderRow::orderId)));
    }
    // end::chain[]
}
