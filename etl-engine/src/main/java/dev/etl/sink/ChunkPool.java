package dev.etl.sink;

/**
 * Recycled chunks of one sink, one bounded free list per shard (a chunk belongs to one shard for
 * life). Lanes take chunks, shard workers give them back once merged or abandoned; when a list is
 * empty a new chunk is allocated, when it is full a returned chunk is left to the garbage collector.
 * In steady state chunks circulate and no buffer is allocated.
 *
 * <p>Thread-safe and lock-free; never blocks.
 */
final class ChunkPool {
    /** Starting capacity of a new chunk's buffer; it grows to what the lane encodes and keeps it. */
    static final int INITIAL_CHUNK_BYTES = 16 * 1024;

    private final BoundedQueue<Chunk>[] free;

    @SuppressWarnings({"unchecked", "rawtypes"}) // generic array of queues
    ChunkPool(int shardCount, int capacityPerShard) {
        this.free = new BoundedQueue[shardCount];
        for (int shard = 0; shard < shardCount; shard++) {
            free[shard] = new BoundedQueue<>(capacityPerShard);
        }
    }

    /** An empty chunk for {@code shard}: a recycled one, or a new one. */
    Chunk take(int shard) {
        Chunk chunk = free[shard].poll();
        return chunk != null ? chunk : new Chunk(shard, INITIAL_CHUNK_BYTES);
    }

    /** Returns a chunk whose acks were released or transferred; clears it. */
    void recycle(Chunk chunk) {
        chunk.clear();
        free[chunk.shard()].offer(chunk);
    }
}
