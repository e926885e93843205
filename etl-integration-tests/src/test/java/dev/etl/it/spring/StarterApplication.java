package dev.etl.it.spring;

import dev.etl.avro.AvroDeserializer;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.sink.KeyHashRouter;
import dev.etl.test.infra.InfraEndpoints;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * A Boot application written the way a user writes one with only the starter: Avro orders from Kafka
 * (Confluent wire format, writer schemas from the registry) → a row → the ClickHouse sink, with the
 * topology in two beans and every setting in {@code etl.*} / {@code spring.kafka.*}.
 *
 * <p>{@link StarterEndToEndIT} runs it in the test JVM, {@link StarterSigtermIT} in a child JVM through
 * {@link #main}; both configure it with {@link #properties}.
 */
@SpringBootApplication
public class StarterApplication {

    /** The order record the producers write and the chain reads. */
    static final Schema ORDER = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "namespace": "dev.etl.it.spring", "fields": [
              {"name": "id", "type": "long"},
              {"name": "customer", "type": "string"},
              {"name": "amount_cents", "type": "long"}]}""");

    /** Columns of the ClickHouse table, in the encoder's order. */
    static final String COLUMNS = "id UInt64, customer String, amount_cents Int64";

    /** One row of the table. */
    record OrderRow(long id, String customer, long amountCents) {

        static OrderRow of(GenericRecord order) {
            return new OrderRow(
                    (Long) order.get("id"), order.get("customer").toString(), (Long) order.get("amount_cents"));
        }
    }

    public static void main(String[] args) {
        SpringApplication.run(StarterApplication.class, args);
    }

    @Bean
    RowBinaryEncoder<OrderRow> orderRows() {
        return RowBinaryEncoder.<OrderRow>builder()
                .uint64("id", OrderRow::id)
                .string("customer", OrderRow::customer)
                .int64("amount_cents", OrderRow::amountCents)
                .build();
    }

    @Bean
    ChainFactory orders(SchemaRegistryClient registry, RowBinaryEncoder<OrderRow> orderRows) {
        return (ctx) -> Chains.from(
                        ctx, AvroDeserializer.generic(ORDER).confluent(registry).build())
                .map("to-row", OrderRow::of)
                .sink(orderRows, KeyHashRouter.byKey(OrderRow::id));
    }

    /**
     * The application's configuration against the local servers, as {@code key=value} pairs (prefix
     * {@code --} for command-line arguments).
     * @param infra where the servers listen
     * @param topic the topic to read
     * @param group the consumer group
     * @param database the database of the {@code orders} table
     * @return the properties
     */
    static List<String> properties(InfraEndpoints infra, String topic, String group, String database) {
        List<String> properties = new ArrayList<>(List.of(
                "spring.application.name=starter-it",
                "server.port=0",
                "management.endpoints.web.exposure.include=health,prometheus",
                "spring.kafka.bootstrap-servers=" + infra.kafkaBootstrap(),
                "spring.kafka.consumer.group-id=" + group,
                "spring.kafka.consumer.auto-offset-reset=earliest",
                "spring.kafka.consumer.max-poll-records=5000",
                "etl.pipeline.threads=2",
                "etl.pipeline.io-threads=2",
                "etl.pipeline.poll-timeout=50ms",
                "etl.checkpoint.interval=200ms",
                "etl.checkpoint.drain-timeout=10s",
                "spring.lifecycle.timeout-per-shutdown-phase=20s",
                "etl.source.kafka.topics=" + topic,
                "etl.avro.registry.url=" + infra.registryUrl(),
                "etl.sink.clickhouse.database=" + database,
                "etl.sink.clickhouse.table=orders",
                "etl.sink.clickhouse.batch.max-rows=20000",
                "etl.sink.clickhouse.batch.linger=200ms"));
        for (int s = 0; s < infra.clickhouseShards().size(); s++) {
            properties.add("etl.sink.clickhouse.shards[" + s + "].replicas="
                    + String.join(",", infra.clickhouseShards().get(s).replicaUrls()));
        }
        return properties;
    }
}
