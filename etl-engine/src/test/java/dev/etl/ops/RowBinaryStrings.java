package dev.etl.ops;

import dev.etl.internal.sink.Chunk;
import dev.etl.sink.RowBuffer;
import dev.etl.sink.RowEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Test rows of one RowBinary {@code String} column: the encoder, and a decoder of chunk bytes. */
final class RowBinaryStrings {
    /** Encodes a value's {@code toString()} as one String column. */
    static final RowEncoder<Object> ENCODER = (value, meta, out) -> out.writeString(value.toString());

    private RowBinaryStrings() {}

    static List<String> decode(Chunk chunk) {
        return decode(chunk.rows());
    }

    static List<String> decode(RowBuffer rows) {
        byte[] bytes = rows.toByteArray();
        List<String> decoded = new ArrayList<>();
        int p = 0;
        while (p < bytes.length) {
            long length = 0;
            int shift = 0;
            int b;
            do {
                b = bytes[p++] & 0xff;
                length |= (long) (b & 0x7f) << shift;
                shift += 7;
            } while ((b & 0x80) != 0);
            decoded.add(new String(bytes, p, (int) length, StandardCharsets.UTF_8));
            p += (int) length;
        }
        return decoded;
    }
}
