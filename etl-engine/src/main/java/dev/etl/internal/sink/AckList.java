package dev.etl.internal.sink;

import dev.etl.internal.checkpoint.AckRef;
import java.util.Arrays;

/**
 * A growable list of held ack references, for batch accumulators. Whoever holds an {@code AckList}
 * must end it with exactly one of {@link #releaseAll(boolean)}: success only after a durable write.
 * Not thread-safe.
 */
public final class AckList {
    private AckRef[] acks = new AckRef[16];
    private int size;

    /** Adds a reference the caller already holds (ownership moves to this list). */
    public void add(AckRef ack) {
        if (size == acks.length) {
            acks = Arrays.copyOf(acks, size << 1);
        }
        acks[size++] = ack;
    }

    public int size() {
        return size;
    }

    public AckRef get(int i) {
        return acks[i];
    }

    /**
     * Releases every reference with {@code success} and empties the list. If a release throws, the
     * others are still released (each exactly once) before the first throwable is rethrown.
     */
    public void releaseAll(boolean success) {
        Throwable first = null;
        for (int i = 0; i < size; i++) {
            AckRef ack = acks[i];
            if (ack == null) {
                continue;
            }
            acks[i] = null;
            try {
                ack.release(success);
            } catch (Throwable t) {
                if (first == null) {
                    first = t;
                }
            }
        }
        size = 0;
        if (first instanceof RuntimeException e) {
            throw e;
        }
        if (first instanceof Error e) {
            throw e;
        }
    }
}
