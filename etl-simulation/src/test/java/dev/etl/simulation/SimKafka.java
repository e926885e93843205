package dev.etl.simulation;

import dev.etl.error.SourceException;
import dev.etl.record.Payload;
import dev.etl.source.BatchHandler;
import dev.etl.source.CommitOffsets;
import dev.etl.source.CommittedPosition;
import dev.etl.source.PartitionBatch;
import dev.etl.source.PartitionListener;
import dev.etl.source.Source;
import dev.etl.source.SourceLane;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A simulated Kafka: one topic of a few partitions (which can be deleted and created again under the same
 * name, with a new topic id, as an operator does), a consumer group's committed offsets with metadata, and
 * a {@link Source} per process incarnation whose lanes poll batches of random size, commit synchronously
 * or asynchronously (completed at a later poll, as Kafka does), and have partitions assigned, revoked
 * (the lane drains inside the callback) and lost by the simulation. Everything a dead process calls
 * throws {@link SimCrash}. Driven by the simulation on its one thread or by engine threads holding the
 * scheduler's baton, so nothing here needs locks.
 */
final class SimKafka {
    static final String TOPIC = "orders";

    /** One record as produced. */
    record Rec(byte[] key, byte[] value, long timestampMs) {}

    /** What the group committed for a partition. */
    record Committed(long offset, String metadata) {}

    private final SimScheduler scheduler;
    private final Random random;
    private final int partitions;
    private List<List<Rec>> logs = new ArrayList<>();
    private String topicId;
    private int topicIncarnation;
    private final Map<Integer, Committed> commits = new HashMap<>();
    /** Probability that a commit fails (a coordinator moving, a request timing out). */
    double commitFailure;
    /** Most records a poll returns per partition. */
    int maxPoll = 50;

    SimKafka(SimScheduler scheduler, Random random, int partitions) {
        this.scheduler = scheduler;
        this.random = random;
        this.partitions = partitions;
        createTopic();
    }

    /** Deletes the topic (its records and the group's commits for it) and creates it anew: a new id. */
    void recreateTopic() {
        commits.clear();
        createTopic();
    }

