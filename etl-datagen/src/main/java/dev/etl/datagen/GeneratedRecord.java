package dev.etl.datagen;

/**
 * Where a {@link RecordGenerator} writes one record: its {@link #key()} and {@link #value()} bytes, and
 * what identifies it. One instance per lane, reset before every record; the source then wraps its
 * buffers in the lane's {@code Payload} flyweights, so nothing is copied.
 *
 * <ul>
 *   <li>The key is absent unless something was written to {@link #key()} (an empty present key cannot
 *       be expressed).</li>
 *   <li>The value is present, possibly empty, unless {@link #tombstone()} was called.</li>
 * </ul>
 *
 * <p>Not thread-safe: confined to the lane thread.
 */
public final class GeneratedRecord {
    private final RecordBytes key = new RecordBytes(32);
    private final RecordBytes value = new RecordBytes(256);
    private int partition;
    private long sequence;
    private long id;
    private boolean tombstone;

    GeneratedRecord() {}

    void reset(int partition, long sequence, long id) {
        this.partition = partition;
        this.sequence = sequence;
        this.id = id;
        key.reset();
        value.reset();
        tombstone = false;
    }

    /** The partition the record belongs to. */
    public int partition() {
        return partition;
    }

    /** The record's position in its partition (its offset), from 0. */
    public long sequence() {
        return sequence;
    }

    /**
     * The record's number over the whole run, {@code sequence × partitions + partition}: unique, and for a
     * bounded run of N records exactly {@code 0 … N-1}. A natural primary key for generated rows.
     */
    public long id() {
        return id;
    }

    /** The key's bytes; the key stays absent if nothing is written. */
    public RecordBytes key() {
        return key;
    }

    /** The value's bytes. */
    public RecordBytes value() {
        return value;
    }

    /** Makes the value absent (a tombstone, as a Kafka record with a null value). */
    public void tombstone() {
        tombstone = true;
    }

    boolean isTombstone() {
        return tombstone;
    }
}
