package dev.etl.internal.pipeline;

import dev.etl.internal.sink.Chunk;
import dev.etl.internal.sink.ChunkSink;

/** A one-shard sink for lane-block tests that takes every hand-off (what it receives is not looked at). */
final class OneShardAcceptingSink implements ChunkSink {
    @Override
    public int shardCount() {
        return 1;
    }

    @Override
    public Chunk newChunk(int shard) {
        return new Chunk(shard, 64);
    }

    @Override
    public boolean tryHandOff(Chunk chunk) {
        return true;
    }
}
