package dev.etl.sample;

import dev.etl.avro.AvroDeserializer;
import dev.etl.ops.Chain;
import dev.etl.ops.ChainContext;
import dev.etl.ops.Chains;
import dev.etl.ops.FlatMapper;
import dev.etl.record.Collector;
import dev.etl.sample.avro.Order;
import dev.etl.sample.avro.OrderLine;
import dev.etl.sample.avro.OrderStatus;
import dev.etl.sink.KeyHashRouter;
import java.util.List;

/**
 * The sample's topology: Avro orders → drop cancelled ones → one row per order line → the
 * {@code orders} table, sharded by order id (all lines of an order land on one shard, so
 * ReplacingMergeTree can collapse replays of them).
 */
public final class OrdersChain {
    private OrdersChain() {}

    // tag::chain[]
    /**
     * Builds one lane's chain; {@code orders} builds the lane's own deserializer. The rows are written
     * with the sink's encoder: the {@code RowBinaryEncoder} bean its startup validation checked.
     */
    public static Chain build(ChainContext ctx, AvroDeserializer.Builder<Order> orders) {
        return Chains.from(ctx, orders.build()) // one deserializer per lane
                .filter("not-cancelled", order -> order.getStatus() != OrderStatus.CANCELLED)
                .flatMap("order-lines", new LinesToRows()) // one row per order line
                .sink(KeyHashRouter.byKey(OrderLineRow::orderId)); // shard by order id
    }

    /** Fans an order out to its lines, reusing one row object (one instance per lane). */
    static final class LinesToRows implements FlatMapper<Order, OrderLineRow> {
        private final OrderLineRow row = new OrderLineRow();

        @Override
        public void apply(Order order, Collector<? super OrderLineRow> out) {
            List<OrderLine> lines = order.getLines();
            for (int i = 0; i < lines.size(); i++) {
                out.collect(row.set(order, i, lines.get(i)));
            }
        }
    }
    // end::chain[]
}
