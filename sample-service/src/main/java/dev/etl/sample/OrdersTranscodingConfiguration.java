package dev.etl.sample;

import dev.etl.avro.clickhouse.AvroRowMapping;
import dev.etl.avro.clickhouse.AvroRowTranscoder;
import dev.etl.deser.Deserializer;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.record.Payload;
import dev.etl.sample.avro.Order;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;

/**
 * The {@code transcode} profile ({@code --spring.profiles.active=transcode}): the default profile's
 * pipeline, orders to the {@code orders} table, without objects. The Avro bytes are written straight
 * into RowBinary rows by the transcoder: one row per order line, cancelled orders dropped while
 * reading, rows sharded by order id exactly as {@link OrdersChain} shards them. It replaces the
 * default profile's chain factory and line-row encoder ({@link OrdersPipelineConfiguration}).
 */
// tag::transcode[]
@Configuration(proxyBeanMethods = false)
@Profile("transcode")
public class OrdersTranscodingConfiguration {

    /**
     * The columns of the orders table in table order, each from a field of the v2 Order schema; the
     * ClickHouse sink validates them against system.columns at startup. Writer schemas (v1, v2) are
     * resolved against it as Avro resolves them: v1 lacks coupon, so its rows get the default (NULL).
     */
    @Bean
    AvroRowMapping orderLines() {
        return AvroRowMapping.builder(Order.getClassSchema())
                .explode("lines") // one row per element of the lines array
                .column("order_id", "UInt64", "id")
                .index("line_no", "UInt16") // the line's position in the array, from 0
                .column("customer", "String")
                .column("status", "Enum8('NEW' = 0, 'PAID' = 1, 'SHIPPED' = 2, 'CANCELLED' = 3)")
                .column("sku", "String", "lines.sku")
                .column("quantity", "UInt32", "lines.quantity")
                .column("price", "Decimal(18, 2)", "lines.price_cents") // cents: the unscaled value
                .column("coupon", "Nullable(String)")
                .column("updated_ms", "Int64")
                .dropWhen("status", "CANCELLED") // read in place, never decoded
                .shardKey("id") // all lines of an order on one shard
                .build();
    }

    /**
     * The topology: raw payloads into the transcoder. The builder (auto-configured from the mapping
     * and the registry) is shared; each lane builds its own transcoder.
     */
    @Bean
    ChainFactory orders(AvroRowTranscoder.Builder lines) {
        return ctx -> {
            AvroRowTranscoder transcoder = lines.build(); // one per lane
            return Chains.from(ctx, Deserializer.payload())
                    .filter("not-tombstone", Payload::isPresent)
                    .sink(transcoder, transcoder.shardKeyRouter());
        };
    }
}
// end::transcode[]
