package dev.etl.checkpoint;

import java.util.function.Consumer;

import org.agrona.concurrent.ManyToOneConcurrentLinkedQueue;

/**
 * The lane's inbox of completed acks: many producers (io threads releasing the last reference, or
 * the lane itself), one consumer (the lane, which feeds them to its {@link Checkpointer}).
 *
 * <p>Unbounded and lock-free by design: the ack path must never block behind data, so
 * {@link #post} always succeeds immediately. Its size is bounded in practice by the number of
 * outstanding batches, which backpressure bounds.
 */
public final class AckQueue {
    private final ManyToOneConcurrentLinkedQueue<AckRef> queue = new ManyToOneConcurrentLinkedQueue<>();

    /** Enqueues a completed ack. Any thread; never blocks. */
    public void post(AckRef ack) {
        queue.offer(ack);
    }

    /**
     * Hands every ack posted so far to {@code handler}, in posting order per producer. Only the
     * owning lane thread may call this. Returns how many were drained.
     */
    public int drain(Consumer<AckRef> handler) {
        int count = 0;
        AckRef ack;
        while ((ack = queue.poll()) != null) {
            handler.accept(ack);
            count++;
        }
        return count;
    }

    /** Whether nothing is waiting (a snapshot; producers may post concurrently). */
    public boolean isEmpty() {
        return queue.isEmpty();
    }
}
