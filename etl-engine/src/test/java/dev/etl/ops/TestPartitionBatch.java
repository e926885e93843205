package dev.etl.ops;

import dev.etl.record.Payload;
import dev.etl.source.PartitionBatch;
import java.nio.charset.StandardCharsets;

/** A {@link PartitionBatch} over in-memory values with consecutive offsets; allocation-free cursor. */
final class TestPartitionBatch implements PartitionBatch {
    private final int partition;
    private final long firstOffset;
    private final byte[][] keys;
    private final byte[][] values;
    private final Payload key = new Payload();
    private final Payload value = new Payload();
    private int index = -1;

    TestPartitionBatch(int partition, long firstOffset, byte[][] keys, byte[][] values) {
        this.partition = partition;
        this.firstOffset = firstOffset;
        this.keys = keys;
        this.values = values;
    }

    /** Values as UTF-8, no keys, on partition 0 from offset 10. */
    static TestPartitionBatch of(String... values) {
        return from(10, values);
    }

    /** Values as UTF-8, no keys, on partition 0 from {@code firstOffset}. */
    static TestPartitionBatch from(long firstOffset, String... values) {
        byte[][] bytes = new byte[values.length][];
        for (int i = 0; i < values.length; i++) {
            bytes[i] = values[i].getBytes(StandardCharsets.UTF_8);
        }
        return new TestPartitionBatch(0, firstOffset, new byte[values.length][], bytes);
    }

    /** Rewinds the cursor so the same records can be pushed again. */
    TestPartitionBatch rewind() {
        index = -1;
        return this;
    }

    @Override
    public int partition() {
        return partition;
    }

    @Override
    public int size() {
        return values.length;
    }

    @Override
    public long lastOffset() {
        return firstOffset + values.length - 1;
    }

    @Override
    public boolean next() {
        if (index + 1 >= values.length) {
            return false;
        }
        index++;
        key.wrap(keys[index]);
        value.wrap(values[index]);
        return true;
    }

    @Override
    public long offset() {
        return firstOffset + index;
    }

    @Override
    public long timestampMs() {
        return 1_000L + index;
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
