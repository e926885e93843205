package dev.etl.test.memory;

import dev.etl.test.memory.MemorySource.Change;
import dev.etl.test.memory.MemorySource.ChangeKind;
import dev.etl.test.memory.MemorySource.Entry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Scripts a {@link MemorySource}: produce records, move partitions between lanes, and observe
 * commits and polls. Thread-safe.
 */
public final class MemorySourceHandle {
    private final MemorySource source;

    MemorySourceHandle(MemorySource source) {
        this.source = source;
    }

    /**
     * Makes every commit fail from now on (synchronous ones throw, asynchronous ones report the failure),
     * or succeed again: a group coordinator that is unreachable.
     */
    public void failCommits(boolean fail) {
        source.failCommits = fail;
    }

    /**
     * Gives {@code partitions} to lane {@code lane}; delivered as {@code onAssigned} in the lane's next
     * poll. Reading starts at the partition's committed offset (0 if none). A partition owned by
     * another lane must be revoked first.
     */
    public void assign(int lane, int... partitions) {
        synchronized (source.lock) {
            for (int p : partitions) {
                for (var entry : source.owner.entrySet()) {
                    if (entry.getKey() != lane && entry.getValue().contains(p)) {
                        throw new IllegalStateException("partition " + p + " is owned by lane " + entry.getKey());
                    }
                }
            }
            Set<Integer> owned = source.owner.computeIfAbsent(lane, k -> new HashSet<>());
            for (int p : partitions) {
                owned.add(p);
            }
            source.enqueueChange(lane, new Change(ChangeKind.ASSIGN, partitions.clone()));
        }
    }

    /** Revokes {@code partitions} from the lane that owns them (an orderly rebalance: drain and commit). */
    public void revoke(int... partitions) {
        change(ChangeKind.REVOKE, partitions);
    }

    /** Takes {@code partitions} away without an orderly revoke (the lane may not commit them). */
    public void lose(int... partitions) {
        change(ChangeKind.LOSE, partitions);
    }

    private void change(ChangeKind kind, int[] partitions) {
        synchronized (source.lock) {
            for (var entry : source.owner.entrySet()) {
                List<Integer> mine = new ArrayList<>();
                for (int p : partitions) {
                    if (entry.getValue().remove(p)) {
                        mine.add(p);
                    }
                }
                if (!mine.isEmpty()) {
                    source.enqueueChange(
                            entry.getKey(),
                            new Change(
                                    kind,
                                    mine.stream().mapToInt(Integer::intValue).toArray()));
                }
            }
        }
    }

    /** Appends a record to {@code partition} and returns its offset. {@code key} may be null. */
    public long push(int partition, byte @Nullable [] key, byte @Nullable [] value) {
        return push(partition, key, value, System.currentTimeMillis());
    }

    /** Appends a record with an explicit timestamp and returns its offset. */
    public long push(int partition, byte @Nullable [] key, byte @Nullable [] value, long timestampMs) {
        synchronized (source.lock) {
            List<Entry> log = source.logs.computeIfAbsent(partition, k -> new ArrayList<>());
            log.add(new Entry(key, value, timestampMs));
            source.lock.notifyAll();
            return log.size() - 1;
        }
    }

    /** Number of records ever pushed to {@code partition}: its end offset. */
    public long endOffset(int partition) {
        synchronized (source.lock) {
            List<Entry> log = source.logs.get(partition);
            return log == null ? 0 : log.size();
        }
    }

    /** The last committed next-offset of {@code partition}, or -1 when nothing was committed. */
    public long lastCommitted(int partition) {
        synchronized (source.lock) {
            return source.committed.getOrDefault(partition, -1L);
        }
    }

    /**
     * Waits until {@link #lastCommitted(int)} is at least {@code offset}; returns false on timeout.
     */
    public boolean awaitCommitted(int partition, long offset, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (source.lock) {
            while (source.committed.getOrDefault(partition, -1L) < offset) {
                long remainingMs = (deadline - System.nanoTime()) / 1_000_000L;
                if (remainingMs <= 0) {
                    return false;
                }
                source.lock.wait(remainingMs);
            }
            return true;
        }
    }

    /** Polls made so far by lane {@code lane} (0 if it has not opened). */
    public long polls(int lane) {
        synchronized (source.lock) {
            MemorySource.Lane l = source.lanes.get(lane);
            return l == null ? 0 : l.polls;
        }
    }

    /** Whether lane {@code lane} currently has its partitions paused. */
    public boolean isPaused(int lane) {
        synchronized (source.lock) {
            MemorySource.Lane l = source.lanes.get(lane);
            return l != null && l.isPaused();
        }
    }

    /** Whether lane {@code lane} has been opened by the pipeline. */
    public boolean isOpen(int lane) {
        synchronized (source.lock) {
            MemorySource.Lane l = source.lanes.get(lane);
            return l != null && !l.isClosed();
        }
    }
}
