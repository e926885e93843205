package dev.etl.internal.sink;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The hand-off from lanes to one shard worker: a bounded many-to-one chunk queue, plus the count of
 * chunks handed off and not yet resolved (queued, merged into a batch, or being written).
 *
 * <p>The count is what {@link SinkRuntime#isIdle()} and shutdown drains look at. A lane
 * {@link #beginHandOff(int) counts a chunk in} before it offers it, and a worker counts chunks out only
 * after their acks and budget were released, so a zero count means every handed-off chunk is settled.
 * Counting in before the offer also lets shutdown close the door without a lock: a lane counts in,
 * then checks the closed flag; shutdown sets the flag, then waits for the count (both sequentially
 * consistent), so a chunk is either refused or seen by the drain.
 *
 * <p>Offers: any lane thread. Peek and poll: the shard's worker only (or the shutdown thread once the
 * worker has stopped).
 */
final class ShardQueue {
    private final BoundedQueue<Chunk> queue;
    private final AtomicLong unsettledChunks = new AtomicLong();
    /** Chunks in the queue's entries (a block chain counts all its chunks). */
    private final AtomicInteger queuedChunks = new AtomicInteger();

    private final int capacity;

    ShardQueue(int capacity) {
        this.queue = new BoundedQueue<>(capacity);
        this.capacity = capacity;
    }

    /**
     * Counts in {@code chunks} chunks about to be offered as one entry (a block chain, or 1). Must be
     * followed by {@link #offer} or {@link #cancelHandOff}.
     */
    void beginHandOff(int chunks) {
        unsettledChunks.addAndGet(chunks);
    }

    /** Undoes {@link #beginHandOff(int)} for an entry that was refused. */
    void cancelHandOff(int chunks) {
        unsettledChunks.addAndGet(-chunks);
    }

    /**
     * Enqueues a counted-in entry of {@code chunks} chunks (a block chain, or 1); false when the queue's
     * capacity, counted in chunks, has no room for them. An entry larger than the whole capacity is taken
     * when the queue is empty, so a large block cannot wait forever. Never blocks.
     */
    boolean offer(Chunk chunk, int chunks) {
        while (true) {
            int queued = queuedChunks.get();
            if (queued > 0 && queued + chunks > capacity) {
                return false;
            }
            if (queuedChunks.compareAndSet(queued, queued + chunks)) {
                break;
            }
        }
        chunk.queuedChunks = chunks;
        // Entries never outnumber the chunks reserved above, so the entry queue has room.
        if (!queue.offer(chunk)) {
            queuedChunks.addAndGet(-chunks);
            return false;
        }
        return true;
    }

    /** The next chunk without removing it, or null. Consumer only. */
    Chunk peek() {
        return queue.peek();
    }

    /** Removes the next chunk, or null. Consumer only. */
    Chunk poll() {
        Chunk chunk = queue.poll();
        if (chunk != null) {
            queuedChunks.addAndGet(-chunk.queuedChunks);
        }
        return chunk;
    }

    /** Counts out {@code chunks} chunks whose acks and budget have been released. */
    void settled(int chunks) {
        unsettledChunks.addAndGet(-chunks);
    }

    /** Chunks handed off (or being handed off) and not yet settled. */
    long unsettledChunks() {
        return unsettledChunks.get();
    }

    /** Buffer capacity of the chunks waiting in the queue (memory accounting; a weakly consistent snapshot). */
    long queuedCapacity() {
        return queue.sumOf(Chunk::chainCapacity);
    }

    /** Chunks waiting in the queue, a block chain counting all of its chunks (a snapshot). */
    int size() {
        return queuedChunks.get();
    }
}
