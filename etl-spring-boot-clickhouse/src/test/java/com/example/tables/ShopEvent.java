package com.example.tables;

import dev.etl.deser.Deserializer;
import dev.etl.record.Collector;
import dev.etl.record.Payload;
import dev.etl.record.RecordMeta;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One record of the shop's topic: an order with its lines, or a refund of an order. On the wire (for
 * the test) {@code order,<id>,<customer>,<amountCents>,<sku>:<qty>;...} or
 * {@code refund,<id>,<orderId>,<amountCents>}.
 *
 * @param kind what the record is
 * @param id the order's or the refund's id
 * @param orderId the refunded order (refunds), or the id (orders)
 * @param customerId the customer (orders)
 * @param amountCents the amount
 * @param lines the order's lines (orders)
 */
public record ShopEvent(Kind kind, long id, long orderId, long customerId, long amountCents, List<Line> lines) {

    /** What a record is. */
    public enum Kind {
        ORDER,
        REFUND
    }

    /**
     * One order line.
     * @param sku the article
     * @param quantity how many
     */
    public record Line(String sku, int quantity) {}

    /** The test's wire format. */
    static final class Parser implements Deserializer<ShopEvent> {

        @Override
        public void deserialize(Payload key, Payload value, RecordMeta meta, Collector<? super ShopEvent> out) {
            String[] f = new String(value.array(), value.offset(), value.length(), StandardCharsets.UTF_8).split(",");
            if (f[0].equals("refund")) {
                out.collect(new ShopEvent(
                        Kind.REFUND, Long.parseLong(f[1]), Long.parseLong(f[2]), 0, Long.parseLong(f[3]), List.of()));
                return;
            }
            List<Line> lines = new ArrayList<>();
            for (String line : f[4].split(";")) {
                String[] l = line.split(":");
                lines.add(new Line(l[0], Integer.parseInt(l[1])));
            }
            long id = Long.parseLong(f[1]);
            out.collect(new ShopEvent(Kind.ORDER, id, id, Long.parseLong(f[2]), Long.parseLong(f[3]), lines));
        }
    }
}
