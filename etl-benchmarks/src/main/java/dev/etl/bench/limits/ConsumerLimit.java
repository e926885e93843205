package dev.etl.bench.limits;

import dev.etl.avro.SchemaRegistryClient;
import dev.etl.bench.BenchArgs;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * C, the consuming side's limit: {@code --threads} plain {@link KafkaConsumer}s, the topic's partitions
 * assigned round-robin among them (no group, no commits), each reading from the beginning until the
 * topic's end offsets as they were at start. With {@code --decode generic} every Confluent-framed value
 * is decoded by Avro's stock {@link GenericDatumReader} (writer schema from the registry, one reader
 * per schema id, decoder and record reused: the best a hand-written loop does with Avro's reader);
 * with {@code --decode none} the values are only touched (their length summed).
 *
 * <p>Prints one line, {@code consumer-limit decode=... records=N ms=T records_per_s=R}, where T runs
 * from the consumers' creation to the last record (JVM start excluded), and exits 0; exits 1 on error.
 *
 * <pre>
 * java -cp etl-benchmarks/target/benchmarks.jar dev.etl.bench.limits.ConsumerLimit \
 *      --bootstrap 127.0.0.1:19092 --topic orders --threads 2 --decode generic \
 *      --registry http://127.0.0.1:18081/apis/ccompat/v7 [--max-poll-records 5000]
 * </pre>
 */
public final class ConsumerLimit {
    private static final String USAGE = "usage: --bootstrap H:P --topic T [--threads 2] [--decode none|generic] "
            + "[--registry URL (for generic)] [--max-poll-records 5000]";

    private ConsumerLimit() {}

    public static void main(String[] args) throws Exception {
        // warnings only, on stderr: stdout carries the result line
        BenchArgs.defaultLogging("dev/etl/bench/limits/limits-logback.xml");
        BenchArgs a = new BenchArgs(USAGE, args);
        String bootstrap = a.get("bootstrap");
        String topic = a.get("topic");
        int threads = (int) a.getLong("threads", 2);
        String decode = a.get("decode", "none");
        if (!decode.equals("none") && !decode.equals("generic")) {
            throw new IllegalArgumentException("--decode must be none or generic, got '" + decode + "'");
        }
        SchemaRegistryClient registry = decode.equals("generic")
                ? SchemaRegistryClient.builder(a.get("registry")).build()
                : null;
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, a.get("max-poll-records", "5000"));

        List<TopicPartition> partitions = new ArrayList<>();
        Map<TopicPartition, Long> ends;
        long expected = 0;
        try (KafkaConsumer<byte[], byte[]> probe = new KafkaConsumer<>(props)) {
            for (PartitionInfo info : probe.partitionsFor(topic, Duration.ofSeconds(30))) {
                partitions.add(new TopicPartition(topic, info.partition()));
            }
            ends = probe.endOffsets(partitions, Duration.ofSeconds(30));
            Map<TopicPartition, Long> begins = probe.beginningOffsets(partitions, Duration.ofSeconds(30));
            for (TopicPartition tp : partitions) {
                expected += ends.get(tp) - begins.get(tp);
            }
        }

        if (expected == 0) {
            System.err.printf(
                    "consumer-limit: topic '%s' on %s holds no records (%d partitions)%n",
                    topic, bootstrap, partitions.size());
            System.exit(1);
        }
        AtomicLong records = new AtomicLong();
        AtomicLong checksum = new AtomicLong();
        List<Thread> workers = new ArrayList<>();
        List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
        long started = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            List<TopicPartition> mine = new ArrayList<>();
            for (int i = t; i < partitions.size(); i += threads) {
                mine.add(partitions.get(i));
            }
            if (mine.isEmpty()) {
                continue;
            }
            Thread worker = new Thread(
                    () -> {
                        try {
                            long[] result = consume(props, mine, ends, registry);
                            records.addAndGet(result[0]);
                            checksum.addAndGet(result[1]);
                        } catch (Throwable e) {
                            errors.add(e);
                        }
                    },
                    "consumer-limit-" + t);
            workers.add(worker);
            worker.start();
        }
        for (Thread worker : workers) {
            worker.join();
        }
        long elapsedNs = System.nanoTime() - started;
        if (!errors.isEmpty()) {
            errors.get(0).printStackTrace();
            System.exit(1);
        }
        if (records.get() != expected) {
            System.err.printf("consumer-limit: read %d records, the topic holds %d%n", records.get(), expected);
            System.exit(1);
        }
        long ms = Math.max(1, elapsedNs / 1_000_000);
        System.out.printf(
                "consumer-limit decode=%s threads=%d records=%d ms=%d records_per_s=%d checksum=%d%n",
                decode, threads, records.get(), ms, records.get() * 1000 / ms, checksum.get());
    }

    /** One thread: reads its partitions to their end offsets; returns {records, checksum}. */
    private static long[] consume(
            Properties props, List<TopicPartition> mine, Map<TopicPartition, Long> ends, SchemaRegistryClient registry)
            throws IOException {
        Map<Integer, GenericDatumReader<GenericRecord>> readers = new HashMap<>();
        BinaryDecoder decoder = null;
        GenericRecord reuse = null;
        long records = 0;
        long checksum = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            consumer.assign(mine);
            consumer.seekToBeginning(mine);
            Map<TopicPartition, Long> remaining = new HashMap<>();
            for (TopicPartition tp : mine) {
                remaining.put(tp, ends.get(tp));
            }
            remaining.entrySet().removeIf(e -> consumer.position(e.getKey()) >= e.getValue());
            long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
            while (!remaining.isEmpty()) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("did not reach the end offsets within 10 minutes: " + remaining);
                }
                ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(500));
                for (ConsumerRecord<byte[], byte[]> record : batch) {
                    byte[] value = record.value();
                    if (registry == null) {
                        checksum += value == null ? 0 : value.length;
                    } else {
                        int id = ((value[1] & 0xff) << 24)
                                | ((value[2] & 0xff) << 16)
                                | ((value[3] & 0xff) << 8)
                                | (value[4] & 0xff);
                        GenericDatumReader<GenericRecord> reader = readers.get(id);
                        if (reader == null) {
                            Schema writer = registry.schemaById(id);
                            reader = new GenericDatumReader<>(writer);
                            readers.put(id, reader);
                        }
                        decoder = DecoderFactory.get().binaryDecoder(value, 5, value.length - 5, decoder);
                        reuse = reader.read(reuse, decoder);
                        checksum += ((Long) reuse.get(0)).longValue();
                    }
                    records++;
                }
                for (TopicPartition tp : batch.partitions()) {
                    Long end = remaining.get(tp);
                    if (end != null && consumer.position(tp) >= end) {
                        remaining.remove(tp);
                    }
                }
            }
        }
        return new long[] {records, checksum};
    }
}
