package dev.etl.bench.clickhouse;

import dev.etl.sink.SealedBatch;

/** A sealed batch over prepared RowBinary bytes, for driving a shard writer directly. */
record BenchBatch(
        String sinkName,
        int shard,
        long sequence,
        byte[] bytes,
        int byteCount,
        int rowCount,
        String dedupToken,
        int attempt)
        implements SealedBatch {

    static BenchBatch of(byte[] rows, int rowCount) {
        return new BenchBatch("bench", 0, 1, rows, rows.length, rowCount, "bench", 1);
    }
}
