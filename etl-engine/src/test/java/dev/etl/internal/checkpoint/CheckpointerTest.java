package dev.etl.internal.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import org.agrona.collections.Long2LongHashMap;
import org.junit.jupiter.api.Test;

class CheckpointerTest {
    private long nowNs = 1_000_000;
    private final Checkpointer checkpointer = new Checkpointer(() -> nowNs);

    @Test
    void watermarkIsMinusOneUntilTheFirstBatchIsAcknowledged() {
        checkpointer.assign(0);
        checkpointer.register(0, 10);

        assertThat(checkpointer.watermark(0)).isEqualTo(-1);
        assertThat(checkpointer.outstanding(0)).isEqualTo(1);
    }

    @Test
    void sequenceNumbersStartAtZeroPerEpoch() {
        checkpointer.assign(0);
        assertThat(checkpointer.register(0, 10)).isZero();
        assertThat(checkpointer.register(0, 20)).isEqualTo(1);

        checkpointer.assign(0);
        assertThat(checkpointer.register(0, 5)).isZero();
    }

    @Test
    void outOfOrderAcksAdvanceOnlyTheContiguousPrefix() {
        int epoch = checkpointer.assign(0);
        long s0 = checkpointer.register(0, 10);
        long s1 = checkpointer.register(0, 20);
        long s2 = checkpointer.register(0, 30);
        long s3 = checkpointer.register(0, 40);

        checkpointer.ack(0, epoch, s2, true);
        checkpointer.ack(0, epoch, s1, true);
        assertThat(checkpointer.watermark(0)).isEqualTo(-1);
        assertThat(checkpointer.outstanding(0)).isEqualTo(4);

        checkpointer.ack(0, epoch, s0, true);
        assertThat(checkpointer.watermark(0)).isEqualTo(30);
        assertThat(checkpointer.outstanding(0)).isEqualTo(1);

        checkpointer.ack(0, epoch, s3, true);
        assertThat(checkpointer.watermark(0)).isEqualTo(40);
        assertThat(checkpointer.outstanding(0)).isZero();
    }

    @Test
    void failedBatchStallsItsPartitionButNotOthers() {
        int e0 = checkpointer.assign(0);
        int e1 = checkpointer.assign(1);
        long a0 = checkpointer.register(0, 10);
        long a1 = checkpointer.register(0, 20);
        long a2 = checkpointer.register(0, 30);
        long b0 = checkpointer.register(1, 100);
        long b1 = checkpointer.register(1, 200);

        checkpointer.ack(0, e0, a0, true);
        checkpointer.ack(0, e0, a1, false);
        checkpointer.ack(0, e0, a2, true);
        checkpointer.ack(1, e1, b1, true);
        checkpointer.ack(1, e1, b0, true);

        assertThat(checkpointer.watermark(0)).isEqualTo(10);
        assertThat(checkpointer.isFailedAtHead(0)).isTrue();
        assertThat(checkpointer.outstanding(0)).isEqualTo(2);
        assertThat(checkpointer.watermark(1)).isEqualTo(200);
        assertThat(checkpointer.isFailedAtHead(1)).isFalse();

        long a3 = checkpointer.register(0, 40);
        checkpointer.ack(0, e0, a3, true);
        assertThat(checkpointer.watermark(0))
                .as("stalled for the rest of the epoch")
                .isEqualTo(10);
    }

    @Test
    void failedFirstBatchKeepsWatermarkAtMinusOne() {
        int epoch = checkpointer.assign(0);
        long s0 = checkpointer.register(0, 10);
        long s1 = checkpointer.register(0, 20);

        checkpointer.ack(0, epoch, s1, true);
        checkpointer.ack(0, epoch, s0, false);

        assertThat(checkpointer.watermark(0)).isEqualTo(-1);
        assertThat(checkpointer.isFailedAtHead(0)).isTrue();
    }

    @Test
    void staleEpochAcksAreIgnoredAfterReassign() {
        int oldEpoch = checkpointer.assign(0);
        long oldSeq = checkpointer.register(0, 10);
        int newEpoch = checkpointer.assign(0);
        long newSeq = checkpointer.register(0, 10);
        assertThat(newSeq).isEqualTo(oldSeq);

        checkpointer.ack(0, oldEpoch, oldSeq, true);

        assertThat(checkpointer.watermark(0)).isEqualTo(-1);
        assertThat(checkpointer.outstanding(0)).isEqualTo(1);
        assertThat(checkpointer.staleAcks()).isEqualTo(1);

        checkpointer.ack(0, newEpoch, newSeq, true);
        assertThat(checkpointer.watermark(0)).isEqualTo(10);
    }

