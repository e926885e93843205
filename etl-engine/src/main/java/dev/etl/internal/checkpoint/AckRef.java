package dev.etl.internal.checkpoint;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The acknowledgement of one (poll batch, partition): a reference count plus a merged status.
 *
 * <p>Life cycle: the lane creates it with one reference (its own hold) for the batch it is about to
 * push through the chain. Every holder that keeps data derived from the batch beyond the lane's
 * {@code accept} call — in practice each sink chunk that received at least one of its rows —
 * {@link #retain() retains} it once and {@link #release(boolean) releases} it exactly once: with
 * {@code true} after a durable write, with {@code false} on any other path (write failed, chunk
 * dropped, shutdown abandoned it). Records that were filtered out or skipped take no reference, so
 * they resolve as success when the lane releases its own hold. Several outputs holding the same ack
 * merge their statuses: one failure fails the batch ("worst status wins").
 *
 * <p>When the last reference is released, the ack posts itself to its lane's {@link AckQueue}
 * exactly once. The queue is unbounded and lock-free, so releasing never blocks the releasing
 * (io) thread.
 *
 * <p><b>Group acks.</b> A stateful operator that emits values derived from several batches (a window,
 * a one-deep buffer) emits them under a {@link #group group ack}: it owns one reference on each
 * of its parents, and when its own last reference is released it releases each parent once with
 * its merged status instead of posting itself. So a parent batch resolves only after every output
 * of the values it contributed to is written (or failed), exactly as a batch shared by a
 * {@code flatMap}'s children does. Groups may nest (a group's parent may be a group).
 *
 * <p>Thread-safety: {@link #retain()} and {@link #release(boolean)} may be called from any thread.
 * {@code retain} must only be called by a thread that already holds a reference (the lane, while its
 * own hold is still open), so the count can never rise from zero.
 */
public final class AckRef {
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

    private final int partition;
    private final int epoch;
    private final long seq;
    private final AckQueue queue;
    /** Non-null for a group ack: the acks it holds one reference on each, released with its status. */
    private final AckRef[] parents;

    @SuppressWarnings("unused") // accessed through REFS
    private volatile int refs = 1;

    @SuppressWarnings("unused") // accessed through FAILED
    private volatile boolean failed;

    /** Creates an ack holding one reference (the creator's). */
    public AckRef(int partition, int epoch, long seq, AckQueue queue) {
        this.partition = partition;
        this.epoch = epoch;
        this.seq = seq;
        this.queue = queue;
        this.parents = null;
    }

    private AckRef(AckRef[] parents) {
        this.partition = -1;
        this.epoch = -1;
        this.seq = -1;
        this.queue = null;
        this.parents = parents;
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

    public int partition() {
        return partition;
    }

    public int epoch() {
        return epoch;
    }

    public long seq() {
        return seq;
    }

    /** Whether every released reference so far reported success (final once posted). */
    public boolean succeeded() {
        return !(boolean) FAILED.getAcquire(this);
    }

    /** Current reference count (for tests and diagnostics). */
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
     * queue. Releasing more often than retained is a bug and throws.
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
            throw new IllegalStateException("release() without a matching reference " + this);
        }
    }

    private void releaseParents() {
        boolean merged = succeeded();
        RuntimeException first = null;
        for (AckRef parent : parents) {
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

    @Override
    public String toString() {
        if (parents != null) {
            return "AckRef[group of " + parents.length + ", refs=" + refCount() + ", failed=" + !succeeded() + "]";
        }
        return "AckRef[partition=" + partition + ", epoch=" + epoch + ", seq=" + seq + ", refs=" + refCount()
                + ", failed=" + !succeeded() + "]";
    }
}
