package dev.etl.internal.sink;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Recycled chunks of one sink, one bounded free list per shard (a chunk belongs to one shard for
 * life). Lanes take chunks, shard workers give them back once merged or abandoned; when a list is
 * empty a new chunk is allocated. In steady state chunks circulate and no buffer is allocated.
 *
 * <p>Bounded in memory, not only in count, because a buffer keeps whatever capacity it grew to: a
 * returned chunk is left to the garbage collector when its buffer is larger than
 * {@link #MAX_POOLED_CHUNK_BYTES}, or when keeping it would take the shard's free list past
 * {@link #MAX_POOLED_BYTES_PER_SHARD} of buffer capacity (or past {@code capacityPerShard} chunks). So
 * idle chunks retain at most {@code shards × MAX_POOLED_BYTES_PER_SHARD} per sink.
 *
 * <p>Thread-safe and lock-free; never blocks.
 */
final class ChunkPool {
    /** Starting capacity of a new chunk's buffer; it grows to what the lane encodes and keeps it. */
    static final int INITIAL_CHUNK_BYTES = 16 * 1024;
    /**
     * Largest buffer kept for reuse: a chunk handed off at the default chunk size (1 MiB) has grown to
     * 2 MiB by doubling. Larger ones (a lane that kept a refused chunk growing) are not kept.
     */
    static final int MAX_POOLED_CHUNK_BYTES = 2 << 20;
    /** Buffer capacity the free list of one shard may retain: two full-size chunks, or 256 small ones. */
    static final long MAX_POOLED_BYTES_PER_SHARD = 4L << 20;

    private final BoundedQueue<Chunk>[] free;
    private final AtomicLong[] pooledBytes;

    @SuppressWarnings({"unchecked", "rawtypes"}) // generic array of queues
    ChunkPool(int shardCount, int capacityPerShard) {
        this.free = new BoundedQueue[shardCount];
        this.pooledBytes = new AtomicLong[shardCount];
        for (int shard = 0; shard < shardCount; shard++) {
            free[shard] = new BoundedQueue<>(capacityPerShard);
            pooledBytes[shard] = new AtomicLong();
        }
    }

    /** An empty chunk for {@code shard}: a recycled one, or a new one. */
    Chunk take(int shard) {
        Chunk chunk = free[shard].poll();
        if (chunk == null) {
            return new Chunk(shard, INITIAL_CHUNK_BYTES);
        }
        pooledBytes[shard].addAndGet(-chunk.rows().capacity());
        return chunk;
    }

    /** Returns a chunk whose acks were released or transferred; clears it, keeps it if it fits. */
    void recycle(Chunk chunk) {
        chunk.clear();
        int capacity = chunk.rows().capacity();
        if (capacity > MAX_POOLED_CHUNK_BYTES) {
            return;
        }
        int shard = chunk.shard();
        AtomicLong bytes = pooledBytes[shard];
        if (bytes.addAndGet(capacity) > MAX_POOLED_BYTES_PER_SHARD || !free[shard].offer(chunk)) {
            bytes.addAndGet(-capacity);
        }
    }

    /** Buffer capacity retained by the free lists (memory accounting; a snapshot). */
    long pooledBytes() {
        long total = 0;
        for (AtomicLong bytes : pooledBytes) {
            total += bytes.get();
        }
        return total;
    }
}
