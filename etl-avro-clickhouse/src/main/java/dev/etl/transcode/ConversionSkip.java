package dev.etl.transcode;

import dev.etl.avro.binary.AvroCursor;
import dev.etl.avro.binary.MalformedAvroException;

/**
 * Skipping the value a {@link Conversion} would read, without writing: a static method on the
 * conversion's fields (no dispatch), recursing into union branches, the value under a Nullable and
 * array elements.
 */
final class ConversionSkip {
    private ConversionSkip() {}

    /** Skips the value conversion {@code c} would read, without writing (counting a multi-block array). */
    static void skip(Conversion c, AvroCursor in) {
        switch (c.op) {
            case Conversion.OP_NUMBER:
                switch (c.read) {
                    case Conversion.READ_INT, Conversion.READ_INT_AS_FLOAT, Conversion.READ_INT_AS_DOUBLE ->
                        in.readInt();
                    case Conversion.READ_LONG, Conversion.READ_LONG_AS_FLOAT, Conversion.READ_LONG_AS_DOUBLE ->
                        in.readLong();
                    case Conversion.READ_FLOAT -> in.skip(4);
                    default -> in.skip(8);
                }
                return;
            case Conversion.OP_INT_TO_INT32, Conversion.OP_INT_TO_INT64:
                in.readInt();
                return;
            case Conversion.OP_LONG_TO_INT64, Conversion.OP_LONG_TO_UINT64:
                in.readLong();
                return;
            case Conversion.OP_NULLABLE_STRING:
                if (in.readInt() != c.size) {
                    in.skipLengthPrefixed();
                }
                return;
            case Conversion.OP_FLOAT_TO_FLOAT32:
                in.skip(4);
                return;
            case Conversion.OP_DOUBLE_TO_FLOAT64:
                in.skip(8);
                return;
            case Conversion.OP_BOOL:
                in.readBoolean();
                return;
            case Conversion.OP_STRING,
                    Conversion.OP_BYTES_TO_FIXED_STRING,
                    Conversion.OP_DECIMAL_BYTES,
                    Conversion.OP_UUID_STRING:
                in.skipLengthPrefixed();
                return;
            case Conversion.OP_FIXED_TO_FIXED_STRING, Conversion.OP_FIXED_TO_STRING, Conversion.OP_DECIMAL_FIXED:
                in.skip(c.size);
                return;
            case Conversion.OP_UUID_FIXED:
                in.skip(16);
                return;
            case Conversion.OP_ENUM_CODE, Conversion.OP_ENUM_STRING:
                in.readInt();
                return;
            case Conversion.OP_NULL:
                return;
            case Conversion.OP_NOT_NULL:
                skip(c.children[0], in);
                return;
            case Conversion.OP_UNION: {
                int index = in.readInt();
                if (index < 0 || index >= c.children.length) {
                    throw new MalformedAvroException(
                            "union index " + index + " out of range for " + c.children.length + " branches");
                }
                skip(c.children[index], in);
                return;
            }
            case Conversion.OP_ARRAY: {
                // Item by item, a block's byte size ignored: what the conversion reads afterwards (ArrayBlocks
                // counts an array in several blocks with this, then writes it) and what Avro decodes.
                long total = 0;
                for (long n = in.blockCount(total); n != 0; n = in.blockCount(total)) {
                    total += n;
                    int from = in.mark();
                    skip(c.children[0], in);
                    if (in.zeroByteItems(from, n)) {
                        continue; // the rest of the block takes no bytes either: nothing to skip
                    }
                    for (long i = 1; i < n; i++) {
                        skip(c.children[0], in);
                    }
                }
                return;
            }
            default:
                throw new IllegalStateException("opcode " + c.op);
        }
    }
}
