package dev.etl.s3;

import dev.etl.error.SourceException;
import dev.etl.source.AbstractSourceLane;
import dev.etl.source.BatchHandler;
import dev.etl.source.CommitOffsets;
import dev.etl.source.CommittedPosition;
import dev.etl.source.PartitionBatch;
import dev.etl.source.PartitionListener;
import dev.etl.source.SourceLane;
import java.util.concurrent.TimeUnit;
import org.agrona.collections.Int2ObjectHashMap;
import org.jspecify.annotations.Nullable;

/**
 * One lane of a backfill: the work list's lane ({@link WorkList#openLane}; Kafka's group shares the work
 * items between lanes and instances) and, per assigned work-list partition, a {@link PartitionReader} reading the
 * partition's items, one after the other, off the lane thread. The engine sees the work-topic partitions
 * with {@link VirtualOffsets} (item and row), so its checkpointer commits an item only when every row of
 * it is durable; commits and committed positions are translated here.
 *
 * <p>Per poll: a Kafka poll (membership, assignments, new work items; without waiting while rows are
 * ready), then for each partition not paused one batch of ready rows. Work-item fetching is paused per
 * partition while {@code prefetch-items} items are queued; the engine's own pauses only stop the rows
 * (the readers then stop when their read-ahead is full). The engine's assignment, pauses and wakeups are
 * {@link AbstractSourceLane}'s.
 */
final class S3BackfillLane extends AbstractSourceLane implements PartitionListener, BatchHandler {
    private static final long IDLE_WAIT_MS = 5;

    private final S3BackfillSource source;
    private final S3BackfillConfig config;
    private final Thread laneThread;
    private final Int2ObjectHashMap<BackfillPartition> partitions = new Int2ObjectHashMap<>();
    private final SegmentBatch batch = new SegmentBatch();
    private SourceLane work;

    S3BackfillLane(S3BackfillSource source, PartitionListener engine) {
        super(engine);
        this.source = source;
        this.config = source.config();
        this.laneThread = Thread.currentThread();
    }

    void attach(SourceLane work) {
        this.work = work;
    }

    // ------------------------------------------------------------------ poll

    @Override
    public void poll(long timeoutMs, BatchHandler handler) {
        boolean reading = anyWork();
        // While items are being read, the Kafka poll does not wait: a reader that publishes rows unparks
        // this thread, which a wait inside the consumer would not notice.
        work.poll(reading ? 0 : timeoutMs, this);
        if (reading && !anyReady()) {
            // a reader that publishes rows unparks this thread, as does wakeup()
            parkPoll(TimeUnit.MILLISECONDS.toNanos(Math.min(timeoutMs, IDLE_WAIT_MS)));
        }
        for (BackfillPartition p : partitions.values()) {
            // checked per partition: the handler may pause the lane or a partition
            if (isDeliverable(p.id)) {
                emit(p, handler);
            }
        }
    }

    private boolean anyReady() {
        for (BackfillPartition p : partitions.values()) {
            if (isDeliverable(p.id) && p.reader.peek() != null) {
                return true;
            }
        }
        return false;
    }

    private boolean anyWork() {
        for (BackfillPartition p : partitions.values()) {
            if (p.queuedItems > 0) {
                return true;
            }
        }
        return false;
    }

    /** One batch of the partition's ready rows (at most {@code max-batch-rows}), or an item's end. */
    private void emit(BackfillPartition p, BatchHandler handler) {
        RowSegment segment = p.reader.peek();
        if (segment == null) {
            return;
        }
        if (segment.failure != null) {
            throw new SourceException(
                    "backfill of work-topic partition " + work.describe(p.id) + " failed: "
                            + segment.failure.getMessage(),
                    segment.failure);
        }
        int from = p.nextRow;
        int to = Math.min(segment.count, from + config.maxBatchRows());
        boolean endsItem = segment.itemEnd && to == segment.count;
        if (endsItem && segment.corrupt != null) {
            source.progress().corrupt(segment, work.describe(p.id));
        }
        if (to > from || endsItem) {
            try {
                handler.onBatch(batch.wrap(p.id, segment, from, to, endsItem, -1));
            } finally {
                batch.clear();
            }
            source.progress().rowsOut(to - from);
        }
        p.nextRow = to;
        if (to == segment.count) {
            source.progress().bytesRead(segment.bytesRead);
            if (segment.itemEnd) {
                source.progress().itemFinished(segment.corrupt != null);
                p.queuedItems--;
                if (p.prefetchPaused && p.queuedItems < config.prefetchItems()) {
                    p.prefetchPaused = false;
                    work.resumePartition(p.id);
                }
            }
            p.nextRow = 0;
            p.reader.consumed(segment);
        }
    }

