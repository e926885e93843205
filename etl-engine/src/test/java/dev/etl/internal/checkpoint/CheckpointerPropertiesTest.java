package dev.etl.internal.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.agrona.collections.Long2LongHashMap;
import org.junit.jupiter.api.Test;

/**
 * Property-based tests of {@link Checkpointer} against a deliberately naive reference model: for
 * every partition the model keeps the full list of batches of the current epoch and recomputes the
 * watermark from scratch as the next offset of the longest contiguous prefix of successful acks.
 *
 * <p>Scenarios are generated from seeds with {@link SplittableRandom}; every invariant is checked
 * after every step, so the step at which a check fails ends the shortest failing prefix of that
 * scenario, and the failure message prints it together with the seed. A run uses a fresh base seed
 * (printed on failure); replay one with {@code -Dcheckpointer.properties.seed=<seed>}.
 *
 * <p>Acks reach the checkpointer as the lane's do: every registered batch takes an {@link AckRef} from
 * an {@link AckQueue}'s pool (with a random cap, some very small) and holds one to three references;
 * delivering its ack releases them all (one failing when the ack fails), and the queue is drained
 * into the checkpointer at random moments, so several acks may wait and the drain order is checked
 * against the posting order. Duplicate, stale and unknown acks are delivered through fresh pooled
 * acks. The model applies an ack when it is drained, and the drained ack must carry exactly what was
 * posted (an ack reused too early would not). Every test checks that acks were really reused.
 *
 * <p>Written as a small seeded harness on plain JUnit rather than with jqwik: jqwik 1.10 asks not
 * to be used by AI coding agents (its "Anti-AI Usage Clause"), and it targets JUnit Platform 1.x
 * while this build runs Platform 6.
 */
class CheckpointerPropertiesTest {
    private static final int PARTITIONS = 3;
    /** Never assigned: acks for it must always be stale. */
    private static final int UNKNOWN_PARTITION = 99;

    private static final int[] RING_CAPACITIES = {1, 2, 4, 256};
    private static final int[] POOL_CAPS = {1, 4, AckQueue.DEFAULT_MAX_POOLED_ACKS};

    @Test
    void randomOperationSequencesMatchTheReferenceModel() {
        long reused = forEachSeed(1_500, seed -> new OperationScenario(seed).run(250));
        assertThat(reused).as("acks reused").isPositive();
    }

    @Test
    void shuffledAcksWithEpochBumpsMatchTheReferenceModelAndEndBeforeTheFirstFailure() {
        long reused = forEachSeed(800, seed -> new ShuffledAckScenario(seed).run());
        assertThat(reused).as("acks reused").isPositive();
    }

    /** Runs one scenario; returns how many acks its queue reused. */
    private interface Scenario {
        long run(long seed);
    }

    /** Returns the acks reused over all scenarios run. */
    private static long forEachSeed(int scenarios, Scenario scenario) {
        Long replay = Long.getLong("checkpointer.properties.seed");
        if (replay != null) {
            return scenario.run(replay);
        }
        long baseSeed = new SplittableRandom().nextLong();
        long reused = 0;
        for (int i = 0; i < scenarios; i++) {
            reused += scenario.run(baseSeed + i);
        }
        return reused;
    }

    /**
     * Random interleavings of every operation: registers (some with non-increasing offsets, some on
     * unassigned partitions), acks picked from every batch ever registered (so stale epochs and
     * duplicates keep arriving), reassigns, removes, commits and clock ticks.
     */
    private static final class OperationScenario {
        private final Harness harness;
        private final SplittableRandom random;

        OperationScenario(long seed) {
            this.random = new SplittableRandom(seed);
            this.harness = new Harness(
                    seed,
                    RING_CAPACITIES[random.nextInt(RING_CAPACITIES.length)],
                    POOL_CAPS[random.nextInt(POOL_CAPS.length)],
                    random.split());
        }

