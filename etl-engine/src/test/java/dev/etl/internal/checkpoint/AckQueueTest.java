package dev.etl.internal.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The intrusive inbox (order, concurrent producers, nothing lost or duplicated) and the pool of
 * {@link AckQueue} (reuse only after the drain, reset on reuse, misuse detected, bounded).
 */
class AckQueueTest {
    private final List<AckRef> drained = new ArrayList<>();

    @Test
    void drainHandsAcksOverInPostingOrder() {
        AckQueue queue = new AckQueue();
        List<AckRef> posted = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            AckRef ack = new AckRef(0, 1, i, queue);
            posted.add(ack);
            ack.release(true);
            if (i % 7 == 6) {
                queue.drain(drained::add); // a drain in between must not disturb the order
            }
        }

        assertThat(queue.isEmpty()).isFalse();
        queue.drain(drained::add);

        assertThat(drained).containsExactlyElementsOf(posted);
        assertThat(queue.isEmpty()).isTrue();
        assertThat(queue.drain(drained::add)).isZero();
    }

    @Test
    void aThrowingHandlerLeavesTheRestForTheNextDrainInOrder() {
        AckQueue queue = new AckQueue();
        for (int i = 0; i < 5; i++) {
            queue.acquire(0, 1, i).release(true);
        }

        assertThatThrownBy(() -> queue.drain(ack -> {
                    if (ack.seq() == 2) {
                        throw new IllegalStateException("handler failed");
                    }
                    drained.add(ack);
                }))
                .hasMessage("handler failed");
        assertThat(drained).extracting(AckRef::seq).containsExactly(0L, 1L);
        assertThat(queue.isEmpty()).as("seqs 3 and 4 still wait").isFalse();
        queue.acquire(0, 1, 5).release(true); // posted after the failed drain: after the rest
        List<Long> seqs = new ArrayList<>();
        assertThat(queue.drain(ack -> seqs.add(ack.seq()))).isEqualTo(3);

        assertThat(seqs).containsExactly(3L, 4L, 5L);
    }

    @Test
    void concurrentProducersLoseAndDuplicateNothingAndKeepEachProducersOrder() throws InterruptedException {
        int producers = 4;
        int perProducer = 50_000;
        long seed = new SplittableRandom().nextLong();
        SplittableRandom random = new SplittableRandom(seed);
        AckQueue queue = new AckQueue();
        // Built on the test thread, published to the producers by Thread.start.
        AckRef[][] acks = new AckRef[producers][perProducer];
        for (int p = 0; p < producers; p++) {
            for (int i = 0; i < perProducer; i++) {
                acks[p][i] = new AckRef(p, 1, i, queue);
            }
        }
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread[] threads = new Thread[producers];
        for (int p = 0; p < producers; p++) {
            AckRef[] mine = acks[p];
            SplittableRandom spins = random.split();
            threads[p] = new Thread(
                    () -> {
                        try {
                            start.await();
                            for (AckRef ack : mine) {
                                ack.release(true);
                                for (int s = spins.nextInt(8); s > 0; s--) {
                                    Thread.onSpinWait();
                                }
                            }
                        } catch (Throwable t) {
                            failure.compareAndSet(null, t);
                        }
                    },
                    "ack-producer-" + p);
            threads[p].setDaemon(true);
            threads[p].start();
        }
        long[] next = new long[producers];
        int[] total = {0};
        start.countDown();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (total[0] < producers * perProducer) {
            queue.drain(ack -> {
                int p = ack.partition();
                assertThat(ack.seq())
                        .as("seed %d: producer %d's next ack (none lost, none twice, in order)", seed, p)
                        .isEqualTo(next[p]);
                assertThat(ack.refCount()).isZero();
                next[p]++;
                total[0]++;
            });
            assertThat(failure.get()).as("seed %d", seed).isNull();
            assertThat(System.nanoTime() - deadline)
                    .as("seed %d: drained in time", seed)
                    .isNegative();
        }
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(10));
            assertThat(thread.isAlive()).isFalse();
        }

        assertThat(queue.drain(drained::add)).as("nothing posted twice").isZero();
        assertThat(next).containsOnly(perProducer);
    }

    @Test
    void aDrainedAckIsReusedWithFreshStateAndANewGeneration() {
        AckQueue queue = new AckQueue();
        AckRef first = queue.acquire(3, 7, 42);
        first.retain();
        first.release(false);
        first.release(true);
        assertThat(first.isRecycled()).as("posted, not yet drained").isFalse();

        queue.drain(ack -> {
            assertThat(ack.isRecycled()).as("recycled only after the handler").isFalse();
            assertThat(ack.succeeded()).isFalse();
            drained.add(ack);
        });
        assertThat(first.isRecycled()).isTrue();
        assertThat(queue.pooledAcks()).isEqualTo(1);
        AckRef second = queue.acquire(4, 8, 43);

        assertThat(second).isSameAs(first);
        assertThat(second.partition()).isEqualTo(4);
        assertThat(second.epoch()).isEqualTo(8);
        assertThat(second.seq()).isEqualTo(43);
        assertThat(second.refCount()).isEqualTo(1);
        assertThat(second.succeeded())
                .as("the failure of the previous batch is gone")
                .isTrue();
        assertThat(second.generation()).isEqualTo(first.generation()).isEqualTo(1);
        assertThat(queue.acksCreated()).isEqualTo(1);
        assertThat(queue.acksReused()).isEqualTo(1);
        second.release(true);
        queue.drain(ack -> assertThat(ack.succeeded()).isTrue());
    }

    @Test
    void theHandlerSeesTheAckBeforeItIsRecycled() {
        AckQueue queue = new AckQueue();
        Checkpointer checkpointer = new Checkpointer(() -> 0);
        int epoch = checkpointer.assign(0);
        for (int i = 0; i < 10; i++) {
            long seq = checkpointer.register(0, (i + 1) * 10L);
            queue.acquire(0, epoch, seq).release(true);
            queue.drain(checkpointer::ack);
        }

        assertThat(checkpointer.watermark(0)).isEqualTo(100);
        assertThat(checkpointer.staleAcks()).isZero();
        assertThat(queue.acksCreated()).isEqualTo(1);
        assertThat(queue.acksReused()).isEqualTo(9);
    }

    @Test
    void releasingARecycledAckFailsLoudlyAndTheAckIsNeverReused() {
        AckQueue queue = new AckQueue();
        AckRef ack = queue.acquire(0, 1, 0);
        ack.release(true);
        queue.drain(drained::add);

        assertThatThrownBy(() -> ack.release(true))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("without a matching reference")
                .hasMessageContaining("recycled");
        assertThatThrownBy(ack::retain).isInstanceOf(IllegalStateException.class);
        AckRef next = queue.acquire(0, 1, 1);

        assertThat(next).as("a disturbed ack is discarded, not reused").isNotSameAs(ack);
        assertThat(next.refCount()).isEqualTo(1);
        assertThat(queue.pooledAcks()).isZero();
        assertThat(queue.acksReused()).isZero();
    }

    @Test
    void anAckReleasedTooOftenBeforeItsDrainIsNotRecycled() {
        AckQueue queue = new AckQueue();
        AckRef ack = queue.acquire(0, 1, 0);
        ack.release(true);
        assertThatThrownBy(() -> ack.release(true))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("without a matching reference");

        assertThat(queue.drain(drained::add)).as("still posted exactly once").isEqualTo(1);

        assertThat(queue.pooledAcks()).isZero();
        assertThat(queue.acquire(0, 1, 1)).isNotSameAs(ack);
    }

    @Test
    void acksNotMadeByAcquireAndGroupsAreNeverRecycled() {
        AckQueue queue = new AckQueue();
        AckRef plain = new AckRef(0, 1, 0, queue);
        AckRef pooled = queue.acquire(0, 1, 1);
        pooled.retain();
        AckRef group = AckRef.group(new AckRef[] {pooled});
        pooled.release(true);
        plain.release(true);
        group.release(true);

        assertThat(queue.drain(drained::add)).isEqualTo(2);

        assertThat(drained).containsExactly(plain, pooled);
        assertThat(plain.isRecycled()).isFalse();
        assertThat(plain.refCount()).isZero();
        assertThat(pooled.isRecycled()).isTrue();
        assertThat(queue.pooledAcks()).isEqualTo(1);
    }

    @Test
    void anAckPostedToAnotherQueueIsNotRecycledByIt() {
        AckQueue owner = new AckQueue();
        AckQueue other = new AckQueue();
        AckRef ack = owner.acquire(0, 1, 0);
        other.post(ack); // a misrouted post, as a test or a bug might do

        other.drain(drained::add);

        assertThat(ack.isRecycled()).isFalse();
        assertThat(other.pooledAcks()).isZero();
        assertThat(owner.pooledAcks()).isZero();
    }

    @Test
    void thePoolIsFirstInFirstOutAndBoundedByItsCap() {
        AckQueue queue = new AckQueue(40);
        List<AckRef> acks = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            acks.add(queue.acquire(0, 1, i));
        }
        acks.forEach(ack -> ack.release(true));
        queue.drain(drained::add);

        assertThat(queue.pooledAcks()).as("capped").isEqualTo(40);
        assertThat(acks.subList(40, 100)).noneMatch(AckRef::isRecycled);
        for (int i = 0; i < 40; i++) {
            assertThat(queue.acquire(0, 2, i)).as("oldest recycled first").isSameAs(acks.get(i));
        }
        assertThat(queue.acquire(0, 2, 40)).isNotIn(acks);
        assertThat(queue.acksCreated()).isEqualTo(101);
        assertThat(queue.acksReused()).isEqualTo(40);
    }

    @Test
    void aQueueWithoutAPoolNeverReuses() {
        AckQueue queue = new AckQueue(0);
        AckRef first = queue.acquire(0, 1, 0);
        first.release(true);
        queue.drain(drained::add);

        assertThat(queue.acquire(0, 1, 1)).isNotSameAs(first);
        assertThat(first.isRecycled()).isFalse();
        assertThat(queue.acksReused()).isZero();
        assertThatThrownBy(() -> new AckQueue(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}
