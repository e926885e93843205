package dev.etl.avro.guide;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.avro.AvroDeserializer;
import dev.etl.avro.AvroWireFormat;
import dev.etl.avro.Fixtures;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.avro.WriterSchemas;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.sink.KeyHashRouter;
import dev.etl.sink.RowEncoder;
import java.nio.file.Path;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

/** The code of {@code docs/connectors/avro.md} (its snippets are these regions). */
class AvroGuideTest {

    /** The row the chain writes. */
    record OrderRow(long id, String customer) {
        static OrderRow of(Order order) {
            return new OrderRow(order.getId(), order.getCustomer().toString());
        }
    }

    static final RowEncoder<OrderRow> ORDER_ROWS = (row, meta, out) -> {
        out.writeLongLE(row.id());
        out.writeString(row.customer());
    };

    // tag::setup[]
    // One registry client per process (thread-safe, caches schemas by id forever).
    static SchemaRegistryClient registry(char[] trustStorePassword) {
        SchemaRegistryClient registry = SchemaRegistryClient.builder("https://registry:8081")
                .userInfo(System.getenv("REGISTRY_USER_INFO")) // user:password
                .trustStore(Path.of("/etc/etl/registry-trust.p12"), trustStorePassword, "PKCS12")
                .build();
        registry.checkApi(); // fail fast on a wrong URL (the starter does this)
        registry.warm("orders-value"); // optional: preload every version
        return registry;
    }

    // The builder can be shared; build() once per lane (in your ChainFactory): an instance used by a
    // second lane thread fails the pipeline at that thread's first record.
    static ChainFactory ordersChain(SchemaRegistryClient registry) {
        AvroDeserializer.Builder<Order> orders =
                AvroDeserializer.specific(Order.class).confluent(registry);
        return ctx -> Chains.from(ctx, orders.build())
                .filter("paid", o -> o.getPaid())
                .map("to-row", OrderRow::of)
                .sink(ORDER_ROWS, KeyHashRouter.byKey(OrderRow::id));
    }
    // end::setup[]

    @Test
    void theChainFactoryBuildsWithoutCallingTheRegistry() {
        SchemaRegistryClient registry =
                SchemaRegistryClient.builder("http://localhost:1").build();

        assertThat(ordersChain(registry)).isNotNull();
    }

    @Test
    void aSingleObjectRowIsReadByTheTopicsDeserializer() throws Exception {
        Order record = Order.newBuilder()
                .setId(7)
                .setCustomer("c-7")
                .setAmountCents(1250)
                .setPaid(true)
                .build();
        Schema writerSchema = Order.getClassSchema();
        // A registry that does not answer: a single-object row needs no registry call.
        SchemaRegistryClient registry =
                SchemaRegistryClient.builder("http://localhost:1").build();

        // tag::single-object[]
        WriterSchemas.shared().register(writerSchema); // idempotent, thread-safe; returns the fingerprint
        byte[] row = AvroWireFormat.singleObject(writerSchema, record);
        AvroDeserializer<Order> d =
                AvroDeserializer.specific(Order.class).confluent(registry).build();
        // d reads `row` and the topic's Confluent payloads alike
        // end::single-object[]

        assertThat(Fixtures.decode(d, row)).singleElement().satisfies(o -> {
            assertThat(o.getId()).isEqualTo(7);
            assertThat(o.getCustomer()).hasToString("c-7");
        });
    }
}
