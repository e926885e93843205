package dev.etl.internal.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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
 * <p>Written as a small seeded harness on plain JUnit rather than with jqwik: jqwik 1.10 asks not
 * to be used by AI coding agents (its "Anti-AI Usage Clause"), and it targets JUnit Platform 1.x
 * while this build runs Platform 6.
 */
class CheckpointerPropertiesTest {
    private static final int PARTITIONS = 3;
    /** Never assigned: acks for it must always be stale. */
    private static final int UNKNOWN_PARTITION = 99;

    private static final int[] RING_CAPACITIES = {1, 2, 4, 256};

    @Test
    void randomOperationSequencesMatchTheReferenceModel() {
        forEachSeed(1_500, seed -> new OperationScenario(seed).run(250));
    }

    @Test
    void shuffledAcksWithEpochBumpsMatchTheReferenceModelAndEndBeforeTheFirstFailure() {
        forEachSeed(800, seed -> new ShuffledAckScenario(seed).run());
    }

    private interface Scenario {
        void run(long seed);
    }

    private static void forEachSeed(int scenarios, Scenario scenario) {
        Long replay = Long.getLong("checkpointer.properties.seed");
        if (replay != null) {
            scenario.run(replay);
            return;
        }
        long baseSeed = new SplittableRandom().nextLong();
        for (int i = 0; i < scenarios; i++) {
            scenario.run(baseSeed + i);
        }
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
            this.harness = new Harness(seed, RING_CAPACITIES[random.nextInt(RING_CAPACITIES.length)]);
        }

        void run(int steps) {
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
                harness.checkAll();
            }
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
            this.harness = new Harness(seed, RING_CAPACITIES[random.nextInt(RING_CAPACITIES.length)]);
            this.failurePercent = random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(8);
        }

        void run() {
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
                harness.checkAll();
            }
            harness.checkAllAcknowledged();
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
        private final long seed;
        private final int ringCapacity;
        private final ModelPartition[] model = new ModelPartition[PARTITIONS];
        private final int[] highestEpoch = new int[PARTITIONS];
        private final List<long[]> issued = new ArrayList<>(); // {partition, epoch, seq}
        private final List<String> trace = new ArrayList<>();
        private final Long2LongHashMap committable = new Long2LongHashMap(-1);
        private long nowNs = 1_000;
        private long expectedStale;

        Harness(long seed, int ringCapacity) {
            this.seed = seed;
            this.ringCapacity = ringCapacity;
            this.checkpointer = new Checkpointer(() -> nowNs, ringCapacity);
            Arrays.fill(highestEpoch, -1);
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

        void ack(int partition, int epoch, long seq, boolean success) {
            trace.add("ack(" + partition + ", epoch " + epoch + ", seq " + seq + ", " + (success ? "ok" : "FAILED")
                    + ")");
            checkpointer.ack(partition, epoch, seq, success);
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
                    + ringCapacity + ", failing after step " + trace.size() + "; last steps:\n  "
                    + String.join("\n  ", trace.subList(from, trace.size()));
        }
    }

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
