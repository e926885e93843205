package dev.etl.sink;

/**
 * When a lane hands a chunk to its shard: at {@code maxRows} rows or {@code maxBytes} bytes, and in
 * any case at the end of every poll batch (so no ack waits in a lane for a quiet topic). A setting of
 * the sink ({@link SinkDefinition#chunks()}), the same for every chain that writes to it.
 */
public record ChunkConfig(int maxRows, int maxBytes) {
    public static final ChunkConfig DEFAULTS = new ChunkConfig(8192, 1 << 20);

    public ChunkConfig {
        if (maxRows <= 0 || maxBytes <= 0) {
            throw new IllegalArgumentException(
                    "chunk max-rows and max-bytes must be > 0, got " + maxRows + ", " + maxBytes);
        }
    }
}
