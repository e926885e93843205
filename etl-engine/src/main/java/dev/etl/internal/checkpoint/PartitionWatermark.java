package dev.etl.internal.checkpoint;

/**
 * The checkpoint state of one assigned partition for one epoch: a ring of outstanding batches, the
 * committable watermark and the last committed offset. Everything a revoke has to forget lives in
 * this one object.
 *
 * <p>Batches get consecutive sequence numbers from 0 per epoch. The ring holds the outstanding ones,
 * {@code [headSeq, tailSeq)}, in power-of-two parallel primitive arrays indexed by
 * {@code seq & mask}; it doubles when full and is otherwise reused, so registering and acking do not
 * allocate in steady state.
 *
 * <p>Invariants (after every public call):
 * <ul>
 *   <li>{@code 0 <= headSeq <= tailSeq} and {@code tailSeq - headSeq <= capacity};</li>
 *   <li>registered next offsets strictly increase with the sequence number;</li>
 *   <li>the batch at {@code headSeq}, if any, is pending or failed, never OK: OK batches at the head
 *       are popped immediately;</li>
 *   <li>{@code watermark} is the next offset of the last popped batch (-1 before the first pop), so
 *       it covers exactly the gap-free prefix of successfully acknowledged batches.</li>
 * </ul>
 *
 * <p>Not thread-safe: owned by the lane thread through its {@link Checkpointer}.
 */
final class PartitionWatermark {
    static final byte PENDING = 0;
    static final byte OK = 1;
    static final byte FAILED = 2;

    private static final int MAX_CAPACITY = 1 << 30;

    private final int partition;
    private final int epoch;

    private long[] nextOffsets;
    private byte[] states;
    private long[] registeredAtNs;
    /** Holds of each batch by stateful operators (HeldAcks): a batch an operator keeps is not stuck in a sink. */
    private int[] operatorHolds;
    /** When each batch last left an operator's hold (its registration before): where a stall is measured from. */
    private long[] stallFromNs;

    private int mask;

    private long headSeq;
    private long tailSeq;
    private long lastRegisteredNextOffset = -1;
    private long watermark = -1;
    private long lastCommitted = -1;

    PartitionWatermark(int partition, int epoch, int initialCapacity) {
        if (initialCapacity < 1 || initialCapacity > MAX_CAPACITY) {
            throw new IllegalArgumentException("initial ring capacity must be in [1, 2^30]: " + initialCapacity);
        }
        int capacity = Integer.highestOneBit(initialCapacity);
        if (capacity < initialCapacity) {
            capacity <<= 1;
        }
        this.partition = partition;
        this.epoch = epoch;
        this.nextOffsets = new long[capacity];
        this.states = new byte[capacity];
        this.registeredAtNs = new long[capacity];
        this.operatorHolds = new int[capacity];
        this.stallFromNs = new long[capacity];
        this.mask = capacity - 1;
    }

    int partition() {
        return partition;
    }

    int epoch() {
        return epoch;
    }

    long watermark() {
        return watermark;
    }

    long lastCommitted() {
        return lastCommitted;
    }

    int outstanding() {
        return (int) (tailSeq - headSeq);
    }

    int capacity() {
        return mask + 1;
    }

    /**
     * Appends a pending batch ending before {@code nextOffset}; returns its sequence number.
     *
     * @throws IllegalArgumentException if {@code nextOffset} does not exceed the previous batch's
     */
    long register(long nextOffset, long nowNs) {
        if (nextOffset <= lastRegisteredNextOffset) {
            throw new IllegalArgumentException("partition " + partition + " epoch " + epoch
                    + ": batch next offset " + nextOffset + " must be greater than the previous batch's "
                    + lastRegisteredNextOffset);
        }
        if (tailSeq - headSeq == mask + 1) {
            grow();
        }
        long seq = tailSeq;
        int index = (int) seq & mask;
        nextOffsets[index] = nextOffset;
        states[index] = PENDING;
        registeredAtNs[index] = nowNs;
        operatorHolds[index] = 0;
        stallFromNs[index] = nowNs;
        tailSeq = seq + 1;
        lastRegisteredNextOffset = nextOffset;
        return seq;
    }

