package dev.etl.internal.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Stress test of the real ack path: one lane thread (the test thread) registers batches with its
 * {@link Checkpointer}, takes an {@link AckRef} per batch from its {@link AckQueue}'s pool (as the
 * lane does), retains it once per "chunk" handed to one of several worker threads and then releases
 * its own hold; workers release their chunks in shuffled order with random delays, some with
 * failure; the lane concurrently drains its queue into the checkpointer, which only the lane
 * touches, and the drain recycles the acks for later batches.
 *
 * <p>Checked: every ack is posted exactly once and carries the merged status; an ack object is never
 * reused while a holder still holds it (its generation at every release and at its post is the one
 * it had when the batch took it); the watermark never moves back and, at every observation, covers
 * only batches whose every holder had already released (each holder counts itself out in
 * {@code holdersLeft} before its release) successfully; the final watermark is the end of the last
 * batch, or the end of the batch before the first failed one; acks were really reused.
 */
class AckConcurrencyStressTest {
    private static final int WORKERS = 4;
    private static final int PARTITIONS = 2;
    private static final int BATCHES = 200_000;
    private static final int MAX_IN_FLIGHT = 4_096;
    private static final int MAX_CHUNKS = 3;
    private static final long ROUND_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(60);
    /** Pool caps by round: the default, one far below what is in flight, one above it. */
    private static final int[] POOL_CAPS = {AckQueue.DEFAULT_MAX_POOLED_ACKS, 8, 2 * MAX_IN_FLIGHT};

    @Test
    void everyAckIsPostedOnceAndWatermarkReachesTheEndWhenAllSucceed() throws InterruptedException {
        long baseSeed = new SplittableRandom().nextLong();
        for (int round = 0; round < 3; round++) {
            new Round(baseSeed + round, 0, POOL_CAPS[round]).run();
        }
    }

    @Test
    void watermarkStopsBeforeTheFirstFailedBatchWhileOtherPartitionsComplete() throws InterruptedException {
        long baseSeed = new SplittableRandom().nextLong();
        for (int round = 0; round < 3; round++) {
            new Round(baseSeed + round, 1 + round * 2, POOL_CAPS[round]).run();
        }
    }

    /** What the lane hands to a worker: one chunk's reference to a batch's ack (of that generation). */
    private record Chunk(AckRef ack, int generation, int batch, boolean fail) {}

    private static final class Round {
        private final long seed;
        private final SplittableRandom random;
        private final int failures;

        private final AckQueue queue;
        private final Checkpointer checkpointer = new Checkpointer(System::nanoTime, 64);
        private final int[] epochs = new int[PARTITIONS];

        // Per batch, written by the lane before hand-off.
        private final int[] generationOf = new int[BATCHES];
        private final int[] partitionOf = new int[BATCHES];
        private final long[] nextOffsetOf = new long[BATCHES];
        private final boolean[] plannedFailure = new boolean[BATCHES];
        private final int[][] batchBySeq = new int[PARTITIONS][BATCHES];
        private final long[] lastNextOffset = new long[PARTITIONS];
        private final int[] registered = new int[PARTITIONS];

        // Per batch, written by every holder (lane and workers) just before its release.
        private final AtomicIntegerArray holdersLeft = new AtomicIntegerArray(BATCHES);
        private final AtomicIntegerArray failedReleases = new AtomicIntegerArray(BATCHES);

        // Lane-only observation state.
        private final int[] posts = new int[BATCHES];
        private int postedTotal;
        private final int[] verified = new int[PARTITIONS];
        private final long[] lastWatermark = {-1, -1};
        private final long[] highestSeqPosted = {-1, -1};
        private int postedOutOfOrder;

        private final List<ConcurrentLinkedQueue<Chunk>> inboxes = new ArrayList<>(WORKERS);
        private final Thread[] workers = new Thread[WORKERS];
        private final AtomicReference<Throwable> workerError = new AtomicReference<>();
        private volatile boolean stopping;

        Round(long seed, int failures, int poolCap) {
            this.seed = seed;
            this.random = new SplittableRandom(seed);
            this.failures = failures;
            this.queue = new AckQueue(poolCap);
        }

