package dev.etl.sample;

import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.sample.avro.Order;
import dev.etl.sample.avro.OrderLine;
import java.util.List;
import java.util.Map;

/**
 * One row per order, with its lines summed: a row of {@code order_headers} (an order that is not
 * cancelled) or of {@code cancelled_orders}, the two tables of the {@code tables} profile
 * ({@link OrderTablesConfiguration}). Mutable and reused like {@link OrderLineRow}: a chain's map
 * fills one instance per order and the sink's encoder writes it before the next order overwrites it.
 */
public final class OrderHeaderRow {
    /** The columns of {@code order_headers.sql}, in order; startup validation checks them. */
    public static final RowBinaryEncoder<OrderHeaderRow> HEADER_ENCODER = RowBinaryEncoder.<OrderHeaderRow>builder()
            .uint64("order_id", r -> r.orderId)
            .string("customer", r -> r.customer)
            .enum8("status", Map.of("NEW", 0, "PAID", 1, "SHIPPED", 2, "CANCELLED", 3), r -> r.status)
            .uint16("line_count", r -> r.lineCount)
            .uint32("quantity", r -> r.quantity)
            .decimal64("total", 2, r -> r.totalCents)
            .nullableString("coupon", r -> r.coupon)
            .int64("updated_ms", r -> r.updatedMs)
            .build();

    /** The columns of {@code cancelled_orders.sql}: a header without its status (always CANCELLED). */
    public static final RowBinaryEncoder<OrderHeaderRow> CANCELLED_ENCODER = RowBinaryEncoder.<OrderHeaderRow>builder()
            .uint64("order_id", r -> r.orderId)
            .string("customer", r -> r.customer)
            .uint16("line_count", r -> r.lineCount)
            .uint32("quantity", r -> r.quantity)
            .decimal64("total", 2, r -> r.totalCents)
            .nullableString("coupon", r -> r.coupon)
            .int64("updated_ms", r -> r.updatedMs)
            .build();

    long orderId;
    CharSequence customer;
    int status;
    int lineCount;
    long quantity;
    long totalCents;
    CharSequence coupon;
    long updatedMs;

    /** Fills this row from {@code order}: its fields, the number of its lines, their quantities and value. */
    OrderHeaderRow set(Order order) {
        List<OrderLine> lines = order.getLines();
        long items = 0;
        long total = 0;
        for (int i = 0; i < lines.size(); i++) {
            OrderLine line = lines.get(i);
            items += line.getQuantity();
            total += line.getQuantity() * line.getPriceCents();
        }
        this.orderId = order.getId();
        this.customer = order.getCustomer();
        this.status = order.getStatus().ordinal();
        this.lineCount = lines.size();
        this.quantity = items;
        this.totalCents = total;
        this.coupon = order.getCoupon();
        this.updatedMs = order.getUpdatedMs();
        return this;
    }

    public long orderId() {
        return orderId;
    }
}
