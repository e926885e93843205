package dev.etl.clickhouse;

import dev.etl.sink.SealedBatch;

/** A sealed batch for writer tests. */
record TestBatch(
        String sinkName,
        int shard,
        long sequence,
        byte[] bytes,
        int byteCount,
        int rowCount,
        String dedupToken,
        int attempt)
        implements SealedBatch {

    static TestBatch of(long sequence, int attempt) {
        byte[] bytes = {1, 2, 3};
        return new TestBatch("orders", 0, sequence, bytes, bytes.length, 1, "tok-" + sequence, attempt);
    }

    TestBatch retry() {
        return new TestBatch(sinkName, shard, sequence, bytes, byteCount, rowCount, dedupToken, attempt + 1);
    }
}
