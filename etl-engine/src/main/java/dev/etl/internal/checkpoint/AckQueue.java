package dev.etl.internal.checkpoint;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;

/**
 * The lane's inbox of completed acks: many producers (io threads releasing the last reference, or
 * the lane itself), one consumer (the lane, which feeds them to its {@link Checkpointer}).
 *
 * <p>Unbounded and lock-free by design: the ack path must never block behind data, so
 * {@link #post} always succeeds immediately. Its size is bounded in practice by the number of
 * outstanding batches, which backpressure bounds.
 *
 * <p>Built on the JDK's lock-free {@link ConcurrentLinkedQueue} (one node per posted ack, i.e. per
 * batch, not per record) rather than Agrona's queues: Agrona 2.x's concurrent structures need
 * {@code --add-exports java.base/jdk.internal.misc=ALL-UNNAMED}, and a library must not impose JVM
 * flags on every application (see DESIGN.md, decision log).
 */
public final class AckQueue {
    private final ConcurrentLinkedQueue<AckRef> queue = new ConcurrentLinkedQueue<>();

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
