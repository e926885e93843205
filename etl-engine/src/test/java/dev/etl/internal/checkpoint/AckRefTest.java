package dev.etl.internal.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class AckRefTest {
    private final AckQueue queue = new AckQueue();
    private final List<AckRef> posted = new ArrayList<>();

    @Test
    void lastReleasePostsOnceWithSuccessWhenEveryHolderSucceeded() {
        AckRef ack = new AckRef(3, 7, 42, queue);
        ack.retain();
        ack.retain();

        ack.release(true);
        ack.release(true);
        assertThat(queue.isEmpty()).as("not posted while a holder remains").isTrue();
        ack.release(true);

        assertThat(queue.drain(posted::add)).isEqualTo(1);
        assertThat(posted).containsExactly(ack);
        assertThat(ack.succeeded()).isTrue();
        assertThat(ack.refCount()).isZero();
        assertThat(ack.partition()).isEqualTo(3);
        assertThat(ack.epoch()).isEqualTo(7);
        assertThat(ack.seq()).isEqualTo(42);
    }

    @Test
    void oneFailedHolderFailsTheMergedStatusWhateverTheReleaseOrder() {
        for (int failing = 0; failing < 4; failing++) {
            AckRef ack = new AckRef(0, 1, failing, queue);
            ack.retain();
            ack.retain();
            ack.retain();

            for (int holder = 0; holder < 4; holder++) {
                ack.release(holder != failing);
            }

            assertThat(ack.succeeded()).as("failing holder %d", failing).isFalse();
        }
        assertThat(queue.drain(posted::add)).isEqualTo(4);
        assertThat(posted).extracting(AckRef::seq).containsExactly(0L, 1L, 2L, 3L);
    }

    @Test
    void concurrentHoldersPostOnceWithFailureWhenOneFails() throws InterruptedException {
        SplittableRandom random = new SplittableRandom();
        for (int round = 0; round < 200; round++) {
            int holders = 2 + random.nextInt(6);
            int failing = random.nextInt(holders + 1); // == holders: nobody fails
            AckRef ack = new AckRef(0, 1, round, queue);
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int h = 0; h < holders; h++) {
                ack.retain();
                boolean success = h != failing;
                Thread thread = new Thread(() -> {
                    awaitQuietly(start);
                    ack.release(success);
                });
                thread.start();
                threads.add(thread);
            }
            ack.release(true); // the creator's own hold, released while the holders race
            start.countDown();
            for (Thread thread : threads) {
                thread.join();
            }

            posted.clear();
            assertThat(queue.drain(posted::add)).as("round %d", round).isEqualTo(1);
            assertThat(posted.get(0).succeeded())
                    .as("round %d, failing %d of %d", round, failing, holders)
                    .isEqualTo(failing == holders);
        }
    }

    @Test
    void retainAfterTheCountReachedZeroThrows() {
        AckRef ack = new AckRef(0, 1, 0, queue);
        ack.release(true);

        assertThatThrownBy(ack::retain)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("released");
        assertThat(queue.drain(posted::add)).isEqualTo(1);
    }

    @Test
    void releaseMoreOftenThanRetainedThrows() {
        AckRef ack = new AckRef(0, 1, 0, queue);
        ack.retain();
        ack.release(true);
        ack.release(true);

        assertThatThrownBy(() -> ack.release(true))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("without a matching reference");
        assertThat(queue.drain(posted::add)).as("still posted exactly once").isEqualTo(1);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aGroupReleasesEachParentOnceWithItsMergedStatusWhenItsLastReferenceGoes() {
        AckRef a = new AckRef(0, 1, 1, queue);
        AckRef b = new AckRef(1, 1, 2, queue);
        a.retain();
        b.retain();
        AckRef group = AckRef.group(new AckRef[] {a, b});
        a.release(true);
        b.release(true);
        assertThat(group.isGroup()).isTrue();
        group.retain(); // one chunk
        group.retain(); // another chunk

        group.release(true); // the creator's hold
        group.release(true);
        assertThat(queue.isEmpty())
                .as("a parent resolves only when every output of the group did")
                .isTrue();
        group.release(false);

        assertThat(queue.drain(posted::add)).isEqualTo(2);
        assertThat(posted).containsExactly(a, b);
        assertThat(a.succeeded()).isFalse();
        assertThat(b.succeeded()).isFalse();
    }

    @Test
    void nestedGroupsResolveTheirRootBatches() {
        AckRef a = new AckRef(0, 1, 1, queue);
        AckRef inner = AckRef.group(new AckRef[] {a});
        AckRef outer = AckRef.group(new AckRef[] {inner});

        outer.release(true);

        assertThat(queue.drain(posted::add)).isEqualTo(1);
        assertThat(posted).containsExactly(a);
        assertThat(a.succeeded()).isTrue();
        assertThatThrownBy(() -> AckRef.group(new AckRef[0])).isInstanceOf(IllegalArgumentException.class);
    }
}
