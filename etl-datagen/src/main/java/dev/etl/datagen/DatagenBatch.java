package dev.etl.datagen;

import dev.etl.error.ErrorClass;
import dev.etl.error.FatalPipelineException;
import dev.etl.record.Payload;
import dev.etl.source.PartitionBatch;

/**
 * The batch cursor of one lane: a range of sequences of one partition, generated lazily, one record at
 * a time, by {@link #next()} into the lane's reused buffers. Nothing is stored or copied: the key and
 * value payloads wrap the {@link GeneratedRecord}'s buffers. Valid during {@code onBatch} only.
 */
final class DatagenBatch implements PartitionBatch {
    private final RecordGenerator generator;
    private final long seed;
    private final int partitions;
    private final String topic;
    private final DatagenRandom random = new DatagenRandom();
    private final GeneratedRecord record = new GeneratedRecord();
    private final Payload key = new Payload();
    private final Payload value = new Payload();
    private int partition;
    private long first;
    private int size;
    private int index;
    private long timestampMs;

    DatagenBatch(RecordGenerator generator, long seed, int partitions, String topic) {
        this.generator = generator;
        this.seed = seed;
        this.partitions = partitions;
        this.topic = topic;
    }

    void reset(int partition, long first, int size, long timestampMs) {
        this.partition = partition;
        this.first = first;
        this.size = size;
        this.index = -1;
        this.timestampMs = timestampMs;
        key.clear();
        value.clear();
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
        long sequence = first + index;
        GeneratedRecord out = record;
        out.reset(partition, sequence, sequence * partitions + partition);
        random.reset(seed, partition, sequence);
        try {
            generator.generate(partition, sequence, random, out);
        } catch (Exception e) {
            throw generatorFailed(sequence, e);
        }
        RecordBytes k = out.key();
        if (k.length() > 0) {
            key.wrap(k.array(), 0, k.length());
        } else {
            key.clear();
        }
        if (out.isTombstone()) {
            value.clear();
        } else {
            RecordBytes v = out.value();
            value.wrap(v.array(), 0, v.length());
        }
        return true;
    }

    private FatalPipelineException generatorFailed(long sequence, Throwable e) {
        return new FatalPipelineException(
                ErrorClass.SOURCE,
                "datagen generator " + generator + " failed at " + topic + "-" + partition + " offset " + sequence
                        + ": " + e,
                e);
    }

    @Override
    public long offset() {
        return first + index;
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

    @Override
    public String toString() {
        return topic + "-" + partition + "[" + first + ".." + lastOffset() + "]";
    }
}
