package dev.etl.internal.sink;

/**
 * What a lane's {@link ChunkOutbox} needs from a sink: its shard count, empty chunks, and a
 * non-blocking hand-off. {@link SinkRuntime} is the production implementation; tests substitute a
 * recording fake.
 *
 * <p>Thread-safety: implementations must allow {@link #newChunk} and {@link #tryHandOff} from any lane
 * thread, and neither may block.
 */
public interface ChunkSink {
    /** Number of shards; constant for the life of the sink. */
    int shardCount();

    /** An empty chunk for {@code shard}, recycled when possible. Any thread; never blocks. */
    Chunk newChunk(int shard);

    /**
     * Hands a non-empty chunk over if there is room; on {@code true} ownership (and the chunk's ack
     * references) moves to the sink. On {@code false} nothing changed and the caller still owns the
     * chunk. Any thread; never blocks.
     */
    boolean tryHandOff(Chunk chunk);
}