    @Test
    void reassignResetsWatermarkAndLastCommitted() {
        int epoch = checkpointer.assign(0);
        checkpointer.ack(0, epoch, checkpointer.register(0, 10), true);
        checkpointer.markCommitted(0, 10);
        checkpointer.register(0, 20);

        checkpointer.assign(0);

        assertThat(checkpointer.watermark(0)).isEqualTo(-1);
        assertThat(checkpointer.lastCommitted(0)).isEqualTo(-1);
        assertThat(checkpointer.outstanding(0)).isZero();
        assertThat(checkpointer.isFailedAtHead(0)).isFalse();
    }

    @Test
    void acksAfterRemoveAreIgnored() {
        int epoch = checkpointer.assign(0);
        long seq = checkpointer.register(0, 10);
        checkpointer.remove(0);

        checkpointer.ack(0, epoch, seq, true);

        assertThat(checkpointer.isAssigned(0)).isFalse();
        assertThat(checkpointer.epoch(0)).isEqualTo(-1);
        assertThat(checkpointer.watermark(0)).isEqualTo(-1);
        assertThat(checkpointer.staleAcks()).isEqualTo(1);
    }

    @Test
    void acksOfAnEarlierAssignmentAreIgnoredAfterRemoveAndAssign() {
        int oldEpoch = checkpointer.assign(0);
        long oldSeq = checkpointer.register(0, 10);
        checkpointer.remove(0);
        checkpointer.assign(0);
        checkpointer.register(0, 10);

        checkpointer.ack(0, oldEpoch, oldSeq, true);

        assertThat(checkpointer.watermark(0)).isEqualTo(-1);
        assertThat(checkpointer.staleAcks()).isEqualTo(1);
    }

    @Test
    void ackForUnknownPartitionIsIgnoredAndCounted() {
        checkpointer.ack(7, 1, 0, true);

        assertThat(checkpointer.staleAcks()).isEqualTo(1);
        assertThat(checkpointer.isAssigned(7)).isFalse();
    }

    @Test
    void duplicateAcksAreIgnored() {
        int epoch = checkpointer.assign(0);
        long s0 = checkpointer.register(0, 10);
        long s1 = checkpointer.register(0, 20);
        long s2 = checkpointer.register(0, 30);

        checkpointer.ack(0, epoch, s1, true);
        checkpointer.ack(0, epoch, s1, false); // duplicate of a pending-behind-gap ack: must not flip it
        checkpointer.ack(0, epoch, s0, true);
        checkpointer.ack(0, epoch, s0, true); // duplicate of a popped batch
        checkpointer.ack(0, epoch, s2, false);
        checkpointer.ack(0, epoch, s2, true); // duplicate of a failed batch: must not heal it

        assertThat(checkpointer.watermark(0)).isEqualTo(20);
        assertThat(checkpointer.isFailedAtHead(0)).isTrue();
        assertThat(checkpointer.staleAcks()).isEqualTo(3);
    }

    @Test
    void ackForSequenceNeverRegisteredIsIgnored() {
        int epoch = checkpointer.assign(0);
        checkpointer.register(0, 10);

        checkpointer.ack(0, epoch, 1, true);
        checkpointer.ack(0, epoch, -1, true);

        assertThat(checkpointer.outstanding(0)).isEqualTo(1);
        assertThat(checkpointer.staleAcks()).isEqualTo(2);
    }

