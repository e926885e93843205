package dev.etl.internal.checkpoint;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The acknowledgement of one (poll batch, partition): a reference count plus a merged status.
 *
 * <p>Life cycle: the lane takes it from its {@link AckQueue} ({@link AckQueue#acquire}) with one
 * reference (its own hold) for the batch it is about to push through the chain. Every holder that
 * keeps data derived from the batch beyond the lane's {@code accept} call — in practice each sink
 * chunk that received at least one of its rows — {@link #retain() retains} it once and
 * {@link #release(boolean) releases} it exactly once: with {@code true} after a durable write, with
 * {@code false} on any other path (write failed, chunk dropped, shutdown abandoned it). Records that
 * were filtered out or skipped take no reference, so they resolve as success when the lane releases
 * its own hold. Several outputs holding the same ack merge their statuses: one failure fails the
 * batch ("worst status wins").
 *
 * <p>When the last reference is released, the ack posts itself to its lane's {@link AckQueue}
 * exactly once. The queue is unbounded and lock-free, so releasing never blocks the releasing
 * (io) thread.
 *
 * <p><b>Pooling.</b> An ack taken from {@link AckQueue#acquire} is <em>pooled</em>: once the lane has
 * drained it (handed it to its checkpointer), the queue recycles the object for a later batch, so
 * the lane allocates nothing per batch. Reuse is safe because an ack reaches the pool only after
 * <ol>
 *   <li>its count reached zero — that is the only way it gets posted — so every holder has released
 *       its one reference, and a holder never touches an ack after releasing it (chunks, ack lists,
 *       held-ack holders clear their slot as they release); and</li>
 *   <li>the drain handler returned: the {@link Checkpointer} copies partition, epoch, sequence and
 *       status and keeps no pointer to the ack.</li>
 * </ol>
 * A release that arrives late, after its partition was revoked, is no exception: its holder still
 * holds a reference, so the ack is not posted, drained or recycled before that release; the
 * checkpointer then ignores it as stale and only after that is it recycled. Each reuse starts a new
 * {@link #generation()}. While it rests in the pool the count holds a negative sentinel, so a
 * <em>misuse</em> — a release or retain without a matching reference — on a recycled ack throws
 * exactly as a second release of a posted ack does, and the pool discards an ack whose sentinel was
 * disturbed instead of reusing it (the pool is first-in first-out, so a recycled ack rests there as
 * long as possible). What cannot be detected is a misplaced release that arrives after the ack was
 * reused: holders do not carry the generation, so it would count against the new batch. Acks that
 * are never drained (the lane stopped) are simply garbage. Acks made with the public constructor and
 * group acks are never pooled.
 *
 * <p><b>Group acks.</b> A stateful operator that emits values derived from several batches (a window,
 * a one-deep buffer) emits them under a {@link #group group ack}: it owns one reference on each
 * of its parents, and when its own last reference is released it releases each parent once with
 * its merged status instead of posting itself. So a parent batch resolves only after every output
 * of the values it contributed to is written (or failed), exactly as a batch shared by a
 * {@code flatMap}'s children does. Groups may nest (a group's parent may be a group). Group acks are
 * made per emission, not per batch, and are not pooled.
 *
 * <p>Thread-safety: {@link #retain()} and {@link #release(boolean)} may be called from any thread.
 * {@code retain} must only be called by a thread that already holds a reference (the lane, while its
 * own hold is still open), so the count can never rise from zero. Partition, epoch, sequence and
 * generation are written by the lane thread when it acquires the ack and read by the lane thread
 * (the other threads only print them); the hand-off that gives an io thread a reference (a chunk
 * through a concurrent queue, after a {@code retain}) publishes them anyway.
 */
public final class AckRef {
    /**
     * The count of an ack resting in its queue's pool: negative, so {@code retain} and
     * {@code release} throw, and far from zero, so a stray release cannot bring it back to zero.
     */
    static final int RECYCLED = Integer.MIN_VALUE / 2;

    private static final VarHandle REFS;
    private static final VarHandle FAILED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            REFS = lookup.findVarHandle(AckRef.class, "refs", int.class);
            FAILED = lookup.findVarHandle(AckRef.class, "failed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final AckQueue queue;
    /** Non-null for a group ack: the acks it holds one reference on each, released with its status. */
    private final AckRef[] parents;
    /** Whether {@link #queue} recycles this ack once it has been drained. */
    private final boolean pooled;

    // Lane thread: written on acquire, read when drained (see the class comment).
    private int partition;
    private int epoch;
    private long seq;
    private int generation;

    /**
     * The queue's link: written by the posting thread before the CAS that publishes the ack, then
     * only by the draining lane thread. Plain: the CAS and the drain's getAndSet order it.
     */
    AckRef next;

    @SuppressWarnings("unused") // accessed through REFS
    private volatile int refs = 1;

    @SuppressWarnings("unused") // accessed through FAILED
    private volatile boolean failed;

    /** Creates an ack holding one reference (the creator's), never pooled. */
    public AckRef(int partition, int epoch, long seq, AckQueue queue) {
        this(partition, epoch, seq, queue, false);
    }

    /** Creates an ack holding one reference (the creator's); {@code pooled}: see {@link AckQueue#acquire}. */
    AckRef(int partition, int epoch, long seq, AckQueue queue, boolean pooled) {
        this.partition = partition;
        this.epoch = epoch;
        this.seq = seq;
        this.queue = queue;
        this.parents = null;
        this.pooled = pooled;
    }

    private AckRef(AckRef[] parents) {
        this.partition = -1;
        this.epoch = -1;
        this.seq = -1;
        this.queue = null;
        this.parents = parents;
        this.pooled = false;
    }

    /**
     * Creates a group ack holding one reference (the creator's) that takes over one reference on
     * each of {@code parents} (the caller must hold them and must not release them itself): when the
     * group's last reference is released, each parent is released once with the group's merged
     * status. The array is owned by the group from now on.
     *
     * @throws IllegalArgumentException when {@code parents} is empty
     */
    public static AckRef group(AckRef[] parents) {
        if (parents.length == 0) {
            throw new IllegalArgumentException("a group ack needs at least one parent");
        }
        return new AckRef(parents);
    }

    /** Whether this is a {@link #group group ack} (it has no partition, epoch or sequence of its own). */
    public boolean isGroup() {
        return parents != null;
    }

    /**
     * Number of acks a {@link #group group ack} holds (0 for a batch's ack). Valid only while the caller
     * holds a reference: a released group forgets its parents.
     */
    public int parentCount() {
        return parents == null ? 0 : parents.length;
    }

    /** The {@code i}th ack a group holds; see {@link #parentCount()}. */
    public AckRef parent(int i) {
        return parents[i];
    }

    public int partition() {
        return partition;
    }

    public int epoch() {
        return epoch;
    }

    public long seq() {
        return seq;
    }

    /**
     * How many times this object was reused for another batch (0 for its first batch; always 0 for an
     * ack that is not pooled). Lane thread; for tests and diagnostics.
     */
    public int generation() {
        return generation;
    }

    /** Whether this ack rests in its queue's pool (drained and recycled, not yet reused). */
    public boolean isRecycled() {
        return refCount() <= RECYCLED / 2;
    }

    /** Whether every released reference so far reported success (final once posted). */
    public boolean succeeded() {
        return !(boolean) FAILED.getAcquire(this);
    }

    /** Current reference count (for tests and diagnostics; very negative while {@link #isRecycled()}). */
    public int refCount() {
        return (int) REFS.getVolatile(this);
    }

    /** Adds a reference. The caller must already hold one. */
    public void retain() {
        // A CAS loop rather than getAndAdd: a misuse must not resurrect a released ack (which would
        // let a later release post it a second time).
        while (true) {
            int current = (int) REFS.getVolatile(this);
            if (current <= 0) {
                throw new IllegalStateException("retain() on a released ack " + this);
            }
            if (REFS.compareAndSet(this, current, current + 1)) {
                return;
            }
        }
    }

    /**
     * Drops one reference with the holder's outcome. The last release posts the ack to its lane's
     * queue; the caller must not touch the ack afterwards (it may already be recycled for another
     * batch). Releasing more often than retained is a bug and throws.
     */
    public void release(boolean success) {
        if (!success) {
            // Set before the decrement: the decrement's full fence publishes it to whoever posts.
            FAILED.setRelease(this, true);
        }
        int remaining = (int) REFS.getAndAdd(this, -1) - 1;
        if (remaining == 0) {
            if (parents == null) {
                queue.post(this);
            } else {
                releaseParents();
            }
        } else if (remaining < 0) {
            throw new IllegalStateException("release() without a matching reference"
                    + (remaining <= RECYCLED / 2 ? " (the ack was already drained and recycled) " : " ") + this);
        }
    }

    private void releaseParents() {
        boolean merged = succeeded();
        RuntimeException first = null;
        AckRef[] parents = this.parents;
        for (int i = 0; i < parents.length; i++) {
            AckRef parent = parents[i];
            // A released group keeps no pointer to its parents: they may be recycled from now on.
            parents[i] = null;
            try {
                parent.release(merged);
            } catch (RuntimeException e) {
                // Release every parent even if one is misused; report the first misuse.
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /**
     * Lane thread, from {@link AckQueue#drain} once the handler returned: parks this drained ack in the
     * pool. False (leave it to the garbage collector) when a stray release or retain has disturbed its
     * count since it was posted.
     */
    boolean recycle() {
        return REFS.compareAndSet(this, 0, RECYCLED);
    }

    /**
     * Lane thread, from {@link AckQueue#acquire}: turns a recycled ack into the ack of a new batch with
     * one reference. False (discard it) when a stray release or retain hit it while it rested in the pool.
     */
    boolean reuse(int partition, int epoch, long seq) {
        // First claim the count: a stray release racing with this either lands before (the CAS fails
        // and the ack is discarded) or after (it counts against the new batch: undetectable).
        if (!REFS.compareAndSet(this, RECYCLED, 1)) {
            return false;
        }
        this.partition = partition;
        this.epoch = epoch;
        this.seq = seq;
        this.generation++;
        this.next = null;
        // Plain: the previous generation's holders are done (their release happened before the post
        // the lane drained), and the next ones get the ack through a hand-off that publishes it.
        FAILED.set(this, false);
        return true;
    }

    boolean isPooledBy(AckQueue queue) {
        return pooled && this.queue == queue;
    }

    @Override
    public String toString() {
        if (parents != null) {
            return "AckRef[group of " + parents.length + ", refs=" + refCount() + ", failed=" + !succeeded() + "]";
        }
        return "AckRef[partition=" + partition + ", epoch=" + epoch + ", seq=" + seq + ", refs=" + refCount()
                + ", failed=" + !succeeded() + (pooled ? ", generation=" + generation : "") + "]";
    }
}
