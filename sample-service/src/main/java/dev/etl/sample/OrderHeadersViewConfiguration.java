package dev.etl.sample;

import dev.etl.avro.clickhouse.AvroRowMapping;
import dev.etl.avro.clickhouse.AvroRowTranscoder;
import dev.etl.avro.clickhouse.AvroView;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.sample.avro.Order;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;

/**
 * The {@code headers-view} profile: the rows of {@link OrderHeadersTranscodingConfiguration}, with the filter
 * and the three totals in Java, over the record view ({@link AvroView}): the chain reads the status and the
 * lines through field handles, in place over the payload bytes, sets the mapping's computed columns, and the
 * transcoder's view encoder writes the row from the same scan. Nothing is decoded into objects.
 */
// tag::view[]
@Configuration(proxyBeanMethods = false)
@Profile("headers-view")
public class OrderHeadersViewConfiguration {

    /** The columns of {@code order_headers.sql}: fields, and the three totals set by the chain. */
    @Bean
    AvroRowMapping orderHeaderViewMapping() {
        return AvroRowMapping.builder(Order.getClassSchema())
                .column("order_id", "UInt64", "id")
                .column("customer", "String")
                .column("status", "Enum8('NEW' = 0, 'PAID' = 1, 'SHIPPED' = 2, 'CANCELLED' = 3)")
                .computed("line_count", "UInt16")
                .computed("quantity", "UInt32")
                .computed("total", "Decimal(18, 2)") // cents
                .column("coupon", "Nullable(String)")
                .column("updated_ms", "Int64")
                .shardKey("id")
                .build();
    }

    /** Handles made once and shared by the lanes; a transcoder (and so a view) per lane. */
    @Bean
    ChainFactory viewOrderHeaders(AvroRowTranscoder.Builder headers) {
        AvroView.Fields fields = AvroView.fields(headers.mapping());
        AvroView.EnumField status = fields.enumField("status");
        int cancelled = status.ordinalOf("CANCELLED");
        AvroView.ArrayField lines = fields.array("lines");
        AvroView.IntField quantity = lines.intField("quantity");
        AvroView.LongField priceCents = lines.longField("price_cents");
        AvroView.Slot lineCount = fields.slot("line_count");
        AvroView.Slot totalQuantity = fields.slot("quantity");
        AvroView.Slot totalCents = fields.slot("total");
        return ctx -> {
            AvroRowTranscoder transcoder = headers.build();
            return Chains.from(ctx, transcoder.views())
                    .filter("not-cancelled", order -> order.ordinal(status) != cancelled)
                    .map("order-totals", order -> {
                        int n = order.size(lines);
                        long items = 0;
                        long cents = 0;
                        for (int i = 0; i < n; i++) {
                            int q = order.get(quantity, i);
                            items += q;
                            cents += q * order.get(priceCents, i);
                        }
                        return order.set(lineCount, n).set(totalQuantity, items).set(totalCents, cents);
                    })
                    .sink(transcoder.viewEncoder(), transcoder.viewRouter());
        };
    }
}
// end::view[]