    /** Work items from the Kafka poll: queued to their partition's reader. */
    @Override
    public void onBatch(PartitionBatch items) {
        BackfillPartition p = partitions.get(items.partition());
        if (p == null) {
            throw new SourceException("work items of unassigned partition " + work.describe(items.partition()), null);
        }
        while (items.next()) {
            long offset = items.offset();
            if (offset > VirtualOffsets.MAX_ITEM_OFFSET) {
                throw new SourceException(
                        "work-topic partition " + work.describe(p.id) + " has offset " + offset + ", above the "
                                + VirtualOffsets.MAX_ITEM_OFFSET + " a backfill can address: use a new work topic",
                        null);
            }
            if (offset < p.resumeItem) {
                continue; // below the committed position (cannot happen with Kafka's seek; defensive)
            }
            long skip = offset == p.resumeItem ? p.resumeRow : 0;
            WorkItem item = null;
            CorruptSplitException unusable = null;
            if (!items.value().isPresent()) {
                unusable = new CorruptSplitException(
                        "work-topic record " + work.describe(p.id) + "@" + offset + " has no value", null);
            } else {
                try {
                    item = WorkItem.decode(
                            items.value().array(),
                            items.value().offset(),
                            items.value().length());
                } catch (IllegalArgumentException e) {
                    unusable = new CorruptSplitException(
                            "work-topic record " + work.describe(p.id) + "@" + offset + ": " + e.getMessage(), e);
                }
                String outside = item == null ? null : config.scope().outside(item);
                if (outside != null) {
                    // written by someone else than the plan, or planned with another bucket/prefix/manifest
                    unusable = new CorruptSplitException(
                            "work-topic record " + work.describe(p.id) + "@" + offset + ": " + outside, null);
                }
            }
            p.reader.submit(new PartitionReader.Submitted(offset, item, skip, unusable));
            p.queuedItems++;
        }
        if (!p.prefetchPaused && p.queuedItems >= config.prefetchItems()) {
            p.prefetchPaused = true;
            work.pausePartition(p.id);
        }
    }

    // ------------------------------------------------------------ assignment

    @Override
    public void onAssigned(int[] assigned) {
        for (int id : assigned) {
            CommittedPosition kafka = work.committed(id);
            CommittedPosition virtual = VirtualOffsets.toVirtual(kafka, work.describe(id));
            BackfillPartition p = new BackfillPartition(id, virtual);
            p.reader = source.startReader(work.describe(id), laneThread);
            partitions.put(id, p);
        }
        assign(assigned);
    }

    @Override
    public void onRevoked(int[] revoked) {
        try {
            revoke(revoked);
        } finally {
            drop(revoked);
        }
    }

    @Override
    public void onLost(int[] lost) {
        try {
            lose(lost);
        } finally {
            drop(lost);
        }
    }

    private void drop(int[] ids) {
        for (int id : ids) {
            BackfillPartition p = partitions.remove(id);
            if (p != null) {
                p.reader.cancel();
            }
        }
    }

    // --------------------------------------------------------- SourceLane API

    @Override
    public void commit(CommitOffsets offsets, boolean sync, @Nullable CommitCallback callback) {
        CommitOffsets.Builder kafka = CommitOffsets.builder(offsets.size());
        for (int i = 0; i < offsets.size(); i++) {
            long virtual = offsets.offset(i);
            kafka.add(
                    offsets.partition(i),
                    VirtualOffsets.item(virtual),
                    VirtualOffsets.metadata(virtual, offsets.metadata(i)));
        }
        work.commit(
                kafka.build(),
                sync,
                callback == null ? null : (translated, error) -> callback.onComplete(offsets, error));
    }

    @Override
    public CommittedPosition committed(int partition) {
        BackfillPartition p = partitions.get(partition);
        return p == null ? CommittedPosition.NONE : p.committed;
    }

    @Override
    public String describe(int partition) {
        return work.describe(partition);
    }

    /** The work-topic partition's identity (with its topic id): a re-planned work list never shares tokens. */
    @Override
    public String partitionIdentity(int partition) {
        return work.partitionIdentity(partition);
    }

    @Override
    public String topic(int partition) {
        return config.topic();
    }

    @Override
    public boolean hasJoined() {
        return work.hasJoined();
    }

    @Override
    public void wakeup() {
        super.wakeup();
        work.wakeup();
    }

    @Override
    protected void closeLane() {
        for (BackfillPartition p : partitions.values()) {
            p.reader.cancel();
        }
        partitions.clear();
        work.close();
    }

    /** A work-topic partition assigned to this lane: where it resumes, its reader and pause state. */
    private static final class BackfillPartition {
        final int id;
        final CommittedPosition committed;
        final long resumeItem;
        final long resumeRow;
        PartitionReader reader;
        int queuedItems;
        int nextRow;
        boolean prefetchPaused;

        BackfillPartition(int id, CommittedPosition committed) {
            this.id = id;
            this.committed = committed;
            this.resumeItem = committed.offset() < 0 ? 0 : VirtualOffsets.item(committed.offset());
            this.resumeRow = committed.offset() < 0 ? 0 : VirtualOffsets.row(committed.offset());
        }
    }
}
