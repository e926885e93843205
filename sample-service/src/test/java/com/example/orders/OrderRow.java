package com.example.orders;

import dev.etl.sample.avro.Order;
import dev.etl.sample.avro.OrderLine;

/** A row of the guide's orders table: one per order, its amount the sum of its lines. */
record OrderRow(long id, String customer, long amountCents) {
    static OrderRow of(Order order) {
        long amountCents = 0;
        for (OrderLine line : order.getLines()) {
            amountCents += line.getQuantity() * line.getPriceCents();
        }
        return new OrderRow(order.getId(), order.getCustomer().toString(), amountCents);
    }
}
