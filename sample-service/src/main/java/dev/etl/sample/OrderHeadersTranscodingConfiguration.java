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
 * The {@code headers-transcode} profile: the {@code order_headers} table (one row per order that is not
 * cancelled, with its line count, total quantity and total value) written by the transcoder, straight
 * from the Avro bytes. The three totals are computed columns ({@code length}, {@code sum}), so no Java
 * runs per record. One of the four paths {@code scripts/bench.sh} compares like for like
 * ({@code BENCH_PATHS=1}); the others write the same rows from objects ({@link OrderHeadersObjectsConfiguration})
 * and from generic records ({@link OrderHeadersGenericConfiguration}). The {@code headers} profile group
 * ({@code application-headers.yaml}) points the table sink at {@code order_headers}.
 */
@Configuration(proxyBeanMethods = false)
@Profile("headers-transcode")
public class OrderHeadersTranscodingConfiguration {

    /** The columns of {@code order_headers.sql}, in table order; cancelled orders dropped while reading. */
    @Bean
    AvroRowMapping orderHeaderMapping() {
        return AvroRowMapping.builder(Order.getClassSchema())
                .column("order_id", "UInt64", "id")
                .column("customer", "String")
                .column("status", "Enum8('NEW' = 0, 'PAID' = 1, 'SHIPPED' = 2, 'CANCELLED' = 3)")
                .column("line_count", "UInt16", "length(lines)")
                .column("quantity", "UInt32", "sum(lines.quantity)")
                .column("total", "Decimal(18, 2)", "sum(lines.quantity * lines.price_cents)") // cents
                .column("coupon", "Nullable(String)")
                .column("updated_ms", "Int64")
                .dropWhen("status", "CANCELLED")
                .shardKey("id")
                .build();
    }

    /** Raw payloads into the transcoder, one per lane. */
    @Bean
    ChainFactory transcodedOrderHeaders(AvroRowTranscoder.Builder headers) {
        return ctx -> {
            AvroRowTranscoder transcoder = headers.build();
            return Chains.from(ctx, Deserializer.payload())
                    .filter("not-tombstone", Payload::isPresent)
                    .sink(transcoder, transcoder.shardKeyRouter());
        };
    }
}
