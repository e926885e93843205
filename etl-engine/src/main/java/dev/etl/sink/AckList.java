package dev.etl.sink;

import java.util.Arrays;

import dev.etl.checkpoint.AckRef;

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

    /** Releases every reference with {@code success} and empties the list. */
    public void releaseAll(boolean success) {
        for (int i = 0; i < size; i++) {
            AckRef ack = acks[i];
            acks[i] = null;
            ack.release(success);
        }
        size = 0;
    }
}
