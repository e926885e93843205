package dev.etl.it.s3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.s3.BackfillFormats;
import dev.etl.s3.BackfillPlanner;
import dev.etl.test.infra.InfraServer;
import dev.etl.test.infra.KafkaTestTopics;
import dev.etl.test.infra.LocalInfra;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The work list is written once and whole: concurrent planners of one work topic leave exactly one list,
 * and a list whose writer died before the end (an aborted transaction) is invisible, so the next plan
 * writes the whole list instead of taking the fragment for a finished plan.
 */
@LocalInfra(InfraServer.KAFKA)
class BackfillPlannerIT {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void concurrentPlannersOfOneWorkTopicLeaveExactlyOneList(KafkaTestTopics topics) throws Exception {
        MemoryObjectStore store = store(40);
        String work = topics.create("backfill-plan-race", 4);
        CountDownLatch go = new CountDownLatch(1);
        List<Object> outcomes = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> planners = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Thread t = new Thread(() -> {
                try {
                    go.await();
                    outcomes.add(planner(topics, store, work).plan());
                } catch (Exception | Error e) {
                    outcomes.add(e);
                }
            });
            t.start();
            planners.add(t);
        }
        go.countDown();
        for (Thread t : planners) {
            t.join(60_000);
        }
        long written = outcomes.stream()
                .filter(o -> o instanceof BackfillPlanner.Result r && !r.alreadyPlanned())
                .count();
        assertThat(written).as("planners that wrote a list: %s", outcomes).isLessThanOrEqualTo(1);
        assertThat(committedRecords(topics, work)).as("work items in the topic").isEqualTo(40);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aListWhoseWriterDiedBeforeTheEndIsInvisibleAndTheNextPlanWritesItWhole(KafkaTestTopics topics)
            throws Exception {
        MemoryObjectStore store = store(10);
        String work = topics.create("backfill-plan-partial", 2);
        // a planner that died mid-list: its transaction never commits
        try (KafkaProducer<byte[], byte[]> dead = new KafkaProducer<>(
                Map.of("bootstrap.servers", topics.bootstrapServers(), "transactional.id", "etl-backfill-plan-" + work),
                new ByteArraySerializer(),
                new ByteArraySerializer())) {
            dead.initTransactions();
            dead.beginTransaction();
            for (int i = 0; i < 3; i++) {
                dead.send(new ProducerRecord<>(
                        work,
                        i % 2,
                        null,
                        ("etl-backfill/1 format=lines bucket=it key=x start=0 end=-1")
                                .getBytes(StandardCharsets.UTF_8)));
            }
            dead.flush();
            dead.abortTransaction();
        }
        BackfillPlanner.Result result = planner(topics, store, work).plan();
        assertThat(result.alreadyPlanned())
                .as("the fragment is not a plan: %s", result)
                .isFalse();
        assertThat(result.items()).isEqualTo(10);
        assertThat(committedRecords(topics, work)).isEqualTo(10);
    }

    private static MemoryObjectStore store(int objects) {
        MemoryObjectStore store = new MemoryObjectStore();
        for (int i = 0; i < objects; i++) {
            store.put("it", "p/o-" + i + ".lines", (i + "\n").getBytes(StandardCharsets.US_ASCII));
        }
        return store;
    }

    private static BackfillPlanner planner(KafkaTestTopics topics, MemoryObjectStore store, String work) {
        return BackfillPlanner.builder()
                .store(store)
                .formats(BackfillFormats.of(List.of(new LinesFormat())))
                .kafka(Map.of("bootstrap.servers", topics.bootstrapServers()))
                .workTopic(work)
                .bucket("it")
                .prefix("p/")
                .splitBytes(1_000)
                .build();
    }

    /** Records a read_committed consumer sees in the topic. */
    private static long committedRecords(KafkaTestTopics topics, String work) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(
                Map.of("bootstrap.servers", topics.bootstrapServers(), "isolation.level", "read_committed"),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(work).stream()
                    .map(p -> new TopicPartition(work, p.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long n = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))
                    && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> ignored : consumer.poll(Duration.ofMillis(200))) {
                    n++;
                }
            }
            return n;
        }
    }
}
