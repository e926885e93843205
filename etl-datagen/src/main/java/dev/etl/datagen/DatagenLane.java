package dev.etl.datagen;

import dev.etl.error.RateLimitedLog;
import dev.etl.error.SourceException;
import dev.etl.source.AbstractSourceLane;
import dev.etl.source.BatchHandler;
import dev.etl.source.CommitOffsets;
import dev.etl.source.CommittedPosition;
import dev.etl.source.PartitionListener;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One lane of a {@link DatagenSource}: its partitions (assigned at the first poll, never revoked) and the
 * in-memory commits; the assignment, pauses and wakeups are {@link AbstractSourceLane}'s. Used by its lane
 * thread only, except {@link #wakeup()}.
 *
 * <p>A poll delivers, per unpaused partition, what the schedule has made available (at most
 * {@code maxPollRecords}); when nothing is available it parks until the next record is due, the
 * timeout passes or {@link #wakeup()} — never longer than the timeout.
 */
final class DatagenLane extends AbstractSourceLane {
    private static final Logger log = LoggerFactory.getLogger(DatagenLane.class);
    private static final long BEHIND_LOG_INTERVAL_NS = TimeUnit.SECONDS.toNanos(30);

    private final DatagenSource source;
    private final int index;
    private final DatagenPartition[] owned;
    private final DatagenBatch batch;
    private final DatagenSchedule schedule;
    private final int maxPollRecords;
    private final RateLimitedLog behindLog = new RateLimitedLog(BEHIND_LOG_INTERVAL_NS, System::nanoTime);
    private boolean started;

    DatagenLane(
            DatagenSource source, int index, PartitionListener listener, DatagenPartition[] owned, DatagenBatch batch) {
        super(listener);
        this.source = source;
        this.index = index;
        this.owned = owned;
        this.batch = batch;
        this.schedule = source.schedule();
        this.maxPollRecords = source.maxPollRecords();
    }

    @Override
    public void poll(long timeoutMs, BatchHandler handler) {
        reportCommits();
        if (!started) {
            started = true;
            int[] ids = new int[owned.length];
            for (int k = 0; k < owned.length; k++) {
                ids[k] = owned[k].id;
            }
            source.assigned(owned);
            assign(ids);
        }
        long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, timeoutMs));
        while (true) {
            long nextDueNs = deliver(handler);
            boolean woken = takeWakeup();
            if (nextDueNs == DELIVERED || woken) {
                return;
            }
            long remainingNs = deadlineNs - System.nanoTime();
            if (remainingNs <= 0 || parkPoll(Math.min(remainingNs, nextDueNs))) {
                return;
            }
        }
    }

    /** Returned by {@link #deliver} when a batch was delivered. */
    private static final long DELIVERED = -1;

    /**
     * One pass over the unpaused partitions: a batch of what is available for each. Returns
     * {@link #DELIVERED}, or how long until the next record is due (Long.MAX_VALUE: nothing will be).
     */
    private long deliver(BatchHandler handler) {
        if (isPaused()) {
            return Long.MAX_VALUE;
        }
        long nowNs = source.nanoClock().getAsLong();
        long elapsedNs = source.elapsedNs(nowNs);
        long timestampMs = System.currentTimeMillis();
        boolean delivered = false;
        long behind = 0;
        double nextDue = Double.MAX_VALUE;
        for (int k = 0; k < owned.length && !isPaused(); k++) {
            DatagenPartition partition = owned[k];
            if (!isDeliverable(partition.id)) {
                continue;
            }
            long position = partition.position;
            long available = Math.min(partition.end, schedule.scheduled(partition.id, elapsedNs)) - position;
            if (available <= 0) {
                if (position < partition.end && schedule.isLimited()) {
                    nextDue = Math.min(nextDue, schedule.dueNs(partition.id, position) - elapsedNs);
                }
                continue;
            }
            int count = (int) Math.min(available, maxPollRecords);
            behind += available - count;
            batch.reset(partition.id, position, count, timestampMs);
            // Published before the batch is pushed: a commit from inside it may cover these offsets.
            partition.position = position + count;
            handler.onBatch(batch);
            delivered = true;
        }
        if (behind > 0 && schedule.isLimited()) {
            reportBehind(behind);
        }
        if (delivered) {
            return DELIVERED;
        }
        return nextDue == Double.MAX_VALUE ? Long.MAX_VALUE : Math.max(1, (long) Math.ceil(nextDue));
    }

    /** The schedule is ahead of this lane by more than one poll per partition: the pipeline does not keep up. */
    private void reportBehind(long behind) {
        if (behind < schedule.ratePerSecond() / Math.max(1, source.partitions()) * owned.length) {
            return; // less than a second of this lane's share: catching up after a pause or a slow poll
        }
        long suppressed = behindLog.permit();
        if (suppressed >= 0) {
            log.warn(
                    "pipeline={} datagen lane={} is {} records behind its rate of {} records/s ({} similar suppressed): "
                            + "the pipeline does not keep up (etl_source_lag_records shows by how much)",
                    source.pipeline(),
                    index,
                    behind,
                    schedule.ratePerSecond(),
                    suppressed);
        }
    }

    private int local(int partition) {
        for (int k = 0; k < owned.length; k++) {
            if (owned[k].id == partition) {
                return k;
            }
        }
        return -1;
    }

    @Override
    public void commit(CommitOffsets offsets, boolean sync, @Nullable CommitCallback callback) {
        reportCommits();
        for (int i = 0; i < offsets.size(); i++) {
            int k = local(offsets.partition(i));
            if (k < 0 || !isAssigned(offsets.partition(i))) {
                throw new SourceException(
                        "datagen lane " + index + " was asked to commit partition " + source.topic() + "-"
                                + offsets.partition(i) + ", which it does not own",
                        null);
            }
            DatagenPartition partition = owned[k];
            long offset = offsets.offset(i);
            if (offset > partition.position) {
                throw new SourceException(
                        "datagen lane " + index + " was asked to commit " + source.topic() + "-"
                                + partition.id + " at " + offset + ", past the " + partition.position
                                + " records generated: the engine would commit data it never received",
                        null);
            }
        }
        for (int i = 0; i < offsets.size(); i++) {
            DatagenPartition partition = owned[local(offsets.partition(i))];
            long offset = offsets.offset(i);
            partition.metadata = offsets.metadata(i);
            partition.committed = offset;
            if (!partition.done && offset >= partition.end) {
                partition.done = true;
                source.partitionDone(partition);
            }
        }
        if (!sync) {
            reportLater(offsets, callback, null);
        }
    }

    /** Nothing survives the process: every partition starts at offset 0 with nothing committed. */
    @Override
    public CommittedPosition committed(int partition) {
        return CommittedPosition.NONE;
    }

    @Override
    public String describe(int partition) {
        return source.topic() + "-" + partition;
    }

    /**
     * {@code <topic>-<p>@seed=<seed>}: a partition's records are a function of the seed, so two runs with
     * other seeds into one table never share dedup tokens (offsets start at 0 every run).
     */
    @Override
    public String partitionIdentity(int partition) {
        return describe(partition) + "@seed=" + source.seed();
    }

    @Override
    public String topic(int partition) {
        return source.topic();
    }
}