        long run(int steps) {
            for (int p = 0; p < PARTITIONS; p++) {
                if (random.nextInt(4) != 0) {
                    harness.assign(p);
                }
            }
            harness.checkAll();
            for (int step = 0; step < steps; step++) {
                int partition = random.nextInt(PARTITIONS);
                int dice = random.nextInt(100);
                if (dice < 35) {
                    harness.register(partition, random.nextInt(20) == 0 ? -random.nextInt(3) : 1 + random.nextInt(50));
                } else if (dice < 80) {
                    harness.ackSomething(random, random.nextInt(10) != 0);
                } else if (dice < 84) {
                    harness.assign(partition);
                } else if (dice < 86) {
                    harness.remove(partition);
                } else if (dice < 92) {
                    harness.commit(random);
                } else if (dice < 97) {
                    harness.tick(random.nextInt(1_000));
                } else {
                    harness.ack(UNKNOWN_PARTITION, 1 + random.nextInt(5), random.nextInt(3), true);
                }
                if (random.nextInt(3) != 0) {
                    harness.drain();
                }
                harness.checkAll();
            }
            harness.drain();
            harness.checkAll();
            return harness.queue.acksReused();
        }
    }

    /**
     * Every partition registers a random number of batches with random offset gaps; all their acks
     * (with random failures) are delivered in one shuffled order. Mid-way, partitions are reassigned
     * and register new batches whose acks join the shuffled remainder, while the old epoch's acks
     * keep arriving. Some acks are delivered twice. At the end every ack has been delivered once, so
     * each watermark must sit exactly before the first failed batch of its current epoch.
     */
    private static final class ShuffledAckScenario {
        private final Harness harness;
        private final SplittableRandom random;
        private final List<long[]> pending = new ArrayList<>(); // {partition, epoch, seq, success}
        private final int failurePercent;

        ShuffledAckScenario(long seed) {
            this.random = new SplittableRandom(seed);
            this.harness = new Harness(
                    seed,
                    RING_CAPACITIES[random.nextInt(RING_CAPACITIES.length)],
                    POOL_CAPS[random.nextInt(POOL_CAPS.length)],
                    random.split());
            this.failurePercent = random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(8);
        }

        long run() {
            for (int p = 0; p < PARTITIONS; p++) {
                harness.assign(p);
                registerBatches(p, random.nextInt(300));
            }
            int epochBumps = random.nextInt(4);
            while (!pending.isEmpty()) {
                if (epochBumps > 0 && random.nextInt(Math.max(1, pending.size() / 2)) == 0) {
                    epochBumps--;
                    int p = random.nextInt(PARTITIONS);
                    harness.assign(p);
                    registerBatches(p, random.nextInt(100));
                    harness.checkAll();
                    continue;
                }
                long[] ack = pending.remove(pending.size() - 1);
                harness.ack((int) ack[0], (int) ack[1], ack[2], ack[3] == 1);
                if (random.nextInt(50) == 0) {
                    harness.ack((int) ack[0], (int) ack[1], ack[2], random.nextBoolean()); // duplicate
                }
                if (random.nextInt(10) == 0) {
                    harness.tick(random.nextInt(100));
                }
                if (random.nextInt(4) != 0) {
                    harness.drain();
                }
                harness.checkAll();
            }
            harness.drain();
            harness.checkAll();
            harness.checkAllAcknowledged();
            return harness.queue.acksReused();
        }

        private void registerBatches(int partition, int batches) {
            int epoch = harness.checkpointer.epoch(partition);
            for (int i = 0; i < batches; i++) {
                long seq = harness.register(partition, 1 + random.nextInt(1_000));
                boolean success = random.nextInt(100) >= failurePercent;
                long[] ack = {partition, epoch, seq, success ? 1 : 0};
                // Insert at a random position: the pending list is a random permutation throughout.
                pending.add(ack);
                int swap = random.nextInt(pending.size());
                pending.set(pending.size() - 1, pending.get(swap));
                pending.set(swap, ack);
            }
        }
    }

    /** Drives the real checkpointer and the model side by side and compares them. */
    private static final class Harness {
        final Checkpointer checkpointer;
        final AckQueue queue;
        private final long seed;
        private final int ringCapacity;
        private final int poolCap;
        /** Chooses holders and which of them fails; separate from the scenario's choices. */
        private final SplittableRandom ackRandom;
        /** The acks of registered batches not yet delivered, by {@link #key}. */
        private final Map<Long, Held> held = new HashMap<>();
        /** Posted, not yet drained, in posting order. */
        private final ArrayDeque<Posted> posted = new ArrayDeque<>();

        private final ModelPartition[] model = new ModelPartition[PARTITIONS];
        private final int[] highestEpoch = new int[PARTITIONS];
        private final List<long[]> issued = new ArrayList<>(); // {partition, epoch, seq}
        private final List<String> trace = new ArrayList<>();
        private final Long2LongHashMap committable = new Long2LongHashMap(-1);
        private long nowNs = 1_000;
        private long expectedStale;