        void run() throws InterruptedException {
            planFailures();
            for (int p = 0; p < PARTITIONS; p++) {
                epochs[p] = checkpointer.assign(p);
                lastNextOffset[p] = random.nextInt(1_000);
            }
            for (int w = 0; w < WORKERS; w++) {
                ConcurrentLinkedQueue<Chunk> inbox = new ConcurrentLinkedQueue<>();
                inboxes.add(inbox);
                SplittableRandom workerRandom = random.split();
                workers[w] = new Thread(() -> work(inbox, workerRandom), "stress-worker-" + w);
                workers[w].setDaemon(true);
                workers[w].start();
            }
            try {
                for (int batch = 0; batch < BATCHES; batch++) {
                    while (batch - postedTotal >= MAX_IN_FLIGHT) {
                        drainAndObserve();
                        Thread.yield();
                    }
                    createAndHandOff(batch);
                    drainAndObserve();
                }
                long deadline = System.nanoTime() + ROUND_TIMEOUT_NS;
                while (postedTotal < BATCHES) {
                    drainAndObserve();
                    Thread.yield();
                    if (System.nanoTime() > deadline) {
                        fail(describe() + ": only " + postedTotal + " of " + BATCHES + " acks posted");
                    }
                }
            } finally {
                stopping = true;
                for (Thread worker : workers) {
                    worker.join(TimeUnit.SECONDS.toMillis(10));
                }
            }
            assertThat(workerError.get()).as(describe()).isNull();
            assertThat(queue.drain(this::onPosted))
                    .as(describe() + ": posts after all were accounted")
                    .isZero();
            verifyFinalState();
        }

        /** Partition 0 gets the failures, at random batches; partition 1 must be unaffected. */
        private void planFailures() {
            for (int i = 0; i < failures; i++) {
                plannedFailure[BATCHES / 10 + random.nextInt(BATCHES * 9 / 10)] = true;
            }
        }

        private void createAndHandOff(int batch) {
            int p = plannedFailure[batch] ? 0 : random.nextInt(PARTITIONS);
            long nextOffset = lastNextOffset[p] + 1 + random.nextInt(100);
            lastNextOffset[p] = nextOffset;
            long seq = checkpointer.register(p, nextOffset);
            batchBySeq[p][(int) seq] = batch;
            registered[p]++;
            partitionOf[batch] = p;
            nextOffsetOf[batch] = nextOffset;

            AckRef ack = queue.acquire(p, epochs[p], seq);
            int generation = ack.generation();
            generationOf[batch] = generation;
            // 0 chunks: every record was filtered out, so the lane's own release resolves the batch.
            int chunks = random.nextInt(MAX_CHUNKS + 1);
            int failingHolder = plannedFailure[batch] ? random.nextInt(chunks + 1) : -1; // chunks = the lane
            holdersLeft.set(batch, chunks + 1);
            for (int c = 0; c < chunks; c++) {
                ack.retain();
                inboxes.get(random.nextInt(WORKERS)).offer(new Chunk(ack, generation, batch, c == failingHolder));
            }
            releaseAsHolder(ack, batch, failingHolder != chunks);
        }

        private void releaseAsHolder(AckRef ack, int batch, boolean success) {
            if (!success) {
                failedReleases.set(batch, 1);
            }
            holdersLeft.decrementAndGet(batch);
            ack.release(success);
        }

        private void work(ConcurrentLinkedQueue<Chunk> inbox, SplittableRandom random) {
            Chunk[] local = new Chunk[32];
            try {
                while (true) {
                    int n = 0;
                    Chunk chunk;
                    while (n < local.length && (chunk = inbox.poll()) != null) {
                        local[n++] = chunk;
                    }
                    if (n == 0) {
                        if (stopping) {
                            return;
                        }
                        Thread.yield();
                        continue;
                    }
                    for (int i = n - 1; i > 0; i--) { // release this batch of chunks in random order
                        int j = random.nextInt(i + 1);
                        Chunk tmp = local[i];
                        local[i] = local[j];
                        local[j] = tmp;
                    }
                    for (int i = 0; i < n; i++) {
                        int delay = random.nextInt(64);
                        if (delay == 0) {
                            Thread.yield();
                        } else {
                            for (int spin = 0; spin < delay; spin++) {
                                Thread.onSpinWait();
                            }
                        }
                        if (local[i].ack().generation() != local[i].generation()) {
                            throw new AssertionError("batch " + local[i].batch() + ": its ack was reused (generation "
                                    + local[i].ack().generation() + ", taken as " + local[i].generation()
                                    + ") while a chunk still held it");
                        }
                        releaseAsHolder(local[i].ack(), local[i].batch(), !local[i].fail());
                        local[i] = null;
                    }
                }
            } catch (Throwable t) {
                workerError.compareAndSet(null, t);
            }
        }

        private void drainAndObserve() {
            if (workerError.get() != null) {
                fail(describe() + ": worker failed", workerError.get());
            }
            if (queue.drain(this::onPosted) > 0) {
                observe();
            }
        }

