package dev.etl.internal.record;

import dev.etl.internal.checkpoint.AckRef;
import dev.etl.record.KeyHash;
import dev.etl.record.Payload;
import dev.etl.record.RecordMeta;

/**
 * The engine's {@link RecordMeta}: one per lane, written by the lane and the chain head before each
 * record, plus the current batch's ack, which sink stages retain for every row. Lane thread only.
 */
public final class MutableRecordMeta implements RecordMeta {
    private int partition = -1;
    private long offset = -1;
    private long timestampMs = -1;
    private int keyHash;
    /** Whether {@link #keyHash} holds the current record's hash; else it is computed on first use. */
    private boolean keyHashKnown;

    private AckRef ack;
    private AckRef batchAck;
    private Payload key;
    private Payload value;
    /** Emission scopes of held acks open now (nested across stages): the values pushed have no single source record. */
    private int heldEmissions;

    /** Sets the position and an already computed key hash, leaving the key and value views as they are (tests, tools). */
    public void set(int partition, long offset, long timestampMs, int keyHash) {
        this.partition = partition;
        this.offset = offset;
        this.timestampMs = timestampMs;
        this.keyHash = keyHash;
        this.keyHashKnown = true;
    }

    /**
     * Called by the chain head before pushing a record: its position and the source's key and value views
     * (the flyweights themselves, not copies, so a failure path can copy the original bytes). The key hash is computed from the key on the first
     * {@link #keyHash()} of the record, if any: a chain that routes by a value's field never pays for it
     * (MurmurHash3 over every key took about a tenth of a transcoding lane's time).
     */
    public void record(int partition, long offset, long timestampMs, Payload key, Payload value) {
        this.partition = partition;
        this.offset = offset;
        this.timestampMs = timestampMs;
        this.key = key;
        this.value = value;
        this.keyHashKnown = false;
    }

    /**
     * Called by the lane at the start of each (poll batch, partition), and cleared after it; the ack
     * every derived row retains. Emission scopes of {@link dev.etl.ops.HeldAcks} swap it and restore it.
     */
    public void ack(AckRef ack) {
        this.ack = ack;
    }

    /**
     * Called by the lane with {@link #ack(AckRef)} at the start of each (poll batch, partition), and
     * cleared after it; unlike {@link #ack()} never swapped by an emission scope.
     */
    public void batchAck(AckRef ack) {
        this.batchAck = ack;
    }

    /**
     * The ack of the (poll batch, partition) being pushed through the chain, or null between batches
     * and during {@code flush}. A row whose {@link #ack()} is this one belongs to the current batch; a
     * row emitted under an older batch's or a group's ack (a stateful operator's held data) does not.
     */
    public AckRef batchAck() {
        return heldEmissions == 0 ? batchAck : null;
    }

    /**
     * A stateful operator opened an emission scope over held acks ({@link dev.etl.ops.HeldAcks#emit}): until
     * the matching {@link #heldEmissionClosed()}, what is pushed is data kept from earlier records, so it
     * belongs to no batch's offset range ({@link #batchAck()} is null: a sink puts it into a merged batch,
     * never into the current deterministic block, whose content must not depend on poll boundaries) and to
     * no single source record ({@link #sourceKey()}/{@link #sourceValue()} are null: a dead letter of it
     * carries no payload rather than the wrong one).
     */
    public void heldEmissionOpened() {
        heldEmissions++;
    }

    /** Closes what {@link #heldEmissionOpened()} opened. */
    public void heldEmissionClosed() {
        if (heldEmissions > 0) {
            heldEmissions--;
        }
    }

    /** Whether an emission scope over held acks is open (see {@link #heldEmissionOpened()}). */
    public boolean inHeldEmission() {
        return heldEmissions != 0;
    }

    @Override
    public int partition() {
        return partition;
    }

    @Override
    public long offset() {
        return offset;
    }

    @Override
    public long timestampMs() {
        return timestampMs;
    }

    @Override
    public int keyHash() {
        if (!keyHashKnown) {
            keyHash = key == null ? 0 : KeyHash.of(key);
            keyHashKnown = true;
        }
        return keyHash;
    }

    @Override
    public Payload sourceKey() {
        return heldEmissions == 0 ? key : null;
    }

    @Override
    public Payload sourceValue() {
        return heldEmissions == 0 ? value : null;
    }

    /**
     * Acknowledgement of the (poll batch, partition) the current record came from: what a sink chunk
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