        Harness(long seed, int ringCapacity, int poolCap, SplittableRandom ackRandom) {
            this.seed = seed;
            this.ringCapacity = ringCapacity;
            this.poolCap = poolCap;
            this.ackRandom = ackRandom;
            this.checkpointer = new Checkpointer(() -> nowNs, ringCapacity);
            this.queue = new AckQueue(poolCap);
            Arrays.fill(highestEpoch, -1);
        }

        /** Epochs come from one counter per checkpointer, so (epoch, seq) names one batch. */
        private static long key(int epoch, long seq) {
            return ((long) epoch << 32) | seq;
        }

        void assign(int partition) {
            int epoch = checkpointer.assign(partition);
            trace.add("assign(" + partition + ") -> epoch " + epoch);
            check(
                    epoch > highestEpoch[partition],
                    "epoch " + epoch + " of partition " + partition + " not above its previous "
                            + highestEpoch[partition]);
            highestEpoch[partition] = epoch;
            model[partition] = new ModelPartition(epoch);
        }

        void remove(int partition) {
            trace.add("remove(" + partition + ")");
            checkpointer.remove(partition);
            model[partition] = null;
        }

        void tick(long ns) {
            trace.add("tick(" + ns + ")");
            nowNs += ns;
        }

        /** Registers the next batch {@code gap} offsets after the previous one (gap <= 0 must be rejected). */
        long register(int partition, long gap) {
            ModelPartition m = model[partition];
            if (m == null) {
                trace.add("register(" + partition + ") on unassigned partition");
                assertThatThrownBy(() -> checkpointer.register(partition, 10))
                        .as(context())
                        .isInstanceOf(IllegalStateException.class);
                return -1;
            }
            long nextOffset = m.lastNextOffset() + gap;
            trace.add("register(" + partition + ", " + nextOffset + ")");
            if (gap <= 0) {
                assertThatThrownBy(() -> checkpointer.register(partition, nextOffset))
                        .as(context())
                        .isInstanceOf(IllegalArgumentException.class);
                return -1;
            }
            long seq = checkpointer.register(partition, nextOffset);
            check(seq == m.size, "register returned seq " + seq + ", expected " + m.size);
            m.add(nextOffset, nowNs);
            issued.add(new long[] {partition, m.epoch, seq});
            // As the lane: the batch's ack from the pool, held by the lane and up to two "chunks".
            AckRef ack = queue.acquire(partition, m.epoch, seq);
            int holders = 1 + ackRandom.nextInt(3);
            for (int h = 1; h < holders; h++) {
                ack.retain();
            }
            held.put(key(m.epoch, seq), new Held(ack, ack.generation(), holders));
            return seq;
        }

        /** Acks a batch registered at some point: usually a pending one of a current epoch, else any. */
        void ackSomething(SplittableRandom random, boolean success) {
            if (issued.isEmpty()) {
                return;
            }
            long[] target = issued.get(random.nextInt(issued.size()));
            if (random.nextInt(3) != 0) {
                for (int attempt = 0; attempt < 8; attempt++) {
                    long[] candidate = issued.get(random.nextInt(issued.size()));
                    ModelPartition m = model[(int) candidate[0]];
                    if (m != null
                            && m.epoch == candidate[1]
                            && m.states[(int) candidate[2]] == PartitionWatermark.PENDING) {
                        target = candidate;
                        break;
                    }
                }
            }
            ack((int) target[0], (int) target[1], target[2], success);
        }

        /**
         * Delivers an ack: releases every reference still held on the batch's pooled ack (one with
         * failure when {@code success} is false), which posts it; a batch already delivered, or never
         * registered, gets a fresh pooled ack released at once (a duplicate or stale delivery).
         */
        void ack(int partition, int epoch, long seq, boolean success) {
            trace.add("ack(" + partition + ", epoch " + epoch + ", seq " + seq + ", " + (success ? "ok" : "FAILED")
                    + ")");
            Held h = partition == UNKNOWN_PARTITION ? null : held.remove(key(epoch, seq));
            if (h == null) {
                AckRef ack = queue.acquire(partition, epoch, seq);
                posted.add(new Posted(ack, ack.generation(), partition, epoch, seq, success));
                ack.release(success);
                return;
            }
            check(
                    h.ack.generation() == h.generation && h.ack.refCount() == h.holders,
                    "the ack of " + partition + "/" + epoch + "/" + seq + " changed while held: " + h.ack
                            + ", taken as generation " + h.generation + " with " + h.holders + " holders");
            posted.add(new Posted(h.ack, h.generation, partition, epoch, seq, success));
            int failing = success ? -1 : ackRandom.nextInt(h.holders);
            for (int i = 0; i < h.holders; i++) {
                h.ack.release(i != failing);
            }
        }

