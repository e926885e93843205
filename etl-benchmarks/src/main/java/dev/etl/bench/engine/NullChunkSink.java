package dev.etl.bench.engine;

import dev.etl.internal.sink.Chunk;
import dev.etl.internal.sink.ChunkSink;

/**
 * A sink whose "write" is instant: a handed-off chunk's acks succeed at once and the chunk is
 * recycled, so the benchmark measures the lane-side engine path (route, encode, chunk, ack) without
 * io. Single-threaded, like the lane that uses it.
 */
final class NullChunkSink implements ChunkSink {
    private final Chunk[] spare;
    long bytesWritten;
    long rowsWritten;

    NullChunkSink(int shards) {
        spare = new Chunk[shards];
        for (int i = 0; i < shards; i++) {
            spare[i] = new Chunk(i, 64 * 1024);
        }
    }

    @Override
    public int shardCount() {
        return spare.length;
    }

    @Override
    public Chunk newChunk(int shard) {
        Chunk chunk = spare[shard];
        if (chunk == null) {
            return new Chunk(shard, 64 * 1024);
        }
        spare[shard] = null;
        return chunk;
    }

    @Override
    public boolean tryHandOff(Chunk chunk) {
        bytesWritten += chunk.byteCount();
        rowsWritten += chunk.rowCount();
        chunk.succeedAcks();
        spare[chunk.shard()] = chunk;
        return true;
    }
}
