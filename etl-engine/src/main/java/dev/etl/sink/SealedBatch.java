package dev.etl.sink;

/**
 * A batch a shard worker has sealed and is writing: the merged RowBinary bytes of one or more chunks,
 * their row count, and a deduplication token.
 *
 * <p>Once sealed the bytes never change: every retry, on any replica, sends exactly the same bytes
 * with the same {@link #dedupToken()}, so a server that saw an earlier attempt succeed drops the
 * repeat. The token is a deterministic function of the shard and the bytes.
 *
 * <p>Owned by its shard worker; {@link ShardWriter}s read it during {@code write} and must not keep
 * it afterwards (its buffer is reused for a later batch).
 */
public interface SealedBatch {
    /** Name of the sink this batch belongs to. */
    String sinkName();

    /** Shard index in {@code [0, shardCount)}. */
    int shard();

    /** Per-shard sequence number of this batch in this process (diagnostics only). */
    long sequence();

    /** The encoded rows; valid bytes are {@code [0, byteCount())}. Do not modify. */
    byte[] bytes();

    int byteCount();

    int rowCount();

    /** Deterministic deduplication token for this content. */
    String dedupToken();

    /** 1 for the first attempt, incremented for every retry. */
    int attempt();

    /**
     * The column layout of every row in the batch ({@link RowEncoder#layout()} of the encoder that wrote
     * them): a batch never mixes layouts, and a retry keeps its layout. 0 unless the sink's encoders
     * evolve; a writer maps it to the columns its insert names (a ClickHouse sink's {@code ColumnLayouts})
     * and fails the batch permanently for a layout it does not know.
     */
    default int layout() {
        return 0;
    }
}