        /** Drains the queue into the checkpointer, checking each ack against what was posted, in order. */
        void drain() {
            trace.add("drain " + posted.size());
            int drained = queue.drain(ack -> {
                Posted expected = posted.poll();
                check(expected != null, "drained " + ack + ", never posted");
                check(
                        ack == expected.ack
                                && ack.generation() == expected.generation
                                && ack.partition() == expected.partition
                                && ack.epoch() == expected.epoch
                                && ack.seq() == expected.seq
                                && ack.succeeded() == expected.success
                                && ack.refCount() == 0,
                        "drained " + ack + ", expected " + expected + " (posting order, contents, generation)");
                checkpointer.ack(ack);
                apply(expected.partition, expected.epoch, expected.seq, expected.success);
            });
            check(posted.isEmpty(), "drained " + drained + ", still expected " + posted);
        }

        /** What the checkpointer must do with a drained ack, done to the model. */
        private void apply(int partition, int epoch, long seq, boolean success) {
            ModelPartition m = partition >= 0 && partition < PARTITIONS ? model[partition] : null;
            if (m == null
                    || m.epoch != epoch
                    || seq < 0
                    || seq >= m.size
                    || m.states[(int) seq] != PartitionWatermark.PENDING) {
                expectedStale++;
            } else {
                m.states[(int) seq] = success ? PartitionWatermark.OK : PartitionWatermark.FAILED;
            }
        }

        /** Collects committable watermarks, compares them with the model, and marks them committed. */
        void commit(SplittableRandom random) {
            trace.add("commit");
            committable.clear();
            int count = checkpointer.collectCommittable(committable);
            Long2LongHashMap expected = new Long2LongHashMap(-1);
            for (int p = 0; p < PARTITIONS; p++) {
                ModelPartition m = model[p];
                if (m != null && m.watermark() > m.lastCommitted) {
                    expected.put(p, m.watermark());
                }
            }
            check(
                    count == expected.size() && committable.equals(expected),
                    "committable " + committable + " (count " + count + "), expected " + expected);
            committable.forEachLong((partition, offset) -> {
                // Sometimes commit less than offered: lastCommitted must still only move forward.
                long committed = random.nextInt(5) == 0 ? offset - 1 : offset;
                checkpointer.markCommitted((int) partition, committed);
                ModelPartition m = model[(int) partition];
                m.lastCommitted = Math.max(m.lastCommitted, committed);
            });
            if (random.nextInt(4) == 0) {
                // A late, older commit confirmation (or one for an unassigned partition) changes nothing.
                int partition = random.nextInt(PARTITIONS);
                ModelPartition m = model[partition];
                long older = (m == null ? 0 : m.lastCommitted) - random.nextInt(3);
                trace.add("markCommitted(" + partition + ", " + older + ")");
                checkpointer.markCommitted(partition, older);
                if (m != null) {
                    m.lastCommitted = Math.max(m.lastCommitted, older);
                }
            }
        }

        void checkAll() {
            int totalOutstanding = 0;
            for (int p = 0; p < PARTITIONS; p++) {
                ModelPartition m = model[p];
                View expected = m == null ? View.UNASSIGNED : m.view(nowNs);
                View actual = new View(
                        checkpointer.isAssigned(p),
                        checkpointer.epoch(p),
                        checkpointer.watermark(p),
                        checkpointer.outstanding(p),
                        checkpointer.isFailedAtHead(p),
                        checkpointer.lastCommitted(p),
                        checkpointer.watermarkAgeNs(p));
                if (!actual.equals(expected)) {
                    assertThat(actual).as(context() + "\npartition " + p).isEqualTo(expected);
                }
                if (m != null) {
                    // Stated on its own: the watermark never covers a batch that is pending or failed.
                    for (int seq = 0; seq < m.size; seq++) {
                        if (m.states[seq] != PartitionWatermark.OK) {
                            check(
                                    actual.watermark() < m.nextOffsets[seq],
                                    "partition " + p + " watermark " + actual.watermark() + " passes unsuccessful seq "
                                            + seq);
                            break;
                        }
                    }
                    totalOutstanding += expected.outstanding();
                }
            }
            check(
                    checkpointer.outstanding() == totalOutstanding,
                    "total outstanding " + checkpointer.outstanding() + ", expected " + totalOutstanding);
            check(
                    checkpointer.staleAcks() == expectedStale,
                    "stale acks " + checkpointer.staleAcks() + ", expected " + expectedStale);
        }

