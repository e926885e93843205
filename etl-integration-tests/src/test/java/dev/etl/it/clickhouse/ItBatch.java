package dev.etl.it.clickhouse;

import dev.etl.sink.RowBuffer;
import dev.etl.sink.SealedBatch;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** A sealed batch for driving a ShardWriter directly (the engine's shard worker does this in production). */
record ItBatch(
        String sinkName,
        int shard,
        long sequence,
        byte[] bytes,
        int byteCount,
        int rowCount,
        String dedupToken,
        int attempt,
        int layout)
        implements SealedBatch {

    static ItBatch of(int shard, long sequence, RowBuffer rows, int rowCount) {
        byte[] bytes = rows.toByteArray();
        return new ItBatch("orders", shard, sequence, bytes, bytes.length, rowCount, token(shard, bytes), 1, 0);
    }

    ItBatch retry() {
        return new ItBatch(sinkName, shard, sequence, bytes, byteCount, rowCount, dedupToken, attempt + 1, layout);
    }

    /** This batch as rows of column {@code layout}. */
    ItBatch inLayout(int layout) {
        return new ItBatch(sinkName, shard, sequence, bytes, byteCount, rowCount, dedupToken, attempt, layout);
    }

    private static String token(int shard, byte[] bytes) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            md.update(("orders/" + shard + "/").getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(md.digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
