package dev.etl.source;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The base's bookkeeping: pauses independent of each other and forgotten with the assignment, the
 * listener's order, callbacks from the next poll, and no allocation in what a poll loop calls (the
 * engine's hot path allocates nothing per record, and a source built on the base must not start to).
 */
class AbstractSourceLaneTest {

    /** A lane whose poll is driven by the test. */
    private static final class TestLane extends AbstractSourceLane {
        int closes;

        TestLane(PartitionListener listener) {
            super(listener);
        }

        @Override
        public void poll(long timeoutMs, BatchHandler handler) {
            reportCommits();
        }

        @Override
        public void commit(CommitOffsets offsets, boolean sync, CommitCallback callback) {
            reportCommits();
            if (!sync) {
                reportLater(offsets, callback, null);
            }
        }

        @Override
        public String describe(int partition) {
            return "test-" + partition;
        }

        @Override
        protected void closeLane() {
            closes++;
        }
    }

    private static final class Events implements PartitionListener {
        final List<String> seen = new ArrayList<>();
        TestLane lane;

        @Override
        public void onAssigned(int[] partitions) {
            seen.add("assigned " + partitions.length + " assigned=" + lane.isAssigned(partitions[0]));
        }

        @Override
        public void onRevoked(int[] partitions) {
            seen.add("revoked " + partitions.length + " assigned=" + lane.isAssigned(partitions[0]));
        }

        @Override
        public void onLost(int[] partitions) {
            seen.add("lost " + partitions.length + " assigned=" + lane.isAssigned(partitions[0]));
        }
    }

    private static TestLane lane(Events events) {
        TestLane lane = new TestLane(events);
        events.lane = lane;
        return lane;
    }

    @Test
    void thePausesAreIndependentAndAPartitionsOwnEndsWithItsAssignment() {
        TestLane lane = lane(new Events());
        lane.assign(3, 70, 200);
        assertThat(lane.assignedPartitions()).containsExactly(3, 70, 200);
        assertThat(lane.isDeliverable(70)).isTrue();

        lane.pausePartition(70);
        lane.pausePartition(5); // not assigned: no-op
        assertThat(lane.isPartitionPaused(5)).isFalse();
        assertThat(lane.isDeliverable(70)).isFalse();
        lane.pause();
        assertThat(lane.isDeliverable(3)).isFalse();
        lane.resume();
        assertThat(lane.isDeliverable(3)).isTrue();
        assertThat(lane.isDeliverable(70))
                .as("resume() leaves a partition paused on its own")
                .isFalse();

        lane.revoke(70);
        assertThat(lane.isAssigned(70)).isFalse();
        assertThat(lane.assignedPartitions()).containsExactly(3, 200);
        lane.assign(70);
        assertThat(lane.isDeliverable(70))
                .as("a new assignment starts unpaused")
                .isTrue();

        lane.pause();
        lane.assign(9);
        assertThat(lane.isDeliverable(9))
                .as("assigned while the lane is paused")
                .isFalse();
        assertThat(lane.isDeliverable(-1)).isFalse();
    }

    @Test
    void revokedPartitionsAreStillAssignedDuringTheCallbackLostOnesAreNot() {
        Events events = new Events();
        TestLane lane = lane(events);
        lane.assign(1, 2);
        lane.revoke(1);
        lane.lose(2);
        assertThat(events.seen)
                .containsExactly("assigned 2 assigned=true", "revoked 1 assigned=true", "lost 1 assigned=false");
        assertThat(lane.assignedCount()).isZero();
    }

    @Test
    void asynchronousOutcomesArriveFromTheNextPollInOrderAndCloseRunsOnce() {
        TestLane lane = lane(new Events());
        List<CommitOffsets> outcomes = new ArrayList<>();
        List<CommitOffsets> sent = new ArrayList<>();
        for (int i = 0; i < 10; i++) { // past the ring's first capacity
            CommitOffsets offsets = CommitOffsets.builder(1).add(0, i, null).build();
            sent.add(offsets);
            lane.reportLater(offsets, (o, e) -> outcomes.add(o), null);
        }
        assertThat(outcomes).isEmpty();
        lane.poll(0, batch -> {});
        assertThat(outcomes).containsExactlyElementsOf(sent);

        lane.close();
        lane.close();
        assertThat(lane.closes).isEqualTo(1);
        assertThat(lane.isClosed()).isTrue();
    }

    @Test
    void wakeupBeforeAParkEndsItAtOnce() {
        TestLane lane = lane(new Events());
        lane.wakeup();
        long started = System.nanoTime();
        assertThat(lane.parkPoll(60_000_000_000L)).isTrue();
        assertThat(System.nanoTime() - started).isLessThan(10_000_000_000L);
        assertThat(lane.takeWakeup()).isFalse();
    }

    @Test
    void whatAPollLoopCallsAllocatesNothing() {
        TestLane lane = lane(new Events());
        lane.assign(0, 1, 2, 3, 130);
        CommitOffsets offsets = CommitOffsets.builder(1).add(0, 1, null).build();
        SourceLane.CommitCallback callback = (o, e) -> {};
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long delivered = 0;
        long allocated = 0;
        for (int round = 0; round < 3; round++) {
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 200_000; i++) {
                lane.pausePartition(i & 3);
                for (int k = 0; k < lane.assignedCount(); k++) {
                    if (lane.isDeliverable(lane.assignedPartition(k))) {
                        delivered++;
                    }
                }
                lane.resumePartition(i & 3);
                lane.reportLater(offsets, callback, null);
                lane.poll(0, null);
                lane.takeWakeup();
            }
            long after = threads.getCurrentThreadAllocatedBytes();
            if (round > 0) { // the first round warms up the JIT
                allocated += after - before;
            }
        }
        assertThat(delivered).isPositive();
        assertThat(allocated)
                .as("bytes allocated by 400,000 polls' bookkeeping")
                .isLessThan(64 * 1024);
    }
}
