package dev.etl.test.memory;

import dev.etl.error.SourceException;
import dev.etl.record.Payload;
import dev.etl.source.AbstractSourceLane;
import dev.etl.source.BatchHandler;
import dev.etl.source.CommitOffsets;
import dev.etl.source.CommittedPosition;
import dev.etl.source.PartitionBatch;
import dev.etl.source.PartitionListener;
import dev.etl.source.Source;
import dev.etl.source.SourceLane;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * An in-memory {@link Source} for tests: partitions are append-only logs you {@link
 * MemorySourceHandle#push push} to, and you decide which lane owns which partition, when partitions
 * are revoked or lost, and you read back what the pipeline committed.
 *
 * <pre>{@code
 * MemorySource source = MemorySource.create();
 * MemorySourceHandle handle = source.handle();
 * handle.assign(0, 0);                      // lane 0 owns partition 0
 * long offset = handle.push(0, null, "hello".getBytes());
 * handle.awaitCommitted(0, offset + 1, Duration.ofSeconds(10));
 * }</pre>
 *
 * <p>Thread-safe: the handle is used from the test thread while lanes poll. Assignment changes are
 * delivered to a lane's {@link PartitionListener} from inside its next poll, like Kafka's.
 */
public final class MemorySource implements Source {
    final Object lock = new Object();
    final Map<Integer, List<Entry>> logs = new HashMap<>();
    final Map<Integer, Long> committed = new HashMap<>();
    /** While set, every commit fails (scripted by {@link MemorySourceHandle#failCommits}). */
    volatile boolean failCommits;
    /** Metadata committed with each partition's offset (null when none). */
    final Map<Integer, String> committedMetadata = new HashMap<>();

    final Map<Integer, Lane> lanes = new HashMap<>();
    final Map<Integer, Set<Integer>> owner = new HashMap<>();
    final Map<Integer, List<Change>> pendingChanges = new HashMap<>();
    final int maxPollRecords;
    private final MemorySourceHandle handle;

    private MemorySource(int maxPollRecords) {
        this.maxPollRecords = maxPollRecords;
        this.handle = new MemorySourceHandle(this);
    }

    /** A source returning at most 500 records per partition per poll. */
    public static MemorySource create() {
        return new MemorySource(500);
    }

    /** A source returning at most {@code maxPollRecords} records per partition per poll. */
    public static MemorySource create(int maxPollRecords) {
        if (maxPollRecords <= 0) {
            throw new IllegalArgumentException("maxPollRecords must be > 0");
        }
        return new MemorySource(maxPollRecords);
    }

    /** The scripting handle. */
    public MemorySourceHandle handle() {
        return handle;
    }

    @Override
    public SourceLane openLane(int laneIndex, PartitionListener listener) {
        synchronized (lock) {
            Lane lane = new Lane(laneIndex, listener);
            lanes.put(laneIndex, lane);
            lock.notifyAll();
            return lane;
        }
    }

    @Override
    public String describe() {
        return "memory";
    }

    record Entry(byte[] key, byte[] value, long timestampMs) {}

    enum ChangeKind {
        ASSIGN,
        REVOKE,
        LOSE
    }

    record Change(ChangeKind kind, int[] partitions) {}

    void enqueueChange(int lane, Change change) {
        pendingChanges.computeIfAbsent(lane, k -> new ArrayList<>()).add(change);
        lock.notifyAll();
    }

    /**
     * One lane's view: the positions it reads at; assignment, pauses and wakeups are
     * {@link AbstractSourceLane}'s. Used by its lane thread only (except {@link #wakeup()}).
     */
    final class Lane extends AbstractSourceLane {
        final int index;
        private final Map<Integer, Long> positions = new HashMap<>();
        private final Cursor cursor = new Cursor();
        volatile long polls;

        Lane(int index, PartitionListener listener) {
            super(listener);
            this.index = index;
        }

        @Override
        public void poll(long timeoutMs, BatchHandler handler) {
            polls++;
            reportCommits();
            applyChanges();
            long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
            while (true) {
                boolean delivered = false;
                for (int i = 0; i < assignedCount(); i++) {
                    int partition = assignedPartition(i);
                    // Checked per partition: the handler may pause the lane or a partition mid-poll.
                    if (isDeliverable(partition)) {
                        delivered |= deliver(partition, handler);
                    }
                }
                if (takeWakeup() || delivered) {
                    return;
                }
                synchronized (lock) {
                    long remainingMs = (deadline - System.nanoTime()) / 1_000_000L;
                    List<Change> changes = pendingChanges.get(index);
                    // Under the lock that wakeup() notifies on: a wakeup between the check above and the
                    // wait cannot be missed.
                    if (remainingMs <= 0 || (changes != null && !changes.isEmpty()) || takeWakeup()) {
                        return;
                    }
                    try {
                        lock.wait(remainingMs);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new SourceException("interrupted while polling", e);
                    }
                }
            }
        }

        private boolean deliver(int partition, BatchHandler handler) {
            long position = positions.getOrDefault(partition, 0L);
            List<Entry> slice;
            synchronized (lock) {
                List<Entry> log = logs.get(partition);
                if (log == null || position >= log.size()) {
                    return false;
                }
                int end = (int) Math.min(log.size(), position + maxPollRecords);
                slice = new ArrayList<>(log.subList((int) position, end));
            }
            cursor.reset(partition, position, slice);
            positions.put(partition, position + slice.size());
            handler.onBatch(cursor);
            return true;
        }

        private void applyChanges() {
            List<Change> changes;
            synchronized (lock) {
                List<Change> queued = pendingChanges.remove(index);
                if (queued == null) {
                    return;
                }
                changes = queued;
            }
            for (Change change : changes) {
                switch (change.kind()) {
                    case ASSIGN -> {
                        for (int p : change.partitions()) {
                            synchronized (lock) {
                                positions.put(p, committed.getOrDefault(p, 0L));
                            }
                        }
                        assign(change.partitions());
                    }
                    case REVOKE -> {
                        try {
                            revoke(change.partitions());
                        } finally {
                            drop(change.partitions());
                        }
                    }
                    case LOSE -> {
                        drop(change.partitions());
                        lose(change.partitions());
                    }
                    default -> throw new IllegalStateException(change.kind().toString());
                }
            }
        }

        private void drop(int[] partitions) {
            for (int p : partitions) {
                positions.remove(p);
            }
        }

        @Override
        public void commit(CommitOffsets nextOffsets, boolean sync, @Nullable CommitCallback callback) {
            reportCommits();
            if (failCommits) {
                SourceException failure = new SourceException("scripted commit failure (MemorySourceHandle)", null);
                if (sync) {
                    throw failure;
                }
                reportLater(nextOffsets, callback, failure);
                return;
            }
            synchronized (lock) {
                for (int i = 0; i < nextOffsets.size(); i++) {
                    int partition = nextOffsets.partition(i);
                    Set<Integer> owned = owner.get(index);
                    if (owned == null || !owned.contains(partition)) {
                        if (!isAssigned(partition)) {
                            throw new SourceException(
                                    "lane " + index + " committed partition " + partition + " it does not own", null);
                        }
                    }
                    long offset = nextOffsets.offset(i);
                    if (offset >= committed.getOrDefault(partition, -1L)) {
                        committed.put(partition, offset);
                        committedMetadata.put(partition, nextOffsets.metadata(i));
                    }
                }
                lock.notifyAll();
            }
            if (!sync) {
                reportLater(nextOffsets, callback, null);
            }
        }

        @Override
        public CommittedPosition committed(int partition) {
            synchronized (lock) {
                Long offset = committed.get(partition);
                return offset == null
                        ? CommittedPosition.NONE
                        : new CommittedPosition(offset, committedMetadata.get(partition));
            }
        }

        @Override
        public String describe(int partition) {
            return "memory-" + partition;
        }

        @Override
        public void wakeup() {
            super.wakeup();
            synchronized (lock) {
                lock.notifyAll();
            }
        }
    }

    /** The batch cursor a lane hands its handler. */
    static final class Cursor implements PartitionBatch {
        private final Payload key = new Payload();
        private final Payload value = new Payload();
        private int partition;
        private long firstOffset;
        private List<Entry> entries = List.of();
        private int index = -1;

        void reset(int partition, long firstOffset, List<Entry> entries) {
            this.partition = partition;
            this.firstOffset = firstOffset;
            this.entries = entries;
            this.index = -1;
        }

        @Override
        public int partition() {
            return partition;
        }

        @Override
        public int size() {
            return entries.size();
        }

        @Override
        public long lastOffset() {
            return firstOffset + entries.size() - 1;
        }

        @Override
        public boolean next() {
            if (index + 1 >= entries.size()) {
                return false;
            }
            index++;
            Entry e = entries.get(index);
            key.wrap(e.key());
            value.wrap(e.value());
            return true;
        }

        @Override
        public long offset() {
            return firstOffset + index;
        }

        @Override
        public long timestampMs() {
            return entries.get(index).timestampMs();
        }

        @Override
        public Payload key() {
            return key;
        }

        @Override
        public Payload value() {
            return value;
        }

        @Override
        public String toString() {
            return "memory-" + partition + Arrays.asList(firstOffset, lastOffset());
        }
    }
}
