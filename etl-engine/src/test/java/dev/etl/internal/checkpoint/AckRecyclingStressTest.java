package dev.etl.internal.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.agrona.collections.IntArrayList;
import org.agrona.collections.Long2LongHashMap;
import org.junit.jupiter.api.Test;

/**
 * Pooled acks under contention, with revokes: the lane (the test thread) takes each batch's ack from
 * its {@link AckQueue}'s pool, hands chunk references to io-like worker threads that release them in
 * shuffled order after random delays (rarely with failure), and keeps draining the queue into its
 * {@link Checkpointer} — which recycles the acks it drained and hands them out again for new batches
 * while older ones are still being released. Partitions are revoked at random (removed, sometimes
 * for a while, then assigned a new epoch) while their batches are in flight, so acks of revoked
 * epochs keep arriving late, are ignored as stale, and are recycled and reused too.
 *
 * <p>Checked, at every drain: a batch is acknowledged at most once, by the ack generation it was
 * created with, once every holder released it, with the merged status; no worker ever finds the ack
 * it holds reused; the watermark of a partition's current epoch never moves back and never passes a
 * batch with a holder left or a failed release. At the end: every batch was acknowledged exactly
 * once, the stale count is exactly the acks of revoked epochs, every watermark sits at the end of its
 * epoch's last batch or before its first failed one, and acks were reused, including acks that had
 * carried a stale (revoked) batch.
 *
 * <p>Seeded (printed on failure; replay with {@code -Dack.recycling.seed=<seed>}), about two seconds
 * of batches, every wait bounded.
 */
