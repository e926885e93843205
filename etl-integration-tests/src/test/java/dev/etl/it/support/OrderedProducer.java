package dev.etl.it.support;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A byte-array producer that keeps each partition's records in send order, for ITs that derive
 * offsets from what they sent. Not idempotent, one request in flight: a topic created a moment ago
 * can answer its first produce with NOT_LEADER, after which the idempotent producer was seen looping
 * on OUT_OF_ORDER_SEQUENCE_NUMBER; ordering is kept by the single in-flight request. Construction
 * waits (up to 30 s) until every partition of the topic has a leader.
 *
 * <p>Sends are asynchronous; the first failure is kept, fails the next {@link #send} and
 * {@link #flush}. Thread-safe.
 */
public final class OrderedProducer implements AutoCloseable {

    private static final long LEADER_TIMEOUT_SECONDS = 30;

    private final KafkaProducer<byte[], byte[]> producer;

    private final String topic;

    private final int partitions;

    private final AtomicReference<Exception> failure = new AtomicReference<>();

    /**
     * Connects and waits until every partition of {@code topic} has a leader.
     * @param bootstrap Kafka bootstrap servers
     * @param topic the topic, already created
     * @param partitions the topic's partition count
     * @throws IllegalStateException if some partition has no leader within 30 s
     */
    public OrderedProducer(String bootstrap, String topic, int partitions) {
        Map<String, Object> props = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ProducerConfig.LINGER_MS_CONFIG,
                10,
                ProducerConfig.BATCH_SIZE_CONFIG,
                256 * 1024,
                ProducerConfig.COMPRESSION_TYPE_CONFIG,
                "lz4",
                ProducerConfig.ACKS_CONFIG,
                "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                false,
                ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION,
                1,
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG,
                15_000,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
                30_000);
        this.producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
        this.topic = topic;
        this.partitions = partitions;
        try {
            awaitLeaders();
        } catch (RuntimeException ex) {
            this.producer.close(Duration.ZERO);
            throw ex;
        }
    }

    /**
     * Sends one record, asynchronously.
     * @param partition the partition
     * @param key the key, or null
     * @param value the value
     * @throws IllegalStateException if an earlier send failed
     */
    public void send(int partition, byte[] key, byte[] value) {
        throwIfFailed();
        this.producer.send(new ProducerRecord<>(this.topic, partition, key, value), (metadata, ex) -> {
            if (ex != null) {
                this.failure.compareAndSet(null, ex);
            }
        });
    }

    /**
     * Waits until every record sent is acknowledged.
     * @throws IllegalStateException if any send failed
     */
    public void flush() {
        this.producer.flush();
        throwIfFailed();
    }

    @Override
    public void close() {
        this.producer.close(Duration.ofSeconds(10));
    }

    private void throwIfFailed() {
        Exception failed = this.failure.get();
        if (failed != null) {
            throw new IllegalStateException("producing to " + this.topic + " failed: " + failed, failed);
        }
    }

    private void awaitLeaders() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LEADER_TIMEOUT_SECONDS);
        while (true) {
            List<PartitionInfo> infos = this.producer.partitionsFor(this.topic);
            if (infos.size() == this.partitions
                    && infos.stream()
                            .allMatch((i) -> i.leader() != null && !i.leader().isEmpty())) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("topic " + this.topic + " has no leader for every partition: " + infos);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(ex);
            }
        }
    }
}
