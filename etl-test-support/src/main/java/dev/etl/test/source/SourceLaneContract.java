package dev.etl.test.source;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.etl.source.BatchHandler;
import dev.etl.source.CommitOffsets;
import dev.etl.source.CommittedPosition;
import dev.etl.source.PartitionBatch;
import dev.etl.source.PartitionListener;
import dev.etl.source.Source;
import dev.etl.source.SourceLane;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract the engine relies on from every {@link SourceLane}, as tests that a source implementation
 * inherits (like Micrometer's kit for registry implementers). Extend it in your source's tests and create
 * the source under test:
 *
 * <pre>{@code
 * class MySourceLaneTest extends SourceLaneContract {
 *     @Override
 *     protected Source createSource() {
 *         return new MySource(...);  // lane 0 gets two or more partitions with plenty of records
 *     }
 * }
 * }</pre>
 *
 * <p>Each test creates a source ({@link #createSource()}), opens its lane 0 on the test thread and drives it
 * as a pipeline's lane does: polls with short timeouts, pauses, commits what it was given, and asks for
 * names. What the source under test must provide: within a few polls of opening (after
 * {@link #laneOpened}), lane 0 is assigned at least one partition, and two or more for the per-partition
 * tests (skipped otherwise); every assigned partition has records to read beyond what the kit reads, which
 * is at most a few hundred batches per partition (so keep batches small: a few records per poll). A source
 * that can script rebalances overrides {@link #assign}, {@link #revoke} and {@link #lose}; the tests that
 * need them are skipped otherwise.
 *
 * <p>What it checks:
 * <ul>
 *   <li>assignment changes are reported on the polling thread from inside {@code poll}, an assignment
 *       before any batch of its partitions, and {@link SourceLane#hasJoined()} holds once one is;</li>
 *   <li>batches are well formed: of an assigned partition, {@code size()} records in strictly increasing
 *       offsets, {@code lastOffset()} at or past the last record and strictly increasing from batch to
 *       batch, never a record at or below one delivered before, the first at or past the committed
 *       position reported at assignment; delivered only from inside {@code poll};</li>
 *   <li>{@link SourceLane#pause()} stops every partition's records (also of a partition assigned while
 *       paused) and {@link SourceLane#resume()} restarts them where they stopped; a poll while paused still
 *       returns within its timeout;</li>
 *   <li>{@link SourceLane#pausePartition} stops one partition whatever the lane-wide pause, also when called
 *       from inside the handler of its batch; {@code resume()} leaves it paused;
 *       {@link SourceLane#resumePartition} restarts it where it stopped; both are no-ops for a partition
 *       not assigned; a partition assigned again starts unpaused;</li>
 *   <li>{@link SourceLane#wakeup()} from another thread ends a blocked poll early;</li>
 *   <li>a synchronous commit of delivered offsets returns; an asynchronous one reports to its callback
 *       exactly once, on the lane thread, with the same {@link CommitOffsets}, by the end of the next poll;
 *       a commit from inside {@link PartitionListener#onRevoked} succeeds (the source keeps ownership until
 *       the callback returns); a source that keeps positions reports the committed offset and metadata
 *       when the partition is assigned again, and reading restarts there;</li>
 *   <li>after {@code onRevoked} or {@code onLost}, no more batches of those partitions;</li>
 *   <li>{@link SourceLane#describe}, {@link SourceLane#partitionIdentity} and {@link SourceLane#topic} are
 *       non-blank and the same on every call, and partitions have distinct names and identities;</li>
 *   <li>{@link SourceLane#close()} may be called twice, also on a lane never polled.</li>
 * </ul>
 */
public abstract class SourceLaneContract {
    /** The poll timeout the kit uses while waiting for something to happen. */
    private static final long POLL_MS = 20;
    /** Polls that must stay empty for "no batches" to hold. */
    private static final int QUIET_POLLS = 5;

    private Source source;
    private SourceLane lane;
    private Recorder recorder;

    /**
     * A new source under test, for one test. Its lane 0 must get one or more partitions (two or more for
     * the per-partition tests) with records to read; see the class description.
     */
    protected abstract Source createSource() throws Exception;

    /**
     * Called after the kit opened lane {@code laneIndex}, before its first poll: a source whose
     * assignments are scripted assigns its partitions here. The default does nothing.
     */
    protected void laneOpened(int laneIndex) throws Exception {}

    /**
     * Gives {@code partition} (not assigned) to lane 0, reported from inside a later poll; false when the
     * source cannot script that (the default), which skips the tests that need it. A partition given here
     * must have records to read, like the first ones.
     */
    protected boolean assign(int partition) throws Exception {
        return false;
    }

    /** Revokes {@code partition} from lane 0 in an orderly way, reported from inside a later poll; false by default. */
    protected boolean revoke(int partition) throws Exception {
        return false;
    }

    /** Takes {@code partition} from lane 0 without an orderly revoke, reported from inside a later poll; false by default. */
    protected boolean lose(int partition) throws Exception {
        return false;
    }

    /** How long the kit waits for something that should happen (an assignment, a batch, a callback). */
    protected Duration timeout() {
        return Duration.ofSeconds(30);
    }

    /** The lane under test (lane 0 of the source), for a subclass's own tests. */
    protected final SourceLane lane() {
        return lane;
    }

    @BeforeEach
    final void openLane() throws Exception {
        source = createSource();
        assertNotNull(source, "createSource() returned null");
        recorder = new Recorder();
        lane = source.openLane(0, recorder);
        assertNotNull(lane, "openLane returned null");
        recorder.lane = lane;
        laneOpened(0);
    }

    @AfterEach
    final void closeLane() {
        try {
            if (lane != null) {
                lane.close();
            }
        } finally {
            if (source != null) {
                source.close();
            }
        }
    }

    // ----------------------------------------------------------------- tests

    @Test
    void reportsAnAssignmentOnTheLaneThreadFromInsideAPollBeforeAnyBatchOfIt() {
        pollUntil(() -> !recorder.assigned.isEmpty(), "an assignment to lane 0");
        pollUntil(
                () -> recorder.partitionsWithRecords().size() == recorder.assigned.size(),
                "records of every assigned partition");
        assertTrue(lane.hasJoined(), "hasJoined() once an assignment was reported");
        recorder.assertNoViolations();
    }

    @Test
    void deliversWellFormedBatches() {
        pollUntil(() -> !recorder.assigned.isEmpty(), "an assignment to lane 0");
        for (int partition : recorder.assigned) {
            pollUntil(() -> recorder.batchesOf(partition) >= 5, "five batches of " + lane.describe(partition));
        }
        recorder.assertNoViolations();
    }

    @Test
    void deliversNothingWhilePausedAndContinuesAfterResume() {
        int partition = firstPartitionWithRecords();
        lane.pause();
        assertTrue(lane.isPaused(), "isPaused() after pause()");
        pollQuietly();
        assertEquals(0, recorder.batchesSinceMark(), "batches while the lane is paused");
        lane.resume();
        assertFalse(lane.isPaused(), "isPaused() after resume()");
        pollUntil(
                () -> recorder.batchesSinceMarkOf(partition) > 0,
                "records of " + lane.describe(partition) + " after resume()");
        recorder.assertNoViolations();
    }

    @Test
    void aPollWhilePausedReturnsWithinItsTimeout() {
        firstPartitionWithRecords();
        lane.pause();
        long timeoutMs = 200;
        long started = System.nanoTime();
        poll(timeoutMs);
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertTrue(tookMs < timeoutMs + 5_000, "a paused poll of " + timeoutMs + " ms took " + tookMs + " ms");
        recorder.assertNoViolations();
    }

    @Test
    void pausesOnePartitionWhateverTheLaneWidePause() {
        int[] two = twoPartitionsWithRecords();
        int paused = two[0];
        int other = two[1];
        lane.pausePartition(paused);
        recorder.mark();
        pollUntil(
                () -> recorder.batchesSinceMarkOf(other) >= 3,
                "records of " + lane.describe(other) + " while " + lane.describe(paused) + " is paused on its own");
        assertEquals(0, recorder.batchesSinceMarkOf(paused), "batches of a partition paused on its own");

        lane.pause();
        lane.resume(); // resumes the lane, not the partition paused on its own
        recorder.mark();
        pollUntil(
                () -> recorder.batchesSinceMarkOf(other) >= 3,
                "records of " + lane.describe(other) + " after resume()");
        assertEquals(0, recorder.batchesSinceMarkOf(paused), "batches of a partition paused on its own after resume()");

        lane.pause();
        lane.resumePartition(paused); // the lane-wide pause still applies
        recorder.mark();
        pollQuietly();
        assertEquals(0, recorder.batchesSinceMark(), "batches while the lane is paused");
        lane.resume();
        pollUntil(
                () -> recorder.batchesSinceMarkOf(paused) > 0,
                "records of " + lane.describe(paused) + " after resumePartition()");
        recorder.assertNoViolations();
    }

    @Test
    void aPartitionPausedFromInsideItsBatchGetsNoFurtherBatches() {
        int partition = firstPartitionWithRecords();
        AtomicInteger pausedAt = new AtomicInteger();
        recorder.onBatch = batch -> {
            if (batch.partition() == partition && pausedAt.get() == 0) {
                lane.pausePartition(partition); // as the engine does when the partition's oldest batch stalls
                pausedAt.set(recorder.batchesOf(partition));
            }
        };
        pollUntil(() -> pausedAt.get() > 0, "a batch of " + lane.describe(partition));
        recorder.onBatch = null;
        pollQuietly();
        assertEquals(pausedAt.get(), recorder.batchesOf(partition), "batches after pausePartition from inside a batch");
        lane.resumePartition(partition);
        pollUntil(
                () -> recorder.batchesOf(partition) > pausedAt.get(),
                "records of " + lane.describe(partition) + " after resumePartition()");
        recorder.assertNoViolations();
    }

    @Test
    void pausingOrResumingAPartitionNotAssignedDoesNothing() {
        firstPartitionWithRecords();
        int unassigned = unassignedPartition();
        assertDoesNotThrow(() -> lane.pausePartition(unassigned));
        assertDoesNotThrow(() -> lane.resumePartition(unassigned));
        assertFalse(lane.isPaused(), "isPaused() after pausing a partition not assigned");
        recorder.mark();
        int partition = recorder.assigned.iterator().next();
        pollUntil(() -> recorder.batchesSinceMarkOf(partition) > 0, "records of " + lane.describe(partition));
        recorder.assertNoViolations();
    }

    @Test
    void wakeupEndsABlockedPollFromAnotherThread() throws Exception {
        firstPartitionWithRecords();
        lane.pause(); // nothing to deliver: the poll waits its whole timeout unless woken
        Thread waker = new Thread(
                () -> {
                    try {
                        Thread.sleep(200);
                    } catch (InterruptedException e) {
                        return;
                    }
                    lane.wakeup();
                },
                "source-lane-contract-waker");
        long timeoutMs = 60_000;
        long started = System.nanoTime();
        waker.start();
        poll(timeoutMs);
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        waker.join();
        assertTrue(tookMs < 20_000, "a poll of " + timeoutMs + " ms woken after 200 ms took " + tookMs + " ms");
        recorder.assertNoViolations();
    }

    @Test
    void aSynchronousCommitOfDeliveredOffsetsReturns() {
        int partition = firstPartitionWithRecords();
        long next = recorder.lastOffset(partition) + 1;
        assertDoesNotThrow(() ->
                lane.commit(CommitOffsets.builder(1).add(partition, next, "kit").build(), true, null));
        pollUntil(
                () -> recorder.batchesOf(partition) > 1, "records of " + lane.describe(partition) + " after a commit");
        recorder.assertNoViolations();
    }

    @Test
    void anAsynchronousCommitReportsOnceOnTheLaneThreadByTheEndOfTheNextPoll() {
        int partition = firstPartitionWithRecords();
        CommitOffsets offsets = CommitOffsets.builder(1)
                .add(partition, recorder.lastOffset(partition) + 1, "kit")
                .build();
        List<Object[]> outcomes = new ArrayList<>();
        Thread laneThread = Thread.currentThread();
        lane.commit(offsets, false, (committed, error) -> {
            outcomes.add(new Object[] {committed, error, Thread.currentThread()});
        });
        long deadline = System.nanoTime() + timeout().toNanos();
        while (outcomes.isEmpty() && System.nanoTime() - deadline < 0) {
            poll(POLL_MS); // a source whose commits complete remotely reports from a later poll
        }
        pollQuietly();
        assertEquals(1, outcomes.size(), "callbacks of one asynchronous commit");
        Object[] outcome = outcomes.get(0);
        assertSame(offsets, outcome[0], "the callback gets the CommitOffsets it was given");
        assertEquals(null, outcome[1], "the error of a commit of delivered offsets");
        assertSame(laneThread, outcome[2], "the callback runs on the lane thread");
        recorder.assertNoViolations();
    }

    @Test
    void namesAreStableNonBlankAndDistinct() {
        pollUntil(() -> !recorder.assigned.isEmpty(), "an assignment to lane 0");
        Map<Integer, List<String>> first = new HashMap<>();
        for (int partition : recorder.assigned) {
            first.put(partition, names(partition));
        }
        firstPartitionWithRecords();
        lane.pause();
        poll(POLL_MS);
        lane.resume();
        Set<String> described = new HashSet<>();
        Set<String> identities = new HashSet<>();
        for (int partition : recorder.assigned) {
            List<String> names = names(partition);
            assertEquals(first.get(partition), names, "describe, partitionIdentity and topic, asked again");
            for (String name : names) {
                assertNotNull(name, "a name of partition " + partition);
                assertFalse(name.isBlank(), "a name of partition " + partition + " is blank");
            }
            assertTrue(described.add(names.get(0)), "two partitions described as " + names.get(0));
            assertTrue(identities.add(names.get(1)), "two partitions with the identity " + names.get(1));
        }
        recorder.assertNoViolations();
    }

    @Test
    void closeMayBeCalledTwice() {
        firstPartitionWithRecords();
        assertDoesNotThrow(lane::close);
        assertDoesNotThrow(lane::close);
    }

    @Test
    void closeMayBeCalledTwiceOnALaneNeverPolled() {
        assertDoesNotThrow(lane::close);
        assertDoesNotThrow(lane::close);
    }

    @Test
    void aRevokedPartitionMayBeCommittedInsideTheCallbackAndGetsNoFurtherBatches() throws Exception {
        int[] two = twoPartitionsWithRecords();
        int partition = two[0];
        lane.pausePartition(partition); // a new assignment starts unpaused
        long next = recorder.lastOffset(partition) + 1;
        List<Exception> commitFailures = new ArrayList<>();
        recorder.onRevoked = revoked -> {
            for (int p : revoked) {
                if (p == partition) {
                    try {
                        lane.commit(
                                CommitOffsets.builder(1)
                                        .add(p, next, "kit-revoke")
                                        .build(),
                                true,
                                null);
                    } catch (RuntimeException e) {
                        commitFailures.add(e);
                    }
                }
            }
        };
        assumeTrue(revoke(partition), "the source cannot script an orderly revoke");
        pollUntil(() -> recorder.revoked.contains(partition), "the revocation of " + partition);
        assertEquals(List.of(), commitFailures, "a synchronous commit from inside onRevoked");
        recorder.mark();
        pollUntil(() -> recorder.batchesSinceMarkOf(two[1]) >= 2, "records of the partition still assigned");
        assertEquals(0, recorder.batchesSinceMarkOf(partition), "batches of a revoked partition");

        if (assign(partition)) {
            pollUntil(() -> recorder.assigned.contains(partition), "the assignment of " + partition + " again");
            CommittedPosition position = recorder.committedAtAssignment.get(partition);
            assertNotNull(position, "committed() at assignment");
            if (position.offset() >= 0) {
                assertEquals(next, position.offset(), "the committed offset when assigned again");
                assertEquals("kit-revoke", position.metadata(), "the committed metadata when assigned again");
            }
            pollUntil(
                    () -> recorder.batchesSinceMarkOf(partition) > 0,
                    "records of " + partition
                            + " assigned again (paused on its own before it was revoked: starts unpaused)");
        }
        recorder.assertNoViolations();
    }

    @Test
    void aLostPartitionGetsNoFurtherBatches() throws Exception {
        int[] two = twoPartitionsWithRecords();
        int partition = two[0];
        assumeTrue(lose(partition), "the source cannot script a lost partition");
        pollUntil(() -> recorder.lost.contains(partition), "the loss of " + partition);
        recorder.mark();
        pollUntil(() -> recorder.batchesSinceMarkOf(two[1]) >= 2, "records of the partition still assigned");
        assertEquals(0, recorder.batchesSinceMarkOf(partition), "batches of a lost partition");
        recorder.assertNoViolations();
    }

    @Test
    void aPartitionAssignedWhileTheLaneIsPausedStaysPausedUntilResume() throws Exception {
        int[] two = twoPartitionsWithRecords();
        int partition = two[0];
        assumeTrue(revoke(partition), "the source cannot script an orderly revoke");
        pollUntil(() -> recorder.revoked.contains(partition), "the revocation of " + partition);
        lane.pause();
        assumeTrue(assign(partition), "the source cannot script an assignment");
        recorder.mark();
        pollUntil(() -> recorder.assigned.contains(partition), "the assignment of " + partition + " again");
        pollQuietly();
        assertEquals(0, recorder.batchesSinceMark(), "batches while the lane is paused");
        lane.resume();
        pollUntil(() -> recorder.batchesSinceMarkOf(partition) > 0, "records of " + partition + " after resume()");
        recorder.assertNoViolations();
    }

    // --------------------------------------------------------------- helpers

    private List<String> names(int partition) {
        return List.of(lane.describe(partition), lane.partitionIdentity(partition), lane.topic(partition));
    }

    /** Polls until a partition delivered records; returns it. */
    private int firstPartitionWithRecords() {
        pollUntil(() -> !recorder.partitionsWithRecords().isEmpty(), "records of a partition of lane 0");
        recorder.mark();
        return recorder.partitionsWithRecords().iterator().next();
    }

    /** Polls until two partitions delivered records (skips the test when lane 0 has only one). */
    private int[] twoPartitionsWithRecords() {
        pollUntil(() -> !recorder.assigned.isEmpty(), "an assignment to lane 0");
        assumeTrue(recorder.assigned.size() >= 2, "lane 0 has fewer than two partitions");
        pollUntil(() -> recorder.partitionsWithRecords().size() >= 2, "records of two partitions of lane 0");
        recorder.mark();
        var it = recorder.partitionsWithRecords().iterator();
        return new int[] {it.next(), it.next()};
    }

    private int unassignedPartition() {
        int max = 0;
        for (int partition : recorder.assigned) {
            max = Math.max(max, partition);
        }
        return max + 1000;
    }

    private void poll(long timeoutMs) {
        recorder.inPoll = true;
        try {
            lane.poll(timeoutMs, recorder);
        } finally {
            recorder.inPoll = false;
        }
    }

    /** A few polls in which something might arrive (but should not), and a little time for it. */
    private void pollQuietly() {
        for (int i = 0; i < QUIET_POLLS; i++) {
            poll(POLL_MS);
        }
    }

    private void pollUntil(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + timeout().toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline >= 0) {
                recorder.assertNoViolations();
                fail("waited " + timeout() + " for " + what + "; seen: " + recorder.summary());
            }
            poll(POLL_MS);
        }
    }

    /** The kit's lane: records what the source reports and checks it as it comes. */
    private static final class Recorder implements PartitionListener, BatchHandler {
        private final Thread laneThread = Thread.currentThread();
        private final List<String> violations = new ArrayList<>();
        final Set<Integer> assigned = new LinkedHashSet<>();
        final Set<Integer> revoked = new HashSet<>();
        final Set<Integer> lost = new HashSet<>();
        final Map<Integer, CommittedPosition> committedAtAssignment = new HashMap<>();
        /** Per partition: lastOffset() of its last batch, or absent before its first since assignment. */
        private final Map<Integer, Long> lastOffsets = new HashMap<>();
        /** Per partition: the highest record offset delivered (across assignments). */
        private final Map<Integer, Long> highestRecord = new HashMap<>();

        private final Map<Integer, Integer> batches = new HashMap<>();
        private final Map<Integer, Integer> batchesAtMark = new HashMap<>();
        private final Set<Integer> withRecords = new LinkedHashSet<>();
        SourceLane lane;
        boolean inPoll;
        Consumer<PartitionBatch> onBatch;
        Consumer<int[]> onRevoked;

        @Override
        public void onAssigned(int[] partitions) {
            where("onAssigned");
            for (int partition : partitions) {
                assigned.add(partition);
                revoked.remove(partition);
                lost.remove(partition);
                lastOffsets.remove(partition);
                CommittedPosition position = lane.committed(partition);
                if (position == null) {
                    violations.add("committed(" + partition + ") returned null inside onAssigned");
                } else {
                    committedAtAssignment.put(partition, position);
                }
            }
        }

        @Override
        public void onRevoked(int[] partitions) {
            where("onRevoked");
            for (int partition : partitions) {
                if (!assigned.contains(partition)) {
                    violations.add("onRevoked of partition " + partition + ", not assigned");
                }
            }
            if (onRevoked != null) {
                onRevoked.accept(partitions);
            }
            for (int partition : partitions) {
                assigned.remove(partition);
                revoked.add(partition);
            }
        }

        @Override
        public void onLost(int[] partitions) {
            where("onLost");
            for (int partition : partitions) {
                assigned.remove(partition);
                lost.add(partition);
            }
        }

        @Override
        public void onBatch(PartitionBatch batch) {
            where("onBatch");
            int partition = batch.partition();
            String name = "batch of partition " + partition;
            if (!assigned.contains(partition)) {
                violations.add(name + ", which is not assigned (or whose assignment was not reported first)");
            }
            Long previousLast = lastOffsets.get(partition);
            long previous =
                    Math.max(previousLast == null ? -1 : previousLast, highestRecord.getOrDefault(partition, -1L));
            CommittedPosition committed = committedAtAssignment.get(partition);
            int count = 0;
            long last = -1;
            while (batch.next()) {
                long offset = batch.offset();
                if (count == 0
                        && previousLast == null
                        && committed != null
                        && committed.offset() >= 0
                        && offset < committed.offset()) {
                    violations.add(name + ": its first record " + offset + " is below the committed position "
                            + committed.offset() + " reported at assignment");
                }
                if (count > 0 && offset <= last) {
                    violations.add(name + ": offset " + offset + " after " + last + " in one batch");
                } else if (count == 0 && previousLast != null && offset <= previous) {
                    violations.add(name + ": offset " + offset + " delivered again (up to " + previous + " before)");
                }
                if (batch.key() == null || batch.value() == null) {
                    violations.add(name + ": null key() or value() (absent is an empty Payload, not null)");
                }
                last = offset;
                count++;
            }
            if (batch.next()) {
                violations.add(name + ": next() true again after it returned false");
            }
            if (count != batch.size()) {
                violations.add(name + ": size() " + batch.size() + " but " + count + " records");
            }
            if (count > 0 && batch.lastOffset() < last) {
                violations.add(name + ": lastOffset() " + batch.lastOffset() + " before its last record " + last);
            }
            if (previousLast != null && batch.lastOffset() <= previousLast) {
                violations.add(name + ": lastOffset() " + batch.lastOffset() + " not past the previous batch's "
                        + previousLast);
            }
            lastOffsets.put(partition, batch.lastOffset());
            if (count > 0) {
                highestRecord.merge(partition, last, Math::max);
                withRecords.add(partition);
            }
            batches.merge(partition, 1, Integer::sum);
            if (onBatch != null) {
                onBatch.accept(batch);
            }
        }

        private void where(String callback) {
            if (Thread.currentThread() != laneThread) {
                violations.add(callback + " on thread " + Thread.currentThread().getName() + ", not the lane's");
            }
            if (!inPoll) {
                violations.add(callback + " outside poll");
            }
        }

        Set<Integer> partitionsWithRecords() {
            Set<Integer> present = new LinkedHashSet<>(withRecords);
            present.retainAll(assigned);
            return present;
        }

        int batchesOf(int partition) {
            return batches.getOrDefault(partition, 0);
        }

        long lastOffset(int partition) {
            return lastOffsets.getOrDefault(partition, -1L);
        }

        void mark() {
            batchesAtMark.clear();
            batchesAtMark.putAll(batches);
        }

        int batchesSinceMarkOf(int partition) {
            return batchesOf(partition) - batchesAtMark.getOrDefault(partition, 0);
        }

        int batchesSinceMark() {
            int n = 0;
            for (int partition : batches.keySet()) {
                n += batchesSinceMarkOf(partition);
            }
            return n;
        }

        void assertNoViolations() {
            assertEquals(List.of(), violations, "contract violations seen");
        }

        String summary() {
            return "assigned " + assigned + ", revoked " + revoked + ", lost " + lost + ", batches " + batches
                    + ", last offsets " + lastOffsets;
        }
    }
}
