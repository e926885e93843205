package dev.etl.internal.sink;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A bounded, lock-free, multi-producer multi-consumer queue: the JDK's {@link ConcurrentLinkedQueue}
 * with a capacity enforced by reserving a slot (CAS on a counter) before enqueueing.
 *
 * <p>Why not Agrona's array queues: Agrona 2.x needs {@code --add-exports
 * java.base/jdk.internal.misc=ALL-UNNAMED} for them, and a library must not impose JVM flags. The
 * cost is one queue node per {@link #offer} — per chunk, never per record.
 *
 * <p>{@link #size()} counts reserved slots, so it may briefly exceed the number of pollable elements
 * while an offer is between its reservation and its enqueue; it never exceeds the capacity.
 */
final class BoundedQueue<E> {
    private final ConcurrentLinkedQueue<E> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();
    private final int capacity;

    BoundedQueue(int capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be > 0, got " + capacity);
        }
        this.capacity = capacity;
    }

    /** Enqueues unless full; never blocks. */
    boolean offer(E element) {
        while (true) {
            int current = size.get();
            if (current >= capacity) {
                return false;
            }
            if (size.compareAndSet(current, current + 1)) {
                queue.offer(element);
                return true;
            }
        }
    }

    /** Removes the head, or returns null when empty. */
    E poll() {
        E element = queue.poll();
        if (element != null) {
            size.decrementAndGet();
        }
        return element;
    }

    E peek() {
        return queue.peek();
    }

    /** Sum of {@code value} over the elements (weakly consistent; diagnostics, not the hot path). */
    long sumOf(java.util.function.ToLongFunction<E> value) {
        long sum = 0;
        for (E element : queue) {
            sum += value.applyAsLong(element);
        }
        return sum;
    }

    int size() {
        return size.get();
    }

    int capacity() {
        return capacity;
    }
}
