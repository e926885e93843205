package com.example.orders;

import dev.etl.deser.Deserializer;
import dev.etl.error.ErrorPolicy;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.sink.KeyHashRouter;
import dev.etl.sink.RowEncoder;
import java.nio.charset.StandardCharsets;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The topology: "id,amount" lines, drop zero amounts, write "id:amount" rows sharded by id. */
// tag::chains[]
@Configuration(proxyBeanMethods = false)
public class OrdersChains {

    record Order(long id, long amount) {}

    static final RowEncoder<Order> ROW = (order, meta, out) -> out.writeString(order.id() + ":" + order.amount());

    @Bean
    ChainFactory orders() {
        Deserializer<String> lines = (key, value, meta, out) ->
                out.collect(new String(value.array(), value.offset(), value.length(), StandardCharsets.UTF_8));
        return (ctx) -> Chains.from(ctx, lines)
                .tryMap("parse", OrdersChains::parse, ErrorPolicy.FAIL)
                .filter("non-zero", (order) -> order.amount() != 0)
                .sink(ROW, KeyHashRouter.byKey(Order::id));
    }

    static Order parse(String line) {
        String[] parts = line.split(",");
        return new Order(Long.parseLong(parts[0]), Long.parseLong(parts[1]));
    }
}
// end::chains[]
