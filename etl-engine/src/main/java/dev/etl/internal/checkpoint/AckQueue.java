package dev.etl.internal.checkpoint;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.Consumer;

/**
 * The lane's inbox of completed acks, and the pool its acks come from: many producers (io threads
 * releasing the last reference, or the lane itself), one consumer (the lane, which takes acks from
 * the pool for its batches and feeds completed ones to its {@link Checkpointer}).
 *
 * <p><b>Inbox.</b> Unbounded and lock-free by design: the ack path must never block behind data, so
 * {@link #post} always succeeds at once (a CAS loop, retried only when another producer posted in
 * between). Its size is bounded in practice by the number of outstanding batches, which
 * backpressure bounds. It is intrusive: the link lives in the {@link AckRef} itself, so posting
 * allocates nothing. Producers push onto a Treiber stack; the consumer takes the whole stack with one
 * {@code getAndSet(null)} and reverses it in place, so {@link #drain} hands acks over in the order
 * their posts took effect — in particular in posting order per producer. Only the consumer
 * dereferences links and it takes nodes only as a whole list, so the stack has no ABA problem: a
 * producer's CAS succeeds only if the head is still the node it linked to, which is all a push needs.
 * Built on {@link VarHandle}s rather than Agrona's queues: Agrona 2.x's concurrent structures need
 * {@code --add-exports java.base/jdk.internal.misc=ALL-UNNAMED}, and a library must not impose JVM
 * flags on every application (see DESIGN.md, decision log).
 *
 * <p><b>Pool.</b> {@link #acquire} hands out an ack recycled by an earlier {@link #drain} when one is
 * waiting, else a new one; {@code drain} recycles each ack it acquired once the handler has returned.
 * So in steady state a lane allocates no ack per batch. Why reuse is safe is argued in
 * {@link AckRef}'s class comment. The free list is a plain first-in first-out ring confined to the
 * lane thread (no locks, no atomics of its own); it grows with the acks drained and not yet reused
 * at once (at most what was outstanding), capped at {@code maxPooledAcks} so a burst does not pin
 * memory for ever: acks drained while the pool is full are left to the garbage collector.
 *
 * <p>Threads: {@link #post} from any thread; everything else from the owning lane thread only (or,
 * after a hand-over with a happens-before edge such as {@link Thread#join}, from one other thread at
 * a time).
 */
public final class AckQueue {
    /** Default cap of the pool: at about 56 bytes an ack, at most about 56 KiB kept per lane after a burst. */
    public static final int DEFAULT_MAX_POOLED_ACKS = 1024;

    private static final int INITIAL_POOL_CAPACITY = 16;
    private static final VarHandle HEAD;