    @Test
    void registerRequiresStrictlyIncreasingOffsets() {
        checkpointer.assign(3);
        checkpointer.register(3, 10);

        assertThatThrownBy(() -> checkpointer.register(3, 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("partition 3")
                .hasMessageContaining("10");
        assertThatThrownBy(() -> checkpointer.register(3, 5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("5")
                .hasMessageContaining("10");
        assertThat(checkpointer.register(3, 11))
                .as("a rejected register does not consume a seq")
                .isEqualTo(1);
    }

    @Test
    void registerRequiresIncreasingOffsetsEvenAfterTheRingDrained() {
        int epoch = checkpointer.assign(0);
        checkpointer.ack(0, epoch, checkpointer.register(0, 10), true);

        assertThatThrownBy(() -> checkpointer.register(0, 10)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void registerRejectsNegativeOffsets() {
        checkpointer.assign(0);

        assertThatThrownBy(() -> checkpointer.register(0, -1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void registerOnUnassignedPartitionThrows() {
        assertThatThrownBy(() -> checkpointer.register(9, 10))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("partition 9");
    }

    @Test
    void ringGrowthBeyondInitialCapacityKeepsCorrectness() {
        Checkpointer small = new Checkpointer(() -> nowNs, 4);
        int epoch = small.assign(0);
        int batches = 10_000;
        for (int i = 0; i < batches; i++) {
            assertThat(small.register(0, (i + 1) * 10L)).isEqualTo(i);
        }
        assertThat(small.outstanding(0)).isEqualTo(batches);

        for (int seq = batches - 1; seq >= 1; seq--) {
            small.ack(0, epoch, seq, true);
            assertThat(small.watermark(0)).isEqualTo(-1);
        }
        small.ack(0, epoch, 0, true);

        assertThat(small.watermark(0)).isEqualTo(batches * 10L);
        assertThat(small.outstanding(0)).isZero();
        assertThat(small.staleAcks()).isZero();
    }

    @Test
    void ringGrowthWhileWrappedKeepsOrder() {
        Checkpointer small = new Checkpointer(() -> nowNs, 4);
        int epoch = small.assign(0);
        // Move head to seq 3 so the ring is wrapped when it has to grow.
        for (int i = 0; i < 3; i++) {
            small.ack(0, epoch, small.register(0, i + 1), true);
        }
        for (int i = 3; i < 12; i++) {
            small.register(0, i + 1);
        }
        for (int seq = 11; seq >= 3; seq--) {
            if (seq != 7) {
                small.ack(0, epoch, seq, true);
            }
        }
        assertThat(small.watermark(0)).isEqualTo(7);

        small.ack(0, epoch, 7, true);
        assertThat(small.watermark(0)).isEqualTo(12);
    }

    @Test
    void watermarkAgeIsTimeSinceOldestOutstandingBatchWasRegistered() {
        int epoch = checkpointer.assign(0);
        checkpointer.assign(1);
        assertThat(checkpointer.watermarkAgeNs(0)).isZero();

        long s0 = checkpointer.register(0, 10);
        nowNs += 500;
        checkpointer.register(0, 20);
        nowNs += 300;
        checkpointer.register(1, 5);
        nowNs += 200;

        assertThat(checkpointer.watermarkAgeNs(0)).isEqualTo(1_000);
        assertThat(checkpointer.watermarkAgeNs(1)).isEqualTo(200);
        assertThat(checkpointer.maxWatermarkAgeNs()).isEqualTo(1_000);

        checkpointer.ack(0, epoch, s0, true);
        assertThat(checkpointer.watermarkAgeNs(0)).isEqualTo(500);

        checkpointer.ack(0, epoch, 1, true);
        assertThat(checkpointer.watermarkAgeNs(0)).isZero();
        assertThat(checkpointer.maxWatermarkAgeNs()).isEqualTo(200);
    }

    @Test
    void watermarkAgeKeepsGrowingBehindAFailedBatch() {
        int epoch = checkpointer.assign(0);
        checkpointer.ack(0, epoch, checkpointer.register(0, 10), false);

        nowNs += 5_000;

        assertThat(checkpointer.watermarkAgeNs(0)).isEqualTo(5_000);
    }

    @Test
    void maxWatermarkAgeIsZeroWithoutPartitions() {
        assertThat(checkpointer.maxWatermarkAgeNs()).isZero();
        assertThat(checkpointer.watermarkAgeNs(4)).isZero();
    }

    @Test
    void collectCommittableReportsOnlyWatermarksAheadOfLastCommitted() {
        int e0 = checkpointer.assign(0);
        int e1 = checkpointer.assign(1);
        checkpointer.assign(2);
        checkpointer.ack(0, e0, checkpointer.register(0, 10), true);
        checkpointer.ack(1, e1, checkpointer.register(1, 50), true);
        checkpointer.register(2, 70);
        checkpointer.markCommitted(1, 50);

        Long2LongHashMap out = new Long2LongHashMap(-1);
        out.put(99, 123);
        int count = checkpointer.collectCommittable(out);

        assertThat(count).isEqualTo(1);
        assertThat(out.get(0)).isEqualTo(10);
        assertThat(out.containsKey(1)).isFalse();
        assertThat(out.containsKey(2)).isFalse();
        assertThat(out.get(99)).as("out is not cleared").isEqualTo(123);
    }

    @Test
    void markCommittedOnlyMovesForward() {
        int epoch = checkpointer.assign(0);
        checkpointer.ack(0, epoch, checkpointer.register(0, 10), true);
        checkpointer.ack(0, epoch, checkpointer.register(0, 20), true);

        checkpointer.markCommitted(0, 20);
        checkpointer.markCommitted(0, 10);

        assertThat(checkpointer.lastCommitted(0)).isEqualTo(20);
        assertThat(checkpointer.collectCommittable(new Long2LongHashMap(-1))).isZero();

        checkpointer.ack(0, epoch, checkpointer.register(0, 30), true);
        Long2LongHashMap out = new Long2LongHashMap(-1);
        assertThat(checkpointer.collectCommittable(out)).isEqualTo(1);
        assertThat(out.get(0)).isEqualTo(30);
    }

    @Test
    void markCommittedOnUnassignedPartitionIsIgnored() {
        checkpointer.markCommitted(5, 10);

        assertThat(checkpointer.lastCommitted(5)).isEqualTo(-1);
        assertThat(checkpointer.isAssigned(5)).isFalse();
    }

    @Test
    void epochStrictlyIncreasesAcrossRemoveAndAssign() {
        int previous = checkpointer.epoch(0);
        for (int round = 0; round < 100; round++) {
            int epoch = checkpointer.assign(0);
            assertThat(epoch).isGreaterThan(previous);
            assertThat(checkpointer.epoch(0)).isEqualTo(epoch);
            if (round % 3 == 0) {
                checkpointer.remove(0);
            }
            checkpointer.assign(1); // other partitions interleave
            previous = epoch;
        }
    }

    @Test
    void outstandingAndPartitionsCoverAllAssigned() {
        checkpointer.assign(0);
        checkpointer.assign(4);
        checkpointer.register(0, 1);
        checkpointer.register(0, 2);
        checkpointer.register(4, 1);

        assertThat(checkpointer.outstanding()).isEqualTo(3);
        assertThat(checkpointer.partitions()).containsExactlyInAnyOrder(0, 4);

        checkpointer.remove(0);
        assertThat(checkpointer.outstanding()).isEqualTo(1);
        assertThat(checkpointer.partitions()).containsExactly(4);
    }

    @Test
    void ackRefIsAppliedWithItsMergedStatus() {
        AckQueue queue = new AckQueue();
        int epoch = checkpointer.assign(0);
        AckRef first = new AckRef(0, epoch, checkpointer.register(0, 10), queue);
        AckRef second = new AckRef(0, epoch, checkpointer.register(0, 20), queue);
        second.retain();
        second.release(true);
        second.release(false);
        first.release(true);

        assertThat(queue.drain(checkpointer::ack)).isEqualTo(2);

        assertThat(checkpointer.watermark(0)).isEqualTo(10);
        assertThat(checkpointer.isFailedAtHead(0)).isTrue();
    }

    @Test
    void registerAndAckDoNotAllocateInSteadyState() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long threadId = Thread.currentThread().getId();
        int e0 = checkpointer.assign(0);
        int e1 = checkpointer.assign(1);
        runOutOfOrderRounds(e0, e1, 0, 2_000); // warm up: JIT, ring at its working size
        long before = threads.getThreadAllocatedBytes(threadId);
        runOutOfOrderRounds(e0, e1, 2_000, 20_000);
        long allocated = threads.getThreadAllocatedBytes(threadId) - before;

        assertThat(checkpointer.watermark(0)).isEqualTo(22_000L * 4 * 10);
        assertThat(allocated).as("bytes allocated by 176k register/ack calls").isLessThan(1_024);
    }

    /** Registers 4 batches per partition per round and acks them in reverse. */
    private void runOutOfOrderRounds(int e0, int e1, int firstRound, int rounds) {
        for (int round = firstRound; round < firstRound + rounds; round++) {
            long first = checkpointer.register(0, (round * 4L + 1) * 10);
            checkpointer.register(1, (round * 4L + 1) * 10);
            for (int i = 2; i <= 4; i++) {
                checkpointer.register(0, (round * 4L + i) * 10);
                checkpointer.register(1, (round * 4L + i) * 10);
            }
            for (long seq = first + 3; seq >= first; seq--) {
                checkpointer.ack(0, e0, seq, true);
                checkpointer.ack(1, e1, seq, true);
            }
        }
    }

    @Test
    void rejectsInvalidRingCapacity() {
        assertThatThrownBy(() -> new Checkpointer(() -> 0, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
