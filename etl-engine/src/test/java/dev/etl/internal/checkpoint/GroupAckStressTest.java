package dev.etl.internal.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Group acks released concurrently: batches (parents) are shared by several overlapping, sometimes
 * nested, groups (windows emitted by buffering operators); every group reference (a chunk) is
 * released by one of several io threads in shuffled order, some with failure, while the parents'
 * own holds are released by the worker threads too. Checked: no group is ever posted, every batch is
 * posted exactly once, and it fails exactly when a reference of a group covering it failed. The batch
 * acks come from one {@link AckQueue}'s pool for all rounds, so later rounds run on acks recycled by
 * earlier ones (still referenced, released, by the groups of those rounds).
 */
class GroupAckStressTest {
    private static final int WORKERS = 4;
    private static final int ROUNDS = 200;
    private static final int BATCHES = 64;

    private record Release(AckRef ack, boolean success) {}

    @Test
    void everyBatchIsPostedOnceWithTheMergedStatusOfEveryGroupCoveringIt() throws InterruptedException {
        long seed = new SplittableRandom().nextLong();
        AckQueue queue = new AckQueue();
        for (int round = 0; round < ROUNDS; round++) {
            round(seed + round, queue);
        }
        assertThat(queue.acksReused())
                .as("seed %d: rounds after the first ran on recycled acks", seed)
                .isEqualTo((long) (ROUNDS - 1) * BATCHES);
    }

    private void round(long seed, AckQueue queue) throws InterruptedException {
        SplittableRandom random = new SplittableRandom(seed);
        AckRef[] batches = new AckRef[BATCHES];
        int[] generations = new int[BATCHES];
        boolean[] expected = new boolean[BATCHES];
        for (int b = 0; b < BATCHES; b++) {
            batches[b] = queue.acquire(0, 1, b);
            generations[b] = batches[b].generation();
            expected[b] = true;
        }
        List<Release> releases = new ArrayList<>();
        List<List<Integer>> covered = new ArrayList<>();
        List<AckRef> groups = new ArrayList<>();
        // Groups over random subsets; a third nest an earlier group as a parent.
        for (int g = 0; g < 24; g++) {
            List<AckRef> parents = new ArrayList<>();
            List<Integer> batchesCovered = new ArrayList<>();
            int width = 1 + random.nextInt(6);
            for (int i = 0; i < width; i++) {
                int b = random.nextInt(BATCHES);
                batches[b].retain();
                parents.add(batches[b]);
                batchesCovered.add(b);
            }
            if (!groups.isEmpty() && random.nextInt(3) == 0) {
                int inner = random.nextInt(groups.size());
                groups.get(inner).retain();
                parents.add(groups.get(inner));
                batchesCovered.addAll(covered.get(inner));
            }
            AckRef group = AckRef.group(parents.toArray(new AckRef[0]));
            int chunks = random.nextInt(4);
            boolean groupOk = true;
            for (int c = 0; c < chunks; c++) {
                group.retain();
                boolean ok = random.nextInt(8) != 0;
                groupOk &= ok;
                releases.add(new Release(group, ok));
            }
            releases.add(new Release(group, true)); // the emission scope's own hold
            groups.add(group);
            covered.add(batchesCovered);
            if (!groupOk) {
                for (int b : batchesCovered) {
                    expected[b] = false;
                }
            }
        }
        for (AckRef batch : batches) {
            releases.add(new Release(batch, true)); // the lane's hold
        }
        Collections.shuffle(releases, new Random(seed));

        ConcurrentLinkedQueue<Release> work = new ConcurrentLinkedQueue<>(releases);
        CountDownLatch start = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(WORKERS);
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        for (int w = 0; w < WORKERS; w++) {
            Thread worker = new Thread(
                    () -> {
                        try {
                            start.await();
                            Release r;
                            while ((r = work.poll()) != null) {
                                r.ack().release(r.success());
                            }
                        } catch (Throwable t) {
                            errors.add(t);
                        } finally {
                            done.countDown();
                        }
                    },
                    "group-ack-worker-" + w);
            worker.start();
        }
        start.countDown();
        assertThat(done.await(30, TimeUnit.SECONDS))
                .as("seed %d: workers finished", seed)
                .isTrue();
        assertThat(errors).as("seed %d", seed).isEmpty();

        boolean[] posted = new boolean[BATCHES];
        queue.drain(ack -> {
            assertThat(ack.isGroup()).as("seed %d: a group was posted", seed).isFalse();
            int b = (int) ack.seq();
            assertThat(ack).as("seed %d: batch %d", seed, b).isSameAs(batches[b]);
            assertThat(ack.generation())
                    .as("seed %d: generation of batch %d", seed, b)
                    .isEqualTo(generations[b]);
            assertThat(posted[b]).as("seed %d: batch %d posted twice", seed, b).isFalse();
            posted[b] = true;
            assertThat(ack.succeeded())
                    .as("seed %d: status of batch %d", seed, b)
                    .isEqualTo(expected[b]);
        });
        for (int b = 0; b < BATCHES; b++) {
            assertThat(posted[b]).as("seed %d: batch %d posted", seed, b).isTrue();
        }
    }
}