    static {
        try {
            HEAD = MethodHandles.lookup().findVarHandle(AckQueue.class, "head", AckRef.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Top of the stack of posted acks (newest first). */
    @SuppressWarnings("unused") // accessed through HEAD
    private volatile AckRef head;

    // Consumer (lane thread) state.
    /** Acks taken from the stack, oldest first, not yet handed over (non-null only if a handler threw). */
    private AckRef taken;

    private final int maxPooledAcks;
    private AckRef[] pool;
    private long poolHead;
    private long poolTail;
    private long acksCreated;
    private long acksReused;

    /** Creates a queue whose pool keeps up to {@link #DEFAULT_MAX_POOLED_ACKS} acks. */
    public AckQueue() {
        this(DEFAULT_MAX_POOLED_ACKS);
    }

    /**
     * Creates a queue whose pool keeps up to {@code maxPooledAcks} drained acks for reuse (0: no
     * pooling, every {@link #acquire} allocates).
     */
    public AckQueue(int maxPooledAcks) {
        if (maxPooledAcks < 0 || maxPooledAcks > 1 << 30) {
            throw new IllegalArgumentException("maxPooledAcks must be in [0, 2^30]: " + maxPooledAcks);
        }
        this.maxPooledAcks = maxPooledAcks;
        this.pool = new AckRef[Math.min(INITIAL_POOL_CAPACITY, Math.max(1, Integer.highestOneBit(maxPooledAcks)))];
    }

    /**
     * An ack for a new batch, holding one reference (the caller's) and posting to this queue: a
     * recycled one when the pool has one, else a new one. Lane thread only. The ack is pooled: after
     * its last release and the {@link #drain} that hands it to the handler, it is reused for a later
     * batch, so nobody may keep it beyond its reference.
     */
    public AckRef acquire(int partition, int epoch, long seq) {
        while (poolHead != poolTail) {
            AckRef[] pool = this.pool;
            int index = (int) poolHead & (pool.length - 1);
            AckRef ack = pool[index];
            pool[index] = null;
            poolHead++;
            if (ack.reuse(partition, epoch, seq)) {
                acksReused++;
                return ack;
            }
            // A stray release or retain hit it in the pool (and threw at its caller): never reuse it.
        }
        acksCreated++;
        return new AckRef(partition, epoch, seq, this, true);
    }

    /**
     * Enqueues a completed ack (its count is zero). Any thread; never blocks, never fails. The caller
     * must not touch the ack afterwards: once posted it may be drained and reused at any moment.
     */
    public void post(AckRef ack) {
        AckRef current;
        do {
            current = (AckRef) HEAD.getVolatile(this);
            ack.next = current;
            // The CAS publishes the link and everything the releasing thread wrote before it.
        } while (!HEAD.compareAndSet(this, current, ack));
    }

    /**
     * Hands every ack posted before this call to {@code handler}, in the order the posts took effect
     * (so in posting order per producer); then recycles each ack this queue's {@link #acquire} made.
     * The handler must not keep the ack once it returns. Only the owning lane thread may call this.
     * Returns how many were handed over. If the handler throws, the ack it was given is dropped (not
     * recycled) and the rest wait for the next drain.
     */
    public int drain(Consumer<AckRef> handler) {
        int count = 0;
        boolean tookStack = false;
        while (true) {
            AckRef ack = taken;
            if (ack == null) {
                if (tookStack || (ack = takeStack()) == null) {
                    return count;
                }
                tookStack = true;
            }
            taken = ack.next;
            ack.next = null;
            handler.accept(ack);
            count++;
            if (ack.isPooledBy(this)) {
                recycle(ack);
            }
        }
    }

    /** Takes every posted ack and returns them oldest first, or null when none is waiting. */
    private AckRef takeStack() {
        if (HEAD.getAcquire(this) == null) {
            return null; // the common idle case costs a load, not an atomic exchange
        }
        AckRef node = (AckRef) HEAD.getAndSet(this, (AckRef) null);
        AckRef reversed = null;
        while (node != null) {
            AckRef following = node.next;
            node.next = reversed;
            reversed = node;
            node = following;
        }
        return reversed;
    }

    private void recycle(AckRef ack) {
        long size = poolTail - poolHead;
        if (size >= maxPooledAcks || !ack.recycle()) {
            return; // pool full, or a stray release disturbed the ack: leave it to the garbage collector
        }
        if (size == pool.length) {
            growPool();
        }
        AckRef[] pool = this.pool;
        pool[(int) poolTail & (pool.length - 1)] = ack;
        poolTail++;
    }

    /** Doubles the ring (rare: only while the acks outstanding at once reach a new high). */
    private void growPool() {
        AckRef[] old = pool;
        AckRef[] grown = new AckRef[old.length << 1];
        int size = (int) (poolTail - poolHead);
        for (int i = 0; i < size; i++) {
            grown[i] = old[(int) (poolHead + i) & (old.length - 1)];
        }
        pool = grown;
        poolHead = 0;
        poolTail = size;
    }

    /** Whether nothing is waiting to be drained (a snapshot: producers may post concurrently). Lane thread. */
    public boolean isEmpty() {
        return taken == null && HEAD.getAcquire(this) == null;
    }

    /** Acks resting in the pool now. Lane thread; for tests and diagnostics. */
    public int pooledAcks() {
        return (int) (poolTail - poolHead);
    }

    /** Acks {@link #acquire} had to allocate so far. Lane thread; for tests and diagnostics. */
    public long acksCreated() {
        return acksCreated;
    }

    /** Acks {@link #acquire} took from the pool so far. Lane thread; for tests and diagnostics. */
    public long acksReused() {
        return acksReused;
    }

    @Override
    public String toString() {
        return "AckQueue[pooled=" + pooledAcks() + ", created=" + acksCreated + ", reused=" + acksReused + "]";
    }
}
