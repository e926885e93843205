package dev.etl.s3;

import dev.etl.source.PartitionListener;
import dev.etl.source.SourceLane;
import dev.etl.test.memory.MemorySource;
import dev.etl.test.memory.MemorySourceHandle;
import java.util.HashMap;
import java.util.Map;

/** A work list in memory (a {@link MemorySource} of encoded work items): a backfill without a broker. */
final class MemoryWorkList implements WorkList {
    private final MemorySource source = MemorySource.create(2);
    private final Map<Integer, Long> items = new HashMap<>();

    /** Appends {@code item} to {@code partition}. */
    synchronized void add(int partition, WorkItem item) {
        source.handle().push(partition, null, item.encode());
        items.merge(partition, 1L, Long::sum);
    }

    /** The scripting handle: who owns which partition, rebalances, commits. */
    MemorySourceHandle handle() {
        return source.handle();
    }

    @Override
    public synchronized long start() {
        return items.values().stream().mapToLong(Long::longValue).sum();
    }

    @Override
    public SourceLane openLane(int laneIndex, PartitionListener listener) {
        return source.openLane(laneIndex, listener);
    }

    @Override
    public synchronized Progress progress() {
        long committed = 0;
        boolean done = true;
        for (Map.Entry<Integer, Long> e : items.entrySet()) {
            long at = Math.max(0, source.handle().lastCommitted(e.getKey()));
            committed += Math.min(at, e.getValue());
            done &= at >= e.getValue();
        }
        return new Progress(committed, done);
    }

    @Override
    public String describe() {
        return "memory work list";
    }

    @Override
    public void close() {
        source.close();
    }
}
