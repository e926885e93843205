package dev.etl.record;

import dev.etl.checkpoint.AckRef;

/**
 * Metadata of the record a lane is currently pushing through its chain.
 *
 * <p>One mutable instance per lane, updated in place before each record is pushed (primitive fields
 * only, so nothing is allocated per record). Operators and encoders read it during their
 * {@code accept} call; values read after that call returns describe a later record. Records derived
 * from one source record (flatMap children) see the same metadata.
 *
 * <p>Not thread-safe: confined to its lane thread.
 */
public final class RecordMeta {
    private int partition = -1;
    private long offset = -1;
    private long timestampMs = -1;
    private int keyHash;
    private AckRef ack;
    private Payload key;
    private Payload value;

    /** Called by the lane before pushing a record. */
    public void set(int partition, long offset, long timestampMs, int keyHash) {
        this.partition = partition;
        this.offset = offset;
        this.timestampMs = timestampMs;
        this.keyHash = keyHash;
    }

    /**
     * Called by the chain head before pushing a record: the source's key and value views of the
     * record (the flyweights themselves, not copies), so a failure path can copy the original bytes.
     */
    public void source(Payload key, Payload value) {
        this.key = key;
        this.value = value;
    }

    /**
     * Called by the lane at the start of each (poll batch, partition), and cleared after it; the ack
     * every derived row retains. Emission scopes of {@link dev.etl.ops.HeldAcks} swap it and restore it.
     */
    public void ack(AckRef ack) {
        this.ack = ack;
    }

    /** Dense source partition id (see {@link dev.etl.source.SourceLane#describe(int)} for its name). */
    public int partition() {
        return partition;
    }

    /** Source offset of the record. */
    public long offset() {
        return offset;
    }

    /** Source timestamp in epoch milliseconds, or -1 when the source has none. */
    public long timestampMs() {
        return timestampMs;
    }

    /**
     * Stable 32-bit hash of the record key (murmur3 of the key bytes; 0 when the record has no key).
     * {@link dev.etl.sink.KeyHashRouter} routes on it.
     */
    public int keyHash() {
        return keyHash;
    }

    /**
     * The record's key as polled from the source (absent when it has none), or null before the first
     * record. A view valid during the current call only; copy it to keep it (failure paths only).
     */
    public Payload sourceKey() {
        return key;
    }

    /**
     * The record's value as polled from the source, undeserialized (absent for a tombstone), or null
     * before the first record. A view valid during the current call only; copy it to keep it.
     */
    public Payload sourceValue() {
        return value;
    }

    /**
     * Acknowledgement of the (poll batch, partition) this record came from: what a sink chunk
     * retains for each row. Inside an emission scope of a stateful operator's
     * {@link dev.etl.ops.HeldAcks} it is the ack covering every batch the operator held; between
     * batches and during {@code flush} it is null (there is no current record).
     */
    public AckRef ack() {
        return ack;
    }

    @Override
    public String toString() {
        return "RecordMeta[partition=" + partition + ", offset=" + offset + ", ts=" + timestampMs + "]";
    }
}
