package dev.etl.internal.sink;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Recycled chunks of one sink, one bounded free list per shard (a chunk belongs to one shard for
 * life). Lanes take chunks, shard workers give them back once merged or abandoned; when a list is
 * empty a new chunk is allocated. In steady state chunks circulate and no buffer is allocated.
 *
 * <p>Bounded in memory, not only in count, because a buffer keeps whatever capacity it grew to: a
 * returned chunk is left to the garbage collector when its buffer is larger than
 * {@link #MAX_POOLED_CHUNK_BYTES}, or when keeping it would take the shard's free list past its byte
 * cap ({@link #bytesPerShard}). So idle chunks retain at most {@code shards × bytesPerShard} per sink.
 *
 * <p>The cap scales with the in-flight budget because deterministic blocks return their chunks a block
 * at a time: a block's chain (tens of MiB in a backlog) is merged into its batch and recycled at once,
 * and the lanes take those chunks back while they fill the next blocks. A fixed few MiB per shard kept a
 * handful of a block's chunks and let the rest go, so the lanes allocated (and grew by doubling) most
 * chunks again; with a 2 GiB heap every chunk of 512 KiB or more is a humongous object in G1, and the
 * churn cost one young collection and one concurrent cycle per few chunks (90 of each in a 10M-order
 * run; docs/BENCHMARKS.md).
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
    /** The least buffer capacity the free list of one shard may retain: two full-size chunks, or 256 small ones. */
    static final long MIN_POOLED_BYTES_PER_SHARD = 4L << 20;

    private final BoundedQueue<Chunk>[] free;
    private final AtomicLong[] pooledBytes;
    private final long maxPooledBytesPerShard;

    /** @param maxPooledBytesPerShard the buffer capacity each shard's free list may retain ({@link #bytesPerShard}) */
    @SuppressWarnings({"unchecked", "rawtypes"}) // generic array of queues
    ChunkPool(int shardCount, long maxPooledBytesPerShard) {
        if (maxPooledBytesPerShard < MIN_POOLED_BYTES_PER_SHARD) {
            throw new IllegalArgumentException("pooled bytes per shard must be >= " + MIN_POOLED_BYTES_PER_SHARD
                    + ", got " + maxPooledBytesPerShard);
        }
        this.maxPooledBytesPerShard = maxPooledBytesPerShard;
        // Every pooled buffer has at least the initial capacity, so the byte cap bounds the count too.
        int capacityPerShard = (int) Math.min(Integer.MAX_VALUE, maxPooledBytesPerShard / INITIAL_CHUNK_BYTES);
        this.free = new BoundedQueue[shardCount];
        this.pooledBytes = new AtomicLong[shardCount];
        for (int shard = 0; shard < shardCount; shard++) {
            free[shard] = new BoundedQueue<>(capacityPerShard);
            pooledBytes[shard] = new AtomicLong();
        }
    }

    /**
     * The buffer capacity one shard's free list may retain: half the in-flight budget spread over the
     * shards (the lanes' open blocks, which these chunks refill, hold at most half the budget), and at
     * least {@link #MIN_POOLED_BYTES_PER_SHARD}.
     */
    static long bytesPerShard(long maxInFlightBytes, int shardCount) {
        return Math.max(MIN_POOLED_BYTES_PER_SHARD, maxInFlightBytes / (2L * shardCount));
    }

    /** The buffer capacity each shard's free list may retain. */
    long maxPooledBytesPerShard() {
        return maxPooledBytesPerShard;
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
        if (bytes.addAndGet(capacity) > maxPooledBytesPerShard || !free[shard].offer(chunk)) {
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