        /** After every ack was delivered: each watermark is the offset before the first failed batch. */
        void checkAllAcknowledged() {
            for (int p = 0; p < PARTITIONS; p++) {
                ModelPartition m = model[p];
                int firstFailed = -1;
                for (int seq = 0; seq < m.size; seq++) {
                    check(m.states[seq] != PartitionWatermark.PENDING, "seq " + seq + " never acknowledged");
                    if (firstFailed < 0 && m.states[seq] == PartitionWatermark.FAILED) {
                        firstFailed = seq;
                    }
                }
                long expected;
                if (firstFailed < 0) {
                    expected = m.size == 0 ? -1 : m.nextOffsets[m.size - 1];
                } else {
                    expected = firstFailed == 0 ? -1 : m.nextOffsets[firstFailed - 1];
                }
                check(
                        checkpointer.watermark(p) == expected,
                        "final watermark of partition " + p + " is " + checkpointer.watermark(p) + ", expected "
                                + expected);
                check(checkpointer.isFailedAtHead(p) == (firstFailed >= 0), "partition " + p + " failed at head");
            }
        }

        private void check(boolean condition, String message) {
            if (!condition) {
                throw new AssertionError(context() + "\n" + message);
            }
        }

        private String context() {
            int from = Math.max(0, trace.size() - 60);
            return "seed " + seed + " (replay with -Dcheckpointer.properties.seed=" + seed + "), ring capacity "
                    + ringCapacity + ", pool cap " + poolCap + ", " + queue + ", failing after step " + trace.size()
                    + "; last steps:\n  "
                    + String.join("\n  ", trace.subList(from, trace.size()));
        }
    }

    /** A registered batch's pooled ack and the references the harness holds on it. */
    private record Held(AckRef ack, int generation, int holders) {}

    /** An ack posted to the queue, as the drain must hand it over. */
    private record Posted(AckRef ack, int generation, int partition, int epoch, long seq, boolean success) {}

    /** What the checkpointer reports about one partition. */
    private record View(
            boolean assigned,
            int epoch,
            long watermark,
            int outstanding,
            boolean failedAtHead,
            long lastCommitted,
            long watermarkAgeNs) {
        static final View UNASSIGNED = new View(false, -1, -1, 0, false, -1, 0);
    }

    /** The reference: every batch of the epoch, nothing ever popped, watermark recomputed from scratch. */
    private static final class ModelPartition {
        final int epoch;
        long[] nextOffsets = new long[16];
        long[] registeredAtNs = new long[16];
        byte[] states = new byte[16];
        int size;
        long lastCommitted = -1;

        ModelPartition(int epoch) {
            this.epoch = epoch;
        }

        long lastNextOffset() {
            return size == 0 ? -1 : nextOffsets[size - 1];
        }

        void add(long nextOffset, long nowNs) {
            if (size == states.length) {
                nextOffsets = Arrays.copyOf(nextOffsets, size * 2);
                registeredAtNs = Arrays.copyOf(registeredAtNs, size * 2);
                states = Arrays.copyOf(states, size * 2);
            }
            nextOffsets[size] = nextOffset;
            registeredAtNs[size] = nowNs;
            states[size] = PartitionWatermark.PENDING;
            size++;
        }

        /** Length of the longest prefix of successfully acknowledged batches. */
        int prefix() {
            int prefix = 0;
            while (prefix < size && states[prefix] == PartitionWatermark.OK) {
                prefix++;
            }
            return prefix;
        }

        long watermark() {
            int prefix = prefix();
            return prefix == 0 ? -1 : nextOffsets[prefix - 1];
        }

        View view(long nowNs) {
            int prefix = prefix();
            boolean outstanding = prefix < size;
            return new View(
                    true,
                    epoch,
                    prefix == 0 ? -1 : nextOffsets[prefix - 1],
                    size - prefix,
                    outstanding && states[prefix] == PartitionWatermark.FAILED,
                    lastCommitted,
                    outstanding ? nowNs - registeredAtNs[prefix] : 0);
        }
    }
}
