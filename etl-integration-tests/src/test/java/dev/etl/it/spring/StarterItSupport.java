package dev.etl.it.spring;

import dev.etl.avro.AvroWireFormat;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.it.support.OrderedProducer;
import dev.etl.test.infra.ClickHouseHttp;
import dev.etl.test.infra.ClickHouseTestDatabase;
import dev.etl.test.infra.InfraEndpoints;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.generic.GenericData;

/**
 * Shared pieces of the starter ITs. Order {@code i} has id {@code i} and goes to partition
 * {@code i % partitions}, produced in order with one request in flight, so offset {@code o} of
 * partition {@code p} holds id {@code o * partitions + p}: the rows in ClickHouse say exactly which
 * offsets arrived.
 */
final class StarterItSupport {

    /**
     * HTTP/1.1, not the JDK client's default HTTP/2: on a plain http:// URI that default sends an
     * {@code Upgrade: h2c} request on every new connection, which the application's server (no h2c) does
     * not take up. Connections are kept alive, as Prometheus keeps its scrape connections: requests of this
     * client hung for their full 10 s three times in CI, which was the server's doing (reactor-netty 1.3.6
     * left about one health request in 40 on a kept-alive connection unanswered; fixed in 1.3.8, Spring Boot
     * 4.0.9), and {@link StarterEndToEndIT} now sends 400 such requests.
     */
    private static final HttpClient HTTP = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    private StarterItSupport() {}

    /** Creates the replicated {@code orders} table on every shard. */
    static void createOrdersTable(ClickHouseTestDatabase db) {
        db.execute("CREATE TABLE " + db.table("orders") + " ON CLUSTER " + db.cluster() + " ("
                + StarterApplication.COLUMNS + ") ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/"
                + db.name() + "/orders', '{replica}') ORDER BY id");
    }

    /** Registers the order schema under {@code <topic>-value}; answers its id. */
    static int registerSchema(InfraEndpoints infra, String topic) throws Exception {
        return SchemaRegistryClient.builder(infra.registryUrl())
                .build()
                .register(topic + "-value", StarterApplication.ORDER);
    }

    /** A producer of Confluent-framed Avro orders, in order (an {@link OrderedProducer}). */
    static final class OrderProducer implements AutoCloseable {

        private final OrderedProducer producer;

        private final int partitions;

        private final int schemaId;

        OrderProducer(String bootstrap, String topic, int partitions, int schemaId) {
            this.producer = new OrderedProducer(bootstrap, topic, partitions);
            this.partitions = partitions;
            this.schemaId = schemaId;
        }

        /** Sends orders {@code from..to-1} (asynchronously; {@link #flush} waits and fails on any error). */
        void send(long from, long to) {
            GenericData.Record order = new GenericData.Record(StarterApplication.ORDER);
            for (long i = from; i < to; i++) {
                order.put("id", i);
                order.put("customer", "customer-" + (i % 1000));
                order.put("amount_cents", i * 7 % 100_000);
                byte[] value = AvroWireFormat.confluent(this.schemaId, StarterApplication.ORDER, order);
                this.producer.send((int) (i % this.partitions), null, value);
            }
        }

        void flush() {
            this.producer.flush();
        }

        @Override
        public void close() {
            this.producer.close();
        }
    }

    /** Per partition: rows, distinct ids and the largest id over both shards (after syncing replicas). */
    record PartitionRows(long rows, long distinct, long maxId) {}

    /**
     * Rows of {@code orders} by Kafka partition ({@code id % partitions}), summed over the shards, each
     * counted on its first replica after {@code SYSTEM SYNC REPLICA} (inserts may have gone to either).
     */
    static Map<Integer, PartitionRows> rowsByPartition(
            InfraEndpoints infra, ClickHouseTestDatabase db, int partitions) {
        Map<Integer, PartitionRows> out = new HashMap<>();
        for (InfraEndpoints.ClickHouseShard shard : infra.clickhouseShards()) {
            String url = shard.replicaUrl(1);
            ClickHouseHttp.query(url, "SYSTEM SYNC REPLICA " + db.table("orders"));
            String answer = ClickHouseHttp.query(
                    url,
                    "SELECT id % " + partitions + " AS p, count(), uniqExact(id), " + "max(id) FROM "
                            + db.table("orders") + " GROUP BY p FORMAT TabSeparated");
            for (String line : answer.strip().split("\n")) {
                if (line.isEmpty()) {
                    continue;
                }
                String[] f = line.split("\t");
                PartitionRows rows =
                        new PartitionRows(Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]));
                out.merge(
                        Integer.parseInt(f[0]),
                        rows,
                        (a, b) -> new PartitionRows(
                                a.rows() + b.rows(), a.distinct() + b.distinct(), Math.max(a.maxId(), b.maxId())));
            }
        }
        return out;
    }

    /** Rows of {@code orders} on one shard (first replica, after syncing it). */
    static long shardRows(InfraEndpoints.ClickHouseShard shard, ClickHouseTestDatabase db) {
        String url = shard.replicaUrl(1);
        ClickHouseHttp.query(url, "SYSTEM SYNC REPLICA " + db.table("orders"));
        return Long.parseLong(
                ClickHouseHttp.query(url, "SELECT count() FROM " + db.table("orders") + " FORMAT TabSeparated")
                        .strip());
    }

    static long sum(Map<?, Long> values) {
        return values.values().stream().mapToLong(Long::longValue).sum();
    }

    static HttpResponse<String> get(int port, String path) throws Exception {
        return get(port, path, Duration.ofSeconds(10));
    }

    static HttpResponse<String> get(int port, String path, Duration timeout) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(timeout)
                .build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }

    static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }
}
