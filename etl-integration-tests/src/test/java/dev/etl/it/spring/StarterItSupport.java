package dev.etl.it.spring;

import static org.assertj.core.api.Assertions.fail;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.avro.generic.GenericData;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import dev.etl.avro.AvroWireFormat;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.test.infra.ClickHouseHttp;
import dev.etl.test.infra.ClickHouseTestDatabase;
import dev.etl.test.infra.InfraEndpoints;

/**
 * Shared pieces of the starter ITs. Order {@code i} has id {@code i} and goes to partition
 * {@code i % partitions}, produced in order with one request in flight, so offset {@code o} of
 * partition {@code p} holds id {@code o * partitions + p}: the rows in ClickHouse say exactly which
 * offsets arrived.
 */
final class StarterItSupport {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private StarterItSupport() {
    }

    /** Creates the replicated {@code orders} table on every shard. */
    static void createOrdersTable(ClickHouseTestDatabase db) {
        db.execute("CREATE TABLE " + db.table("orders") + " ON CLUSTER " + db.cluster() + " ("
                + StarterApplication.COLUMNS + ") ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/"
                + db.name() + "/orders', '{replica}') ORDER BY id");
    }

    /** Registers the order schema under {@code <topic>-value}; answers its id. */
    static int registerSchema(InfraEndpoints infra, String topic) throws Exception {
        return SchemaRegistryClient.builder(infra.registryUrl()).build()
            .register(topic + "-value", StarterApplication.ORDER);
    }

    /** A producer of Confluent-framed Avro orders, in order (one request in flight). */
    static final class OrderProducer implements AutoCloseable {

        private final KafkaProducer<byte[], byte[]> producer;

        private final String topic;

        private final int partitions;

        private final int schemaId;

        private final AtomicReference<Exception> failure = new AtomicReference<>();

        OrderProducer(String bootstrap, String topic, int partitions, int schemaId) {
            Map<String, Object> props = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                    ProducerConfig.LINGER_MS_CONFIG, 10, ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024,
                    ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4", ProducerConfig.ACKS_CONFIG, "all",
                    // not idempotent, one request in flight: see KafkaItSupport.produce
                    ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false,
                    ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1,
                    ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
                    30_000);
            this.producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
            this.topic = topic;
            this.partitions = partitions;
            this.schemaId = schemaId;
            awaitLeaders();
        }

        /** Sends orders {@code from..to-1} (asynchronously; {@link #flush} waits and fails on any error). */
        void send(long from, long to) {
            GenericData.Record order = new GenericData.Record(StarterApplication.ORDER);
            for (long i = from; i < to && this.failure.get() == null; i++) {
                order.put("id", i);
                order.put("customer", "customer-" + (i % 1000));
                order.put("amount_cents", i * 7 % 100_000);
                byte[] value = AvroWireFormat.confluent(this.schemaId, StarterApplication.ORDER, order);
                this.producer.send(new ProducerRecord<>(this.topic, (int) (i % this.partitions), null, value),
                        (metadata, ex) -> {
                            if (ex != null) {
                                this.failure.compareAndSet(null, ex);
                            }
                        });
            }
        }

        void flush() {
            this.producer.flush();
            if (this.failure.get() != null) {
                throw new IllegalStateException("producing to " + this.topic + " failed: " + this.failure.get(),
                        this.failure.get());
            }
        }

        private void awaitLeaders() {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (true) {
                List<PartitionInfo> infos = this.producer.partitionsFor(this.topic);
                if (infos.size() == this.partitions
                        && infos.stream().allMatch((i) -> i.leader() != null && !i.leader().isEmpty())) {
                    return;
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("topic " + this.topic + " has no leader for every partition");
                }
                sleep(50);
            }
        }

        @Override
        public void close() {
            this.producer.close(Duration.ofSeconds(10));
        }

    }

    /** Per partition: rows, distinct ids and the largest id over both shards (after syncing replicas). */
    record PartitionRows(long rows, long distinct, long maxId) {
    }

    /**
     * Rows of {@code orders} by Kafka partition ({@code id % partitions}), summed over the shards, each
     * counted on its first replica after {@code SYSTEM SYNC REPLICA} (inserts may have gone to either).
     */
    static Map<Integer, PartitionRows> rowsByPartition(InfraEndpoints infra, ClickHouseTestDatabase db,
            int partitions) {
        Map<Integer, PartitionRows> out = new HashMap<>();
        for (InfraEndpoints.ClickHouseShard shard : infra.clickhouseShards()) {
            String url = shard.replicaUrl(1);
            ClickHouseHttp.query(url, "SYSTEM SYNC REPLICA " + db.table("orders"));
            String answer = ClickHouseHttp.query(url, "SELECT id % " + partitions + " AS p, count(), uniqExact(id), "
                    + "max(id) FROM " + db.table("orders") + " GROUP BY p FORMAT TabSeparated");
            for (String line : answer.strip().split("\n")) {
                if (line.isEmpty()) {
                    continue;
                }
                String[] f = line.split("\t");
                PartitionRows rows = new PartitionRows(Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]));
                out.merge(Integer.parseInt(f[0]), rows, (a, b) -> new PartitionRows(a.rows() + b.rows(),
                        a.distinct() + b.distinct(), Math.max(a.maxId(), b.maxId())));
            }
        }
        return out;
    }

    /** Rows of {@code orders} on one shard (first replica, after syncing it). */
    static long shardRows(InfraEndpoints.ClickHouseShard shard, ClickHouseTestDatabase db) {
        String url = shard.replicaUrl(1);
        ClickHouseHttp.query(url, "SYSTEM SYNC REPLICA " + db.table("orders"));
        return Long.parseLong(ClickHouseHttp.query(url, "SELECT count() FROM " + db.table("orders")
                + " FORMAT TabSeparated").strip());
    }

    static Map<TopicPartition, Long> committed(Admin admin, String group) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets =
                admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
        Map<TopicPartition, Long> out = new HashMap<>();
        offsets.forEach((tp, om) -> {
            if (om != null) {
                out.put(tp, om.offset());
            }
        });
        return out;
    }

    static Map<TopicPartition, Long> endOffsets(Admin admin, String topic, int partitions) throws Exception {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            request.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        Map<TopicPartition, Long> out = new HashMap<>();
        admin.listOffsets(request).all().get(10, TimeUnit.SECONDS).forEach((tp, info) -> out.put(tp, info.offset()));
        return out;
    }

    static long sum(Map<?, Long> values) {
        return values.values().stream().mapToLong(Long::longValue).sum();
    }

    static HttpResponse<String> get(int port, String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10))
            .build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** Polls {@code condition} every 100 ms until true; fails with {@code what} on timeout. */
    static void await(Duration timeout, String what, ThrowingBooleanSupplier condition) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out after " + timeout + " waiting for " + what);
            }
            Thread.sleep(100);
        }
    }

    static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    @FunctionalInterface
    interface ThrowingBooleanSupplier {

        boolean getAsBoolean() throws Exception;

    }

}