class AckRecyclingStressTest {
    private static final int WORKERS = 3;
    private static final int PARTITIONS = 3;
    private static final int MAX_BATCHES = 400_000;
    private static final long RUN_NS = TimeUnit.SECONDS.toNanos(2);
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);
    private static final int MAX_IN_FLIGHT = 512;
    private static final int MAX_CHUNKS = 3;
    private static final int[] POOL_CAPS = {4, 64, AckQueue.DEFAULT_MAX_POOLED_ACKS};

    @Test
    void recycledAcksAreAcknowledgedOnceAndNeverLetAWatermarkPassAnUnreleasedBatch() throws InterruptedException {
        Long replay = Long.getLong("ack.recycling.seed");
        new Run(replay != null ? replay : new SplittableRandom().nextLong()).run();
    }

    /** One chunk's reference to a batch's ack, as the lane hands it to a worker. */
    private record Chunk(AckRef ack, int generation, int batch, boolean fail) {}

    private static final class Run {
        private final long seed;
        private final SplittableRandom random;
        private final int poolCap;
        private final AckQueue queue;
        private final Checkpointer checkpointer = new Checkpointer(System::nanoTime, 16);

        // Per batch, written by the lane before the hand-off.
        private final int[] partitionOf = new int[MAX_BATCHES];
        private final int[] epochOf = new int[MAX_BATCHES];
        private final int[] generationOf = new int[MAX_BATCHES];
        private final long[] nextOffsetOf = new long[MAX_BATCHES];
        // Per batch, counted down / set by every holder just before its release.
        private final AtomicIntegerArray holdersLeft = new AtomicIntegerArray(MAX_BATCHES);
        private final AtomicIntegerArray failedReleases = new AtomicIntegerArray(MAX_BATCHES);

        // Lane-only state.
        /** (epoch, seq) → batch, for batches not yet acknowledged. */
        private final Long2LongHashMap unacknowledged = new Long2LongHashMap(-1);

        private final byte[] acknowledged = new byte[MAX_BATCHES];
        private final int[] epochs = new int[PARTITIONS];
        /** Batches of each partition's current epoch, in seq order; empty while it is not assigned. */
        private final IntArrayList[] current = new IntArrayList[PARTITIONS];

        private final int[] verified = new int[PARTITIONS];
        private final long[] lastWatermark = new long[PARTITIONS];
        private final long[] lastNextOffset = new long[PARTITIONS];
        private final int[] unassignedFor = new int[PARTITIONS];
        /** Acks whose last batch was stale when drained, until they are handed out again. */
        private final Set<AckRef> staleRecycled = Collections.newSetFromMap(new IdentityHashMap<>());

        private int created;
        private int acknowledgedTotal;
        private long expectedStale;
        private int revokes;
        private int reusedAfterStale;

        private final List<ConcurrentLinkedQueue<Chunk>> inboxes = new ArrayList<>(WORKERS);
        private final Thread[] workers = new Thread[WORKERS];
        private final AtomicReference<Throwable> workerError = new AtomicReference<>();
        private volatile boolean stopping;

        Run(long seed) {
            this.seed = seed;
            this.random = new SplittableRandom(seed);
            this.poolCap = POOL_CAPS[random.nextInt(POOL_CAPS.length)];
            this.queue = new AckQueue(poolCap);
        }

        void run() throws InterruptedException {
            for (int p = 0; p < PARTITIONS; p++) {
                current[p] = new IntArrayList();
                assign(p);
            }
            for (int w = 0; w < WORKERS; w++) {
                ConcurrentLinkedQueue<Chunk> inbox = new ConcurrentLinkedQueue<>();
                inboxes.add(inbox);
                SplittableRandom workerRandom = random.split();
                workers[w] = new Thread(() -> work(inbox, workerRandom), "ack-recycling-worker-" + w);
                workers[w].setDaemon(true);
                workers[w].start();
            }
            try {
                long endNs = System.nanoTime() + RUN_NS;
                while (created < MAX_BATCHES && System.nanoTime() - endNs < 0) {
                    long waitUntil = System.nanoTime() + TIMEOUT_NS;
                    while (created - acknowledgedTotal >= MAX_IN_FLIGHT) {
                        drainAndObserve();
                        Thread.yield();
                        if (System.nanoTime() - waitUntil > 0) {
                            fail(describe() + ": in-flight acks not coming back");
                        }
                    }
                    if (random.nextInt(1_500) == 0) {
                        revoke(random.nextInt(PARTITIONS));
                    }
                    createAndHandOff();
                    if (random.nextInt(4) == 0) {
                        drainAndObserve();
                    }
                }
                long waitUntil = System.nanoTime() + TIMEOUT_NS;
                while (acknowledgedTotal < created) {
                    drainAndObserve();
                    Thread.yield();
                    if (System.nanoTime() - waitUntil > 0) {
                        fail(describe() + ": only " + acknowledgedTotal + " of " + created + " acknowledged");
                    }
                }
            } finally {
                stopping = true;
                for (Thread worker : workers) {
                    worker.join(TimeUnit.SECONDS.toMillis(10));
                }
            }
            for (Thread worker : workers) {
                assertThat(worker.isAlive()).as(describe() + ": worker stopped").isFalse();
            }
            assertThat(workerError.get()).as(describe()).isNull();
            assertThat(queue.drain(ack -> fail(describe() + ": posted after all were acknowledged: " + ack)))
                    .isZero();
            verifyFinalState();
        }

        private void assign(int p) {
            epochs[p] = checkpointer.assign(p);
            current[p].clear();
            verified[p] = 0;
            lastWatermark[p] = -1;
        }

        /** Revoked without a drain (as a lost partition): its batches still in flight go stale. */
        private void revoke(int p) {
            if (epochs[p] < 0) {
                return;
            }
            checkpointer.remove(p);
            epochs[p] = -1;
            current[p].clear();
            unassignedFor[p] = random.nextInt(3) == 0 ? random.nextInt(200) : 0;
            revokes++;
            if (unassignedFor[p] == 0) {
                assign(p);
            }
        }

        private void createAndHandOff() {
            int p = random.nextInt(PARTITIONS);
            if (epochs[p] < 0) {
                if (--unassignedFor[p] > 0) {
                    return;
                }
                assign(p);
            }
            int batch = created++;
            long nextOffset = lastNextOffset[p] + 1 + random.nextInt(100);
            lastNextOffset[p] = nextOffset;
            long seq = checkpointer.register(p, nextOffset);
            current[p].addInt(batch);
            partitionOf[batch] = p;
            epochOf[batch] = epochs[p];
            nextOffsetOf[batch] = nextOffset;
            unacknowledged.put(key(epochs[p], seq), batch);

            AckRef ack = queue.acquire(p, epochs[p], seq);
            if (staleRecycled.remove(ack)) {
                reusedAfterStale++;
            }
            int generation = ack.generation();
            generationOf[batch] = generation;
            int chunks = random.nextInt(MAX_CHUNKS + 1);
            int failingHolder = random.nextInt(5_000) == 0 ? random.nextInt(chunks + 1) : -1; // chunks: the lane
            holdersLeft.set(batch, chunks + 1);
            for (int c = 0; c < chunks; c++) {
                ack.retain();
                inboxes.get(random.nextInt(WORKERS)).offer(new Chunk(ack, generation, batch, c == failingHolder));
            }
            releaseAsHolder(ack, batch, failingHolder != chunks);
        }

        private static long key(int epoch, long seq) {
            return ((long) epoch << 32) | seq;
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
                    for (int i = n - 1; i > 0; i--) {
                        int j = random.nextInt(i + 1);
                        Chunk tmp = local[i];
                        local[i] = local[j];
                        local[j] = tmp;
                    }
                    for (int i = 0; i < n; i++) {
                        for (int spin = random.nextInt(64); spin > 0; spin--) {
                            Thread.onSpinWait();
                        }
                        Chunk c = local[i];
                        local[i] = null;
                        if (c.ack().generation() != c.generation()) {
                            throw new AssertionError("batch " + c.batch() + ": its ack was reused (generation "
                                    + c.ack().generation() + ", taken as " + c.generation()
                                    + ") while a chunk still held it");
                        }
                        releaseAsHolder(c.ack(), c.batch(), !c.fail());
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
            long batchOrMissing = unacknowledged.remove(key(ack.epoch(), ack.seq()));
            if (batchOrMissing < 0) {
                fail(describe() + ": " + ack + " acknowledges a batch twice, or one never created");
            }
            int batch = (int) batchOrMissing;
            if (acknowledged[batch]++ != 0 || ack.partition() != partitionOf[batch]) {
                fail(describe() + ": batch " + batch + " acknowledged twice, or by " + ack);
            }
            if (ack.generation() != generationOf[batch]) {
                fail(describe() + ": batch " + batch + " acknowledged by generation " + ack.generation()
                        + " of its ack, created with " + generationOf[batch]);
            }
            if (holdersLeft.get(batch) != 0 || ack.refCount() != 0) {
                fail(describe() + ": batch " + batch + " acknowledged with " + holdersLeft.get(batch)
                        + " holders left, refCount " + ack.refCount());
            }
            if (ack.succeeded() != (failedReleases.get(batch) == 0)) {
                fail(describe() + ": batch " + batch + " acknowledged succeeded=" + ack.succeeded()
                        + " but failed releases=" + failedReleases.get(batch));
            }
            acknowledgedTotal++;
            if (epochOf[batch] != epochs[partitionOf[batch]]) {
                expectedStale++;
                staleRecycled.add(ack); // recycled when this returns; counted when handed out again
            }
            checkpointer.ack(ack);
        }

        /** Per current epoch: the watermark never moves back, covers only fully and successfully released batches. */
        private void observe() {
            for (int p = 0; p < PARTITIONS; p++) {
                if (epochs[p] < 0) {
                    assertThat(checkpointer.watermark(p)).as(describe()).isEqualTo(-1);
                    continue;
                }
                long watermark = checkpointer.watermark(p);
                if (watermark < lastWatermark[p]) {
                    fail(describe() + ": watermark of partition " + p + " moved back from " + lastWatermark[p] + " to "
                            + watermark);
                }
                lastWatermark[p] = watermark;
                IntArrayList batches = current[p];
                while (verified[p] < batches.size() && nextOffsetOf[batches.getInt(verified[p])] <= watermark) {
                    int batch = batches.getInt(verified[p]);
                    if (holdersLeft.get(batch) != 0 || failedReleases.get(batch) != 0 || acknowledged[batch] == 0) {
                        fail(describe() + ": watermark " + watermark + " of partition " + p + " passes batch " + batch
                                + " with " + holdersLeft.get(batch) + " holders left, " + failedReleases.get(batch)
                                + " failed releases, acknowledged " + acknowledged[batch]);
                    }
                    verified[p]++;
                }
                if (verified[p] < batches.size() && watermark >= nextOffsetOf[batches.getInt(verified[p])]) {
                    fail(describe() + ": watermark " + watermark + " of partition " + p + " not below batch "
                            + batches.getInt(verified[p]));
                }
            }
        }

        private void verifyFinalState() {
            assertThat(unacknowledged.size())
                    .as(describe() + ": batches never acknowledged")
                    .isZero();
            for (int batch = 0; batch < created; batch++) {
                if (acknowledged[batch] != 1) {
                    fail(describe() + ": batch " + batch + " acknowledged " + acknowledged[batch] + " times");
                }
            }
            assertThat(checkpointer.staleAcks())
                    .as(describe() + ": exactly the acks of revoked epochs are stale")
                    .isEqualTo(expectedStale);
            for (int p = 0; p < PARTITIONS; p++) {
                if (epochs[p] < 0) {
                    continue;
                }
                long expected = -1;
                boolean failed = false;
                for (int i = 0; i < current[p].size(); i++) {
                    int batch = current[p].getInt(i);
                    if (failedReleases.get(batch) != 0) {
                        failed = true;
                        break;
                    }
                    expected = nextOffsetOf[batch];
                }
                assertThat(checkpointer.watermark(p))
                        .as(describe() + ": final watermark of partition %d", p)
                        .isEqualTo(expected);
                assertThat(checkpointer.isFailedAtHead(p)).as(describe()).isEqualTo(failed);
            }
            assertThat(revokes).as(describe() + ": revokes").isPositive();
            assertThat(expectedStale).as(describe() + ": stale acks").isPositive();
            assertThat(queue.acksReused()).as(describe() + ": acks reused").isPositive();
            assertThat(reusedAfterStale)
                    .as(describe() + ": acks reused after carrying a revoked batch")
                    .isPositive();
        }

        private String describe() {
            return "seed " + seed + " (replay with -Dack.recycling.seed=" + seed + "), pool cap " + poolCap
                    + ", created " + created + ", acknowledged " + acknowledgedTotal + ", revokes " + revokes
                    + ", stale " + expectedStale + ", reused after stale " + reusedAfterStale + ", " + queue;
        }
    }
}
