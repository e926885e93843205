package dev.etl.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class TopicPartitionIdsTest {

    @Test
    void idsAreDenseInFirstSeenOrderAndStable() {
        TopicPartitionIds ids = new TopicPartitionIds();
        assertThat(ids.idOf(new TopicPartition("orders", 3))).isZero();
        assertThat(ids.idOf(new TopicPartition("refunds", 0))).isEqualTo(1);
        assertThat(ids.idOf(new TopicPartition("orders", 3))).isZero();
        assertThat(ids.topicPartition(1)).isEqualTo(new TopicPartition("refunds", 0));
        assertThat(ids.describe(0)).isEqualTo("orders-3");
        assertThat(ids.size()).isEqualTo(2);
    }

    @Test
    void growsPastItsInitialCapacity() {
        TopicPartitionIds ids = new TopicPartitionIds();
        for (int p = 0; p < 100; p++) {
            assertThat(ids.idOf(new TopicPartition("t", p))).isEqualTo(p);
        }
        assertThat(ids.describe(99)).isEqualTo("t-99");
    }

    @Test
    void unknownIdsAreNamedAsSuchAndRefused() {
        TopicPartitionIds ids = new TopicPartitionIds();
        assertThat(ids.describe(7)).isEqualTo("#7");
        assertThatThrownBy(() -> ids.topicPartition(7))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown partition id 7");
        assertThatThrownBy(() -> ids.topicPartition(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void concurrentRegistrationsGetOneUniqueDenseIdPerPartition() throws Exception {
        int threads = 8;
        int partitions = 500;
        for (int round = 0; round < 20; round++) {
            TopicPartitionIds ids = new TopicPartitionIds();
            ConcurrentHashMap<TopicPartition, Integer> seen = new ConcurrentHashMap<>();
            CountDownLatch start = new CountDownLatch(1);
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                Future<?>[] futures = new Future<?>[threads];
                for (int t = 0; t < threads; t++) {
                    int offset = t * 37;
                    futures[t] = pool.submit(() -> {
                        start.await();
                        for (int i = 0; i < partitions; i++) {
                            TopicPartition tp = new TopicPartition("t" + ((i + offset) % 5), (i + offset) % partitions);
                            int id = ids.idOf(tp);
                            Integer previous = seen.putIfAbsent(tp, id);
                            assertThat(previous == null || previous == id).isTrue();
                            assertThat(ids.topicPartition(id)).isEqualTo(tp);
                        }
                        return null;
                    });
                }
                start.countDown();
                for (Future<?> f : futures) {
                    f.get(30, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            Set<Integer> distinct = new HashSet<>(seen.values());
            assertThat(distinct).hasSize(seen.size());
            assertThat(ids.size()).isEqualTo(seen.size());
            for (int id = 0; id < ids.size(); id++) {
                assertThat(distinct).contains(id);
            }
        }
    }
}