    /**
     * Applies an ack for this epoch. Returns {@code false} without changing anything when {@code seq}
     * is not outstanding or was already acknowledged (stale or duplicate), {@code true} otherwise.
     */
    boolean ack(long seq, boolean success) {
        if (seq < headSeq || seq >= tailSeq) {
            return false;
        }
        final byte[] states = this.states;
        final int mask = this.mask;
        int index = (int) seq & mask;
        if (states[index] != PENDING) {
            return false;
        }
        states[index] = success ? OK : FAILED;
        if (seq == headSeq && success) {
            popAcknowledgedPrefix(states, mask);
        }
        return true;
    }

    private void popAcknowledgedPrefix(byte[] states, int mask) {
        long head = headSeq;
        final long tail = tailSeq;
        long newWatermark = watermark;
        // A FAILED head stops the loop and, since nothing ever changes it again, stalls this epoch.
        while (head < tail && states[(int) head & mask] == OK) {
            newWatermark = nextOffsets[(int) head & mask];
            head++;
        }
        headSeq = head;
        watermark = newWatermark;
    }

    boolean isFailedAtHead() {
        return headSeq < tailSeq && states[(int) headSeq & mask] == FAILED;
    }

    /** Nanos since the head batch was registered, or 0 when nothing is outstanding. */
    long watermarkAgeNs(long nowNs) {
        return headSeq < tailSeq ? nowNs - registeredAtNs[(int) headSeq & mask] : 0;
    }

    /**
     * A stateful operator started ({@code delta} 1) or stopped (-1) keeping the data of batch {@code seq};
     * stopping restarts the batch's stall clock at {@code nowNs}: from then on its data is on its way to a
     * sink. Ignored when {@code seq} is not outstanding.
     */
    void operatorHold(long seq, int delta, long nowNs) {
        if (seq < headSeq || seq >= tailSeq) {
            return;
        }
        int index = (int) seq & mask;
        operatorHolds[index] = Math.max(0, operatorHolds[index] + delta);
        if (delta < 0) {
            stallFromNs[index] = Math.max(stallFromNs[index], nowNs);
        }
    }

    /** Whether a stateful operator keeps the head batch's data (it is not stuck in a sink). */
    boolean isHeadHeldByOperator() {
        return headSeq < tailSeq && operatorHolds[(int) headSeq & mask] > 0;
    }

    /** The head batch's sequence number, or -1 when nothing is outstanding. */
    long headSeq() {
        return headSeq < tailSeq ? headSeq : -1;
    }

    /**
     * Nanos since the head batch was registered or last left an operator's hold, or 0 when nothing is
     * outstanding: how long its data has been waiting for a sink.
     */
    long stallAgeNs(long nowNs) {
        return headSeq < tailSeq ? nowNs - stallFromNs[(int) headSeq & mask] : 0;
    }

    void markCommitted(long offset) {
        lastCommitted = Math.max(lastCommitted, offset);
    }

    boolean isCommittable() {
        return watermark > lastCommitted;
    }

    /** Doubles the ring, re-placing outstanding entries at {@code seq & newMask}. Rare; allocates. */
    private void grow() {
        int capacity = mask + 1;
        if (capacity >= MAX_CAPACITY) {
            throw new IllegalStateException(
                    "partition " + partition + ": more than " + MAX_CAPACITY + " outstanding batches");
        }
        int newCapacity = capacity << 1;
        int newMask = newCapacity - 1;
        long[] newNextOffsets = new long[newCapacity];
        byte[] newStates = new byte[newCapacity];
        long[] newRegisteredAtNs = new long[newCapacity];
        int[] newOperatorHolds = new int[newCapacity];
        long[] newStallFromNs = new long[newCapacity];
        for (long seq = headSeq; seq < tailSeq; seq++) {
            int from = (int) seq & mask;
            int to = (int) seq & newMask;
            newNextOffsets[to] = nextOffsets[from];
            newStates[to] = states[from];
            newRegisteredAtNs[to] = registeredAtNs[from];
            newOperatorHolds[to] = operatorHolds[from];
            newStallFromNs[to] = stallFromNs[from];
        }
        nextOffsets = newNextOffsets;
        states = newStates;
        registeredAtNs = newRegisteredAtNs;
        operatorHolds = newOperatorHolds;
        stallFromNs = newStallFromNs;
        mask = newMask;
    }

    @Override
    public String toString() {
        return "PartitionWatermark[partition=" + partition + ", epoch=" + epoch + ", head=" + headSeq + ", tail="
                + tailSeq + ", watermark=" + watermark + ", lastCommitted=" + lastCommitted + ", failedAtHead="
                + isFailedAtHead() + "]";
    }
}
