package dev.etl.internal.sink;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Who owns an io thread's shard workers while it is inside a blocking {@link ShardWriter#write}: the
 * io thread, or — after the shutdown deadline — the shutdown thread, which may {@link #seize()} them
 * to abandon their data instead of waiting for a write that may never return.
 *
 * <p>Exactly one side wins the race for a write in progress: the io thread's {@link #exit()} and the
 * shutdown thread's {@link #seize()} are compare-and-sets from {@code WRITING}. The loser of an exit
 * must not touch worker state again. Entering is a volatile write, so everything the io thread did
 * before the write happens-before a successful seize.
 */
final class WriteGate {
    private static final int RUNNING = 0;
    private static final int WRITING = 1;
    private static final int SEIZED = 2;

    private final AtomicInteger state = new AtomicInteger(RUNNING);

    /** Io thread, before a write. */
    void enter() {
        state.set(WRITING);
    }

    /** Io thread, after a write: true if it still owns its workers, false if they were seized. */
    boolean exit() {
        return state.compareAndSet(WRITING, RUNNING);
    }

    /** Shutdown thread: takes the workers over if the io thread is inside a write. */
    boolean seize() {
        return state.compareAndSet(WRITING, SEIZED);
    }

    boolean isSeized() {
        return state.get() == SEIZED;
    }
}
