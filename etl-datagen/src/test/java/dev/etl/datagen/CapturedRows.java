package dev.etl.datagen;

import dev.etl.record.Payload;
import dev.etl.sink.RowEncoder;
import dev.etl.test.capture.CaptureScript;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.Map;

/** Rows of (partition UInt32, offset UInt64) written to a capture sink, counted per record (tests). */
final class CapturedRows {
    /** One row per record: where it came from. */
    static final RowEncoder<Payload> POSITION = (value, meta, out) -> {
        out.writeIntLE(meta.partition());
        out.writeLongLE(meta.offset());
    };

    private CapturedRows() {}

    static long key(int partition, long offset) {
        return ((long) partition << 40) | offset;
    }

    /** How often each (partition, offset) was written so far. */
    static Map<Long, Integer> counts(CaptureScript script) {
        Map<Long, Integer> counts = new HashMap<>();
        for (CaptureScript.Write write : script.writes()) {
            ByteBuffer rows = ByteBuffer.wrap(write.bytes()).order(ByteOrder.LITTLE_ENDIAN);
            while (rows.hasRemaining()) {
                counts.merge(key(rows.getInt(), rows.getLong()), 1, Integer::sum);
            }
        }
        return counts;
    }
}
