package dev.etl.ops;

import dev.etl.internal.sink.Chunk;
import dev.etl.internal.sink.ChunkSink;
import java.util.ArrayList;
import java.util.List;

/** A {@link ChunkSink} that keeps every chunk handed to it, or refuses them while told to. */
final class RecordingChunkSink implements ChunkSink {
    private final int shardCount;
    private final List<Chunk> handedOff = new ArrayList<>();
    private boolean refusing;

    RecordingChunkSink(int shardCount) {
        this.shardCount = shardCount;
    }

    /** Makes further hand-offs fail (queue full) or succeed again. */
    void refuse(boolean refusing) {
        this.refusing = refusing;
    }

    List<Chunk> handedOff() {
        return handedOff;
    }

    @Override
    public int shardCount() {
        return shardCount;
    }

    @Override
    public Chunk newChunk(int shard) {
        return new Chunk(shard, 64);
    }

    @Override
    public boolean tryHandOff(Chunk chunk) {
        if (refusing) {
            return false;
        }
        handedOff.add(chunk);
        return true;
    }
}