    private void createTopic() {
        topicIncarnation++;
        topicId = "id" + topicIncarnation + "-" + Long.toHexString(random.nextLong());
        logs = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            logs.add(new ArrayList<>());
        }
    }

    int topicIncarnation() {
        return topicIncarnation;
    }

    int partitions() {
        return partitions;
    }

    /** Appends a record; returns its offset. */
    long produce(int partition, byte[] key, byte[] value) {
        List<Rec> log = logs.get(partition);
        log.add(new Rec(key, value, scheduler.now() / 1_000_000));
        return log.size() - 1;
    }

    long endOffset(int partition) {
        return logs.get(partition).size();
    }

    List<Rec> log(int partition) {
        return logs.get(partition);
    }

    /** The group's committed offset of {@code partition}, or -1. */
    long committedOffset(int partition) {
        Committed c = commits.get(partition);
        return c == null ? -1 : c.offset();
    }

    /** A new source for process incarnation {@code process}. */
    SimSource source(int process) {
        return new SimSource(process);
    }

    /** The source of one process incarnation: its lanes and the assignment the simulation drives. */
    final class SimSource implements Source {
        final int process;
        final List<SimLane> lanes = new ArrayList<>();
        /** Which lane owns each partition (-1: none). */
        final int[] owner;

        boolean dead;

        SimSource(int process) {
            this.process = process;
            this.owner = new int[partitions];
            Arrays.fill(owner, -1);
        }

        @Override
        public SourceLane openLane(int laneIndex, PartitionListener listener) {
            alive();
            SimLane lane = new SimLane(this, laneIndex, listener, Thread.currentThread());
            while (lanes.size() <= laneIndex) {
                lanes.add(null);
            }
            lanes.set(laneIndex, lane);
            return lane;
        }

        @Override
        public String describe() {
            return "sim-kafka[" + TOPIC + "]";
        }

        void alive() {
            if (dead) {
                throw new SimCrash();
            }
        }

        /** Lanes opened so far (a lane opens on its own thread after the start). */
        int openLanes() {
            int n = 0;
            for (SimLane lane : lanes) {
                if (lane != null) {
                    n++;
                }
            }
            return n;
        }

        /** Queues an assignment change for {@code lane}, delivered at its next poll. */
        void assign(int lane, int partition) {
            lanes.get(lane).changes.add(new int[] {0, partition});
            scheduler.unpark(lanes.get(lane).thread);
        }

        void revoke(int partition) {
            int lane = owner[partition];
            if (lane >= 0) {
                lanes.get(lane).changes.add(new int[] {1, partition});
                scheduler.unpark(lanes.get(lane).thread);
            }
        }

        void lose(int partition) {
            int lane = owner[partition];
            if (lane >= 0) {
                lanes.get(lane).changes.add(new int[] {2, partition});
                scheduler.unpark(lanes.get(lane).thread);
            }
        }

        /** Whether no assignment change waits to be delivered. */
        boolean settled() {
            for (SimLane lane : lanes) {
                if (lane != null && !lane.changes.isEmpty()) {
                    return false;
                }
            }
            return true;
        }

        /** Wakes every lane (records arrived). */
        void wakeAll() {
            for (SimLane lane : lanes) {
                if (lane != null) {
                    scheduler.unpark(lane.thread);
                }
            }
        }
    }

    /** One lane's consumer. */
    final class SimLane implements SourceLane {
        private final SimSource source;
        private final int index;
        private final PartitionListener listener;
        final Thread thread;
        final ArrayDeque<int[]> changes = new ArrayDeque<>();
        private final Map<Integer, Long> positions = new HashMap<>();
        private final Map<Integer, Committed> committedAtAssignment = new HashMap<>();
        private final boolean[] pausedAlone = new boolean[partitions];
        private final ArrayDeque<Object[]> asyncCommits = new ArrayDeque<>();
        private final SimBatch batch = new SimBatch();
        private boolean paused;

        SimLane(SimSource source, int index, PartitionListener listener, Thread thread) {
            this.source = source;
            this.index = index;
            this.listener = listener;
            this.thread = thread;
        }

        @Override
        public void poll(long timeoutMs, BatchHandler handler) {
            scheduler.parkNanos(0);
            source.alive();
            completeAsyncCommits();
            deliverChanges();
            if (deliver(handler)) {
                return;
            }
            scheduler.parkNanos(Math.max(1, timeoutMs) * 1_000_000);
            source.alive();
            completeAsyncCommits();
            deliverChanges();
            deliver(handler);
        }

        private void deliverChanges() {
            while (!changes.isEmpty()) {
                int[] change = changes.poll();
                int partition = change[1];
                switch (change[0]) {
                    case 0 -> {
                        if (source.owner[partition] >= 0) {
                            continue; // still owned elsewhere: the simulation revokes first
                        }
                        source.owner[partition] = index;
                        Committed c = commits.get(partition);
                        committedAtAssignment.put(partition, c);
                        positions.put(partition, c == null ? 0 : c.offset());
                        pausedAlone[partition] = false;
                        listener.onAssigned(new int[] {partition});
                    }
                    case 1 -> {
                        if (source.owner[partition] != index) {
                            continue;
                        }
                        listener.onRevoked(new int[] {partition}); // drains and commits inside
                        source.alive();
                        release(partition);
                    }
                    default -> {
                        if (source.owner[partition] != index) {
                            continue;
                        }
                        listener.onLost(new int[] {partition});
                        source.alive();
                        release(partition);
                    }
                }
            }
        }

        private void release(int partition) {
            source.owner[partition] = -1;
            positions.remove(partition);
            committedAtAssignment.remove(partition);
        }

        /** One batch per owned, unpaused partition with records; true when anything was delivered. */
        private boolean deliver(BatchHandler handler) {
            if (paused) {
                return false;
            }
            boolean any = false;
            for (int partition = 0; partition < partitions; partition++) {
                if (source.owner[partition] != index || pausedAlone[partition]) {
                    continue;
                }
                long position = positions.get(partition);
                long end = endOffset(partition);
                if (position >= end) {
                    continue;
                }
                int size = (int) Math.min(end - position, 1 + random.nextInt(maxPoll));
                batch.reset(partition, position, size, end - position - size);
                positions.put(partition, position + size);
                any = true;
                handler.onBatch(batch);
                source.alive();
                if (source.owner[partition] != index) {
                    return true; // revoked or lost during the batch (cannot happen: changes come at polls)
                }
            }
            return any;
        }

        private void completeAsyncCommits() {
            while (!asyncCommits.isEmpty()) {
                Object[] pending = asyncCommits.poll();
                CommitOffsets offsets = (CommitOffsets) pending[0];
                CommitCallback callback = (CommitCallback) pending[1];
                Exception error = apply(offsets);
                callback.onComplete(offsets, error);
                source.alive();
            }
        }

        /** Stores the offsets if every partition is still owned and no fault strikes; else the error. */
        private Exception apply(CommitOffsets offsets) {
            if (random.nextDouble() < commitFailure) {
                return new SourceException("simulated commit failure (coordinator moved)", null);
            }
            for (int i = 0; i < offsets.size(); i++) {
                if (source.owner[offsets.partition(i)] != index) {
                    return new SourceException(
                            "commit of " + offsets + " rejected: partition " + offsets.partition(i)
                                    + " is no longer owned by lane " + index,
                            null);
                }
            }
            for (int i = 0; i < offsets.size(); i++) {
                commits.put(offsets.partition(i), new Committed(offsets.offset(i), offsets.metadata(i)));
            }
            return null;
        }

        @Override
        public void commit(CommitOffsets offsets, boolean sync, CommitCallback callback) {
            source.alive();
            if (!sync) {
                asyncCommits.add(new Object[] {offsets, callback});
                return;
            }
            scheduler.parkNanos(0); // a round trip: the process may die before the broker stores it
            source.alive();
            Exception error = apply(offsets);
            if (error != null) {
                throw error instanceof SourceException se ? se : new SourceException(error.getMessage(), error);
            }
        }

        @Override
        public CommittedPosition committed(int partition) {
            Committed c = committedAtAssignment.get(partition);
            return c == null ? CommittedPosition.NONE : new CommittedPosition(c.offset(), c.metadata());
        }

        @Override
        public void pause() {
            paused = true;
        }

        @Override
        public void resume() {
            paused = false;
        }

        @Override
        public boolean isPaused() {
            return paused;
        }

        @Override
        public void pausePartition(int partition) {
            if (source.owner[partition] == index) {
                pausedAlone[partition] = true;
            }
        }

        @Override
        public void resumePartition(int partition) {
            pausedAlone[partition] = false;
        }

        @Override
        public String describe(int partition) {
            return TOPIC + "-" + partition;
        }

        @Override
        public String partitionIdentity(int partition) {
            return describe(partition) + "@" + topicId;
        }

        @Override
        public String topic(int partition) {
            return TOPIC;
        }

        @Override
        public void wakeup() {
            scheduler.unpark(thread);
        }

        @Override
        public void close() {}
    }

    /** A poll batch over a partition's log: flyweight payloads, nothing copied. */
    private final class SimBatch implements PartitionBatch {
        private final Payload key = new Payload();
        private final Payload value = new Payload();
        private int partition;
        private long first;
        private int size;
        private long backlog;
        private int index;

        void reset(int partition, long first, int size, long backlog) {
            this.partition = partition;
            this.first = first;
            this.size = size;
            this.backlog = backlog;
            this.index = -1;
        }

        @Override
        public int partition() {
            return partition;
        }

        @Override
        public int size() {
            return size;
        }

        @Override
        public long lastOffset() {
            return first + size - 1;
        }

        @Override
        public boolean next() {
            if (index + 1 >= size) {
                return false;
            }
            index++;
            Rec rec = logs.get(partition).get((int) (first + index));
            key.wrap(rec.key(), 0, rec.key().length);
            value.wrap(rec.value(), 0, rec.value().length);
            return true;
        }

        @Override
        public long offset() {
            return first + index;
        }

        @Override
        public long timestampMs() {
            return logs.get(partition).get((int) (first + index)).timestampMs();
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
        public long backlog() {
            return backlog;
        }
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
