package dev.etl.sample;

import dev.etl.avro.AvroDeserializer;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.ops.ChainFactory;
import dev.etl.sample.avro.Order;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;

/**
 * The {@code tables} profile ({@code --spring.profiles.active=tables}, settings in
 * {@code application-tables.yaml}): several ClickHouse tables from configuration. The orders are
 * split into {@code order_headers} (one row per order) and the {@code orders} line rows, and cancelled
 * orders go to {@code cancelled_orders}; {@link OrderTablesChain} is the topology. It replaces the
 * default profile's chain factory ({@link OrdersPipelineConfiguration#orders} is
 * {@code @Profile("!tables")}) and reuses the rest of that class: the Avro deserializer builder and the
 * line rows' encoder, which stays the encoder of the {@code etl.sink.clickhouse.table} sink because no
 * named table claims it.
 */
@Configuration(proxyBeanMethods = false)
@Profile("tables")
public class OrderTablesConfiguration {

    /** The encoder of etl.sink.clickhouse.tables.headers (table order_headers). */
    @Bean
    @Qualifier("headers")
    RowBinaryEncoder<OrderHeaderRow> orderHeaderRows() {
        return OrderHeaderRow.HEADER_ENCODER;
    }

    /** The encoder of etl.sink.clickhouse.tables.cancelled (table cancelled_orders). */
    @Bean
    @Qualifier("cancelled")
    RowBinaryEncoder<OrderHeaderRow> cancelledOrderRows() {
        return OrderHeaderRow.CANCELLED_ENCODER;
    }

    /** The topology of this profile: called once per lane, on the lane's thread. */
    @Bean
    ChainFactory orderTables(AvroDeserializer.Builder<Order> orders) {
        return ctx -> OrderTablesChain.build(ctx, orders);
    }
}
