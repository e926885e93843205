package dev.etl.avro.clickhouse;

import dev.etl.avro.binary.AvroCursor;
import dev.etl.sink.RowBuffer;

/** Avro's {@code uuid} on a {@code string} as ClickHouse's UUID (two little-endian halves, high first). */
final class UuidText {
    private UuidText() {}

    /** The canonical 36-character text form (what Avro's UUID conversion writes) as ClickHouse's UUID. */
    static void write(AvroCursor in, RowBuffer out) {
        int at = in.position();
        int length = in.readLength();
        if (length != 36) {
            in.skip(length);
            throw new ValueRejected(
                    "a uuid string of " + length + " bytes at byte " + at + " (expected the 36-character form)");
        }
        long high = 0;
        long low = 0;
        for (int i = 0; i < 36; i++) {
            int c = in.peek(i);
            if (i == 8 || i == 13 || i == 18 || i == 23) {
                if (c != '-') {
                    in.skip(36);
                    throw new ValueRejected("malformed uuid string at byte " + at);
                }
                continue;
            }
            int digit = Character.digit(c, 16);
            if (digit < 0) {
                in.skip(36);
                throw new ValueRejected("malformed uuid string at byte " + at);
            }
            if (i < 18) {
                high = high << 4 | digit;
            } else {
                low = low << 4 | digit;
            }
        }
        in.skip(36);
        out.writeLongLE(high);
        out.writeLongLE(low);
    }
}
