package dev.etl.testcontainers;

import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.sink.SealedBatch;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Sealed blocks of RowBinary rows {@code (id UInt64, encoded_at UInt64)}, written straight to a shard writer. */
final class UInt64Blocks {

    /** The columns the blocks hold, for the sink definition. */
    static final RowBinaryEncoder<long[]> ENCODER = RowBinaryEncoder.<long[]>builder()
            .uint64("id", (row) -> row[0])
            .uint64("encoded_at", (row) -> row[1])
            .build();

    private UInt64Blocks() {}

    /** Rows {@code (id, encodedAt)} for ids in {@code [from, to)}, as one sealed block with the token. */
    static SealedBatch block(long from, long to, long encodedAt, String token) {
        int rows = (int) (to - from);
        ByteBuffer bytes = ByteBuffer.allocate(rows * 16).order(ByteOrder.LITTLE_ENDIAN);
        for (long id = from; id < to; id++) {
            bytes.putLong(id).putLong(encodedAt);
        }
        return new SealedBatch() {
            @Override
            public String sinkName() {
                return "clickhouse";
            }

            @Override
            public int shard() {
                return 0;
            }

            @Override
            public long sequence() {
                return from;
            }

            @Override
            public byte[] bytes() {
                return bytes.array();
            }

            @Override
            public int byteCount() {
                return bytes.capacity();
            }

            @Override
            public int rowCount() {
                return rows;
            }

            @Override
            public String dedupToken() {
                return token;
            }

            @Override
            public int attempt() {
                return 1;
            }
        };
    }
}
