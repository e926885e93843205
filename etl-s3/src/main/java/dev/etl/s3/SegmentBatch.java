package dev.etl.s3;

import dev.etl.record.Payload;
import dev.etl.source.PartitionBatch;

/**
 * The lane's batch cursor over rows {@code [from, to)} of a {@link RowSegment}: flyweight, reused for
 * every batch, wrapping the segment's buffer (nothing copied). Rows have no key; their offsets are
 * {@link VirtualOffsets}. A batch that ends its item reports the item's last virtual offset.
 */
final class SegmentBatch implements PartitionBatch {
    private final Payload key = new Payload();
    private final Payload value = new Payload();
    private RowSegment segment;
    private int partition;
    private int from;
    private int to;
    private int index;
    private long lastOffset;
    private long timestampMs;

    SegmentBatch wrap(int partition, RowSegment segment, int from, int to, boolean endsItem, long timestampMs) {
        this.partition = partition;
        this.segment = segment;
        this.from = from;
        this.to = to;
        this.index = from - 1;
        this.timestampMs = timestampMs;
        this.lastOffset = endsItem
                ? VirtualOffsets.itemLast(segment.itemOffset)
                : VirtualOffsets.of(segment.itemOffset, segment.firstRow + to - 1);
        key.clear();
        value.clear();
        return this;
    }

    void clear() {
        segment = null;
        value.clear();
    }

    @Override
    public int partition() {
        return partition;
    }

    @Override
    public int size() {
        return to - from;
    }

    @Override
    public long lastOffset() {
        return lastOffset;
    }

    @Override
    public boolean next() {
        if (index + 1 >= to) {
            return false;
        }
        index++;
        value.wrap(segment.data, segment.starts[index], segment.lengths[index]);
        return true;
    }

    @Override
    public long offset() {
        return VirtualOffsets.of(segment.itemOffset, segment.firstRow + index);
    }

    @Override
    public long timestampMs() {
        return timestampMs;
    }

    @Override
    public Payload key() {
        return key;
    }

    @Override
    public Payload value() {
        return value;
    }
}