        private void onPosted(AckRef ack) {
            int batch = batchBySeq[ack.partition()][(int) ack.seq()];
            if (ack.generation() != generationOf[batch]) {
                fail(describe() + ": batch " + batch + " posted by generation " + ack.generation() + " of its ack, "
                        + "taken as generation " + generationOf[batch]);
            }
            if (++posts[batch] != 1) {
                fail(describe() + ": batch " + batch + " posted " + posts[batch] + " times");
            }
            if (holdersLeft.get(batch) != 0 || ack.refCount() != 0) {
                fail(describe() + ": batch " + batch + " posted with " + holdersLeft.get(batch)
                        + " holders left, refCount " + ack.refCount());
            }
            if (ack.succeeded() != (failedReleases.get(batch) == 0)) {
                fail(describe() + ": batch " + batch + " posted succeeded=" + ack.succeeded() + " but failed releases="
                        + failedReleases.get(batch));
            }
            postedTotal++;
            if (ack.seq() < highestSeqPosted[ack.partition()]) {
                postedOutOfOrder++;
            } else {
                highestSeqPosted[ack.partition()] = ack.seq();
            }
            checkpointer.ack(ack);
        }

        /** The watermark never moves back and covers only fully, successfully released batches. */
        private void observe() {
            for (int p = 0; p < PARTITIONS; p++) {
                long watermark = checkpointer.watermark(p);
                if (watermark < lastWatermark[p]) {
                    fail(describe() + ": watermark of partition " + p + " moved back from " + lastWatermark[p] + " to "
                            + watermark);
                }
                lastWatermark[p] = watermark;
                while (verified[p] < registered[p] && nextOffsetOf[batchBySeq[p][verified[p]]] <= watermark) {
                    int batch = batchBySeq[p][verified[p]];
                    if (holdersLeft.get(batch) != 0 || failedReleases.get(batch) != 0) {
                        fail(describe() + ": watermark " + watermark + " of partition " + p + " covers batch " + batch
                                + " (next offset " + nextOffsetOf[batch] + ") with " + holdersLeft.get(batch)
                                + " holders left and " + failedReleases.get(batch) + " failed releases");
                    }
                    verified[p]++;
                }
                if (verified[p] < registered[p]) {
                    // The first batch not covered must really be uncovered: the watermark ends before it.
                    assertThatWatermarkBelow(p, watermark, nextOffsetOf[batchBySeq[p][verified[p]]]);
                }
            }
        }

        private void assertThatWatermarkBelow(int p, long watermark, long nextOffset) {
            if (watermark >= nextOffset) {
                fail(describe() + ": watermark " + watermark + " of partition " + p + " not below " + nextOffset);
            }
        }

        private void verifyFinalState() {
            for (int batch = 0; batch < BATCHES; batch++) {
                if (posts[batch] != 1) {
                    fail(describe() + ": batch " + batch + " posted " + posts[batch] + " times");
                }
            }
            assertThat(queue.acksReused())
                    .as(describe() + ": batches ran on recycled acks")
                    .isPositive();
            assertThat(queue.acksReused() + queue.acksCreated()).isEqualTo(BATCHES);
            for (int p = 0; p < PARTITIONS; p++) {
                long expected = -1;
                boolean failed = false;
                for (int seq = 0; seq < registered[p]; seq++) {
                    int batch = batchBySeq[p][seq];
                    if (failedReleases.get(batch) != 0) {
                        failed = true;
                        break;
                    }
                    expected = nextOffsetOf[batch];
                }
                assertThat(failed)
                        .as(describe() + ": partition %d has a failure", p)
                        .isEqualTo(p == 0 && failures > 0);
                assertThat(checkpointer.watermark(p))
                        .as(describe() + ": final watermark of partition %d", p)
                        .isEqualTo(expected);
                assertThat(checkpointer.isFailedAtHead(p)).as(describe()).isEqualTo(failed);
                if (!failed) {
                    assertThat(expected).isEqualTo(lastNextOffset[p]);
                    assertThat(checkpointer.outstanding(p)).as(describe()).isZero();
                }
            }
            assertThat(checkpointer.staleAcks()).as(describe()).isZero();
            assertThat(postedOutOfOrder)
                    .as(describe() + ": the round must have reordered acks")
                    .isPositive();
        }

        private String describe() {
            return "seed " + seed + ", failures " + failures + ", posted " + postedTotal + " (" + postedOutOfOrder
                    + " out of order), " + queue;
        }
    }
}
