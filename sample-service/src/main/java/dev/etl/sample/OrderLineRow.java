package dev.etl.sample;

import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.sample.avro.Order;
import dev.etl.sample.avro.OrderLine;
import java.util.Map;

/**
 * One row of the {@code orders} table: an order line with its order's fields. Mutable and reused:
 * the chain's flatMap fills one instance per line and pushes it, and the encoder writes it before
 * the next line overwrites it, so the hot path allocates no rows.
 */
public final class OrderLineRow {
    /** Column order is the wire contract with {@code orders.sql}; startup validation checks it. */
    // tag::encoder[]
    public static final RowBinaryEncoder<OrderLineRow> ENCODER = RowBinaryEncoder.<OrderLineRow>builder()
            .uint64("order_id", r -> r.orderId)
            .uint16("line_no", r -> r.lineNo)
            .string("customer", r -> r.customer)
            .enum8("status", Map.of("NEW", 0, "PAID", 1, "SHIPPED", 2, "CANCELLED", 3), r -> r.status)
            .string("sku", r -> r.sku)
            .uint32("quantity", r -> r.quantity)
            .decimal64("price", 2, r -> r.priceCents)
            .nullableString("coupon", r -> r.coupon)
            .int64("updated_ms", r -> r.updatedMs)
            .build();
    // end::encoder[]

    long orderId;
    int lineNo;
    CharSequence customer;
    int status;
    CharSequence sku;
    long quantity;
    long priceCents;
    CharSequence coupon;
    long updatedMs;

    /** Fills this row from line {@code lineNo} of {@code order}. */
    OrderLineRow set(Order order, int lineNo, OrderLine line) {
        this.orderId = order.getId();
        this.lineNo = lineNo;
        this.customer = order.getCustomer();
        this.status = order.getStatus().ordinal();
        this.sku = line.getSku();
        this.quantity = line.getQuantity();
        this.priceCents = line.getPriceCents();
        this.coupon = order.getCoupon();
        this.updatedMs = order.getUpdatedMs();
        return this;
    }

    public long orderId() {
        return orderId;
    }

    public int lineNo() {
        return lineNo;
    }
}
