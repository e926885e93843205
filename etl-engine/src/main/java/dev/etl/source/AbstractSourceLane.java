package dev.etl.source;

import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * The part of a {@link SourceLane} that is the same in every source which reads its partitions itself
 * and filters paused ones out in {@link #poll}: the assigned partitions and their reporting to the lane's
 * {@link PartitionListener}, the lane-wide {@link #pause()} and the per-partition {@link #pausePartition}
 * (independent of each other, as {@link SourceLane} requires), a wakeup that a poll can park on,
 * asynchronous commit outcomes reported from a later poll or commit, and an idempotent {@link #close()}.
 * A subclass implements {@link #poll}, {@link #commit} and {@link #describe}, and delivers a partition's
 * records only while {@link #isDeliverable(int)}:
 *
 * <pre>{@code
 * public void poll(long timeoutMs, BatchHandler handler) {
 *     reportCommits();                           // outcomes of earlier asynchronous commits
 *     if (!started) { started = true; assign(0, 1); }  // reported to the engine before any batch
 *     for (int i = 0; i < assignedCount(); i++) {
 *         int partition = assignedPartition(i);
 *         if (isDeliverable(partition)) { ... handler.onBatch(batch) ... }
 *     }
 *     // nothing delivered: parkPoll(nanos) until data is due or wakeup()
 * }
 * }</pre>
 *
 * <p>A source whose client pauses partitions itself (Kafka's consumer) implements {@link SourceLane}
 * directly. Used by its lane thread only, except {@link #wakeup()}, {@link #isPaused()} and
 * {@link #isClosed()}, which any thread may call. The queries allocate nothing and take no lock, so
 * poll loops may call them per partition; assignment changes allocate.
 */
public abstract class AbstractSourceLane implements SourceLane {
    private final PartitionListener listener;

    /** Assigned partitions in the order they were assigned (lane thread). */
    private int[] assigned = new int[8];

    private int assignedCount;
    /** Bit per partition id: assigned (lane thread). */
    private long[] assignedBits = new long[1];
    /** Bit per partition id: paused on its own by {@link #pausePartition} (lane thread). */
    private long[] pausedBits = new long[1];

    private volatile boolean paused;
    private volatile boolean closed;
    private volatile boolean woken;
    private volatile Thread pollThread;

    /** Asynchronous commit outcomes waiting for the next poll or commit (lane thread), a ring. */
    private CommitOffsets[] pendingOffsets = new CommitOffsets[4];

    private CommitCallback[] pendingCallbacks = new CommitCallback[4];
    private Exception[] pendingErrors = new Exception[4];
    private int pendingHead;
    private int pendingCount;

    /** @param listener the lane's listener, as given to {@link Source#openLane} */
    protected AbstractSourceLane(PartitionListener listener) {
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    // ------------------------------------------------------------ assignment

    /**
     * Makes {@code partitions} this lane's, unpaused on their own (the lane-wide pause applies), then
     * reports them to {@link PartitionListener#onAssigned}. Prepare what {@link #committed} and
     * {@link #partitionIdentity} answer for them before: the engine asks from inside the callback.
     * Partitions already assigned stay as they are and are reported again.
     */
    protected final void assign(int... partitions) {
        for (int partition : partitions) {
            checkId(partition);
            pausedBits = clear(pausedBits, partition);
            if (!isSet(assignedBits, partition)) {
                assignedBits = set(assignedBits, partition);
                if (assignedCount == assigned.length) {
                    assigned = Arrays.copyOf(assigned, assignedCount * 2);
                }
                assigned[assignedCount++] = partition;
            }
        }
        listener.onAssigned(partitions.clone());
    }

    /**
     * Reports {@code partitions} to {@link PartitionListener#onRevoked} while they are still this lane's
     * (the engine drains and commits them inside the callback), then removes them, also when the callback
     * throws. Drop your own state of them after this returns.
     */
    protected final void revoke(int... partitions) {
        try {
            listener.onRevoked(partitions.clone());
        } finally {
            remove(partitions);
        }
    }

    /**
     * Removes {@code partitions}, already gone (nothing may be committed for them), then reports them to
     * {@link PartitionListener#onLost}.
     */
    protected final void lose(int... partitions) {
        remove(partitions);
        listener.onLost(partitions.clone());
    }

    private void remove(int[] partitions) {
        for (int partition : partitions) {
            if (!isSet(assignedBits, partition)) {
                continue;
            }
            assignedBits = clear(assignedBits, partition);
            pausedBits = clear(pausedBits, partition);
            for (int i = 0; i < assignedCount; i++) {
                if (assigned[i] == partition) {
                    System.arraycopy(assigned, i + 1, assigned, i, assignedCount - i - 1);
                    assignedCount--;
                    break;
                }
            }
        }
    }

    /** Whether {@code partition} is assigned to this lane. */
    protected final boolean isAssigned(int partition) {
        return isSet(assignedBits, partition);
    }

    /** How many partitions are assigned. */
    protected final int assignedCount() {
        return assignedCount;
    }

    /** The {@code index}-th assigned partition (0 ≤ index &lt; {@link #assignedCount()}), in assignment order. */
    protected final int assignedPartition(int index) {
        if (index < 0 || index >= assignedCount) {
            throw new IndexOutOfBoundsException("partition " + index + " of " + assignedCount);
        }
        return assigned[index];
    }

    /** The assigned partitions, in assignment order (a copy). */
    public final int[] assignedPartitions() {
        return Arrays.copyOf(assigned, assignedCount);
    }

    /**
     * Whether a poll may deliver {@code partition}'s records now: assigned, the lane not paused, the
     * partition not paused on its own. Re-check it per partition: the handler of one partition may pause
     * the lane or another partition.
     */
    protected final boolean isDeliverable(int partition) {
        return !paused && isSet(assignedBits, partition) && !isSet(pausedBits, partition);
    }

    // ---------------------------------------------------------------- pauses

    @Override
    public final void pause() {
        paused = true;
    }

    @Override
    public final void resume() {
        paused = false;
    }

    @Override
    public final boolean isPaused() {
        return paused;
    }

    @Override
    public final void pausePartition(int partition) {
        if (isSet(assignedBits, partition)) {
            pausedBits = set(pausedBits, partition);
        }
    }

    @Override
    public final void resumePartition(int partition) {
        pausedBits = clear(pausedBits, partition);
    }

    /** Whether {@code partition} is paused on its own ({@link #pausePartition}), whatever the lane-wide pause. */
    public final boolean isPartitionPaused(int partition) {
        return isSet(pausedBits, partition);
    }

    // --------------------------------------------------------------- wakeups

    /**
     * Parks the polling thread for at most {@code nanos}, returning early on {@link #wakeup()} (also one
     * that came before this call) or a {@link LockSupport#unpark} of the thread (e.g. by a thread that
     * produced data). Returns whether a wakeup ended it, and consumes it.
     */
    protected final boolean parkPoll(long nanos) {
        Thread current = Thread.currentThread();
        if (pollThread != current) {
            pollThread = current;
        }
        if (!woken && nanos > 0) {
            LockSupport.parkNanos(this, nanos);
        }
        return takeWakeup();
    }

    /** Whether {@link #wakeup()} was called since the last time this or {@link #parkPoll} consumed it. */
    protected final boolean takeWakeup() {
        if (woken) {
            woken = false;
            return true;
        }
        return false;
    }

    /**
     * Makes a {@link #parkPoll} in progress (or the next one) return. A subclass that waits elsewhere too
     * (a monitor, a client's poll) overrides this to wake that as well, and calls {@code super.wakeup()}.
     */
    @Override
    public void wakeup() {
        woken = true;
        Thread thread = pollThread;
        if (thread != null) {
            LockSupport.unpark(thread);
        }
    }

    // --------------------------------------------------------------- commits

    /**
     * Queues the outcome of an asynchronous commit ({@code error} null for success) for {@code callback},
     * which {@link #reportCommits()} calls, on the lane thread. No-op for a null callback.
     */
    protected final void reportLater(
            CommitOffsets offsets, @Nullable CommitCallback callback, @Nullable Exception error) {
        if (callback == null) {
            return;
        }
        if (pendingCount == pendingOffsets.length) {
            growPending();
        }
        int slot = (pendingHead + pendingCount) % pendingOffsets.length;
        pendingOffsets[slot] = offsets;
        pendingCallbacks[slot] = callback;
        pendingErrors[slot] = error;
        pendingCount++;
    }

    /** Calls the callbacks {@link #reportLater} queued, in order. Call it at the start of every poll and commit. */
    protected final void reportCommits() {
        while (pendingCount > 0) {
            int slot = pendingHead;
            CommitOffsets offsets = pendingOffsets[slot];
            CommitCallback callback = pendingCallbacks[slot];
            Exception error = pendingErrors[slot];
            pendingOffsets[slot] = null;
            pendingCallbacks[slot] = null;
            pendingErrors[slot] = null;
            pendingHead = (pendingHead + 1) % pendingOffsets.length;
            pendingCount--;
            callback.onComplete(offsets, error);
        }
    }

    private void growPending() {
        int n = pendingOffsets.length;
        CommitOffsets[] offsets = new CommitOffsets[n * 2];
        CommitCallback[] callbacks = new CommitCallback[n * 2];
        Exception[] errors = new Exception[n * 2];
        for (int i = 0; i < pendingCount; i++) {
            int slot = (pendingHead + i) % n;
            offsets[i] = pendingOffsets[slot];
            callbacks[i] = pendingCallbacks[slot];
            errors[i] = pendingErrors[slot];
        }
        pendingOffsets = offsets;
        pendingCallbacks = callbacks;
        pendingErrors = errors;
        pendingHead = 0;
    }

    // ----------------------------------------------------------------- close

    /** Closes the lane once ({@link #closeLane()}); later calls do nothing. */
    @Override
    public final void close() {
        if (closed) {
            return;
        }
        closed = true;
        closeLane();
    }

    /** Releases what the lane holds; called once, by the first {@link #close()}. The default does nothing. */
    protected void closeLane() {}

    /** Whether {@link #close()} was called. */
    public final boolean isClosed() {
        return closed;
    }

    // -------------------------------------------------------------- bit sets

    private static void checkId(int partition) {
        if (partition < 0) {
            throw new IllegalArgumentException("partition ids are >= 0: " + partition);
        }
    }

    private static boolean isSet(long[] bits, int partition) {
        int word = partition >>> 6;
        return partition >= 0 && word < bits.length && (bits[word] & (1L << partition)) != 0;
    }

    private static long[] set(long[] bits, int partition) {
        int word = partition >>> 6;
        long[] grown = word < bits.length ? bits : Arrays.copyOf(bits, Math.max(word + 1, bits.length * 2));
        grown[word] |= 1L << partition;
        return grown;
    }

    private static long[] clear(long[] bits, int partition) {
        int word = partition >>> 6;
        if (partition >= 0 && word < bits.length) {
            bits[word] &= ~(1L << partition);
        }
        return bits;
    }
}
