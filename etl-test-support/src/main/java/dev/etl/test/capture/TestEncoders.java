package dev.etl.test.capture;

import dev.etl.record.Payload;
import dev.etl.sink.RowEncoder;

/** Row encoders for tests: one ClickHouse {@code String} column per row. */
public final class TestEncoders {
    private TestEncoders() {}

    /** Writes a {@code byte[]} as one String column (LEB128 length + bytes). */
    public static RowEncoder<byte[]> bytes() {
        return (value, meta, out) -> out.writeStringBytes(value, 0, value.length);
    }

    /** Writes a {@link Payload} view as one String column, without copying it first. */
    public static RowEncoder<Payload> payload() {
        return (value, meta, out) -> out.writeStringBytes(value.array(), value.offset(), value.length());
    }

    /** Writes a {@code String} as one String column. */
    public static RowEncoder<String> string() {
        return (value, meta, out) -> out.writeString(value);
    }

    /**
     * Decodes the rows of a capture write back into strings (one String column per row).
     */
    public static java.util.List<String> decodeStrings(byte[] bytes) {
        java.util.List<String> rows = new java.util.ArrayList<>();
        int p = 0;
        while (p < bytes.length) {
            long len = 0;
            int shift = 0;
            byte b;
            do {
                b = bytes[p++];
                len |= (long) (b & 0x7F) << shift;
                shift += 7;
            } while ((b & 0x80) != 0);
            rows.add(new String(bytes, p, (int) len, java.nio.charset.StandardCharsets.UTF_8));
            p += (int) len;
        }
        return rows;
    }
}
