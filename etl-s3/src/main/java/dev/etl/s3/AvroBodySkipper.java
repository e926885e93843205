package dev.etl.s3;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import org.apache.avro.Schema;

/**
 * Finds where one Avro binary value of a writer schema ends, without decoding it: the record
 * boundaries inside a decompressed block. The schema is compiled once into small opcode programs
 * (records inlined, runs of fixed-size fields merged into one skip; only recursive records are calls),
 * so a record costs a short loop over its varints and length prefixes. Every step is bounds-checked
 * against the block's end: a body that runs past it is a {@link Malformed}. Not thread-safe (one per
 * split read); allocates nothing per value.
 */
final class AvroBodySkipper {
    static final int VARINT = 0;
    static final int FIXED = 1;
    static final int BYTES = 2;
    static final int UNION = 3;
    static final int ARRAY = 4;
    static final int MAP = 5;
    static final int CALL = 6;

    /** Programs by id; 0 is the writer schema's. */
    private final int[][] programs;

    private final int minBytes;
    /** The cursor after a {@link #readLong}. */
    private int cursor;
    /** Where the value being skipped starts: messages give positions relative to it. */
    private int origin;

    private AvroBodySkipper(int[][] programs, int minBytes) {
        this.programs = programs;
        this.minBytes = minBytes;
    }

    static AvroBodySkipper compile(Schema writer) {
        return new AvroBodySkipper(
                AvroSkipCompiler.compile(writer), minBytes(writer, Collections.newSetFromMap(new IdentityHashMap<>())));
    }

    /** The fewest bytes one value can take (0 for a record of nulls): bounds a block's record count. */
    int minBytes() {
        return minBytes;
    }

    /**
     * Skips one value starting at {@code from}.
     *
     * @return where the value ends
     * @throws Malformed when the value does not fit before {@code limit} or is malformed
     */
    int skip(byte[] b, int from, int limit) throws Malformed {
        origin = from;
        return run(0, b, from, limit);
    }

    private int run(int program, byte[] b, int p, int limit) throws Malformed {
        int[] code = programs[program];
        int pc = 0;
        while (pc < code.length) {
            int op = code[pc++];
            switch (op) {
                case VARINT:
                    p = skipVarint(b, p, limit);
                    break;
                case FIXED: {
                    int n = code[pc++];
                    if (limit - p < n) {
                        throw new Malformed(
                                n + " bytes needed at record byte " + (p - origin) + ", " + (limit - p) + " left");
                    }
                    p += n;
                    break;
                }
                case BYTES:
                    p = skipLength(b, p, limit);
                    break;
                case UNION: {
                    int branches = code[pc++];
                    long index = readLong(b, p, limit);
                    if (index < 0 || index >= branches) {
                        throw new Malformed(
                                "union index " + index + " at record byte " + (p - origin) + " out of " + branches);
                    }
                    p = cursor;
                    int target = code[pc + (int) index];
                    pc += branches;
                    if (target >= 0) {
                        p = run(target, b, p, limit);
                    }
                    break;
                }
                case ARRAY:
                case MAP:
                    p = skipBlocks(op == MAP, code[pc++], b, p, limit);
                    break;
                case CALL:
                    p = run(code[pc++], b, p, limit);
                    break;
                default:
                    throw new IllegalStateException("opcode " + op);
            }
        }
        return p;
    }

    private int skipBlocks(boolean map, int items, byte[] b, int p, int limit) throws Malformed {
        for (; ; ) {
            long count = readLong(b, p, limit);
            int at = p;
            p = cursor;
            if (count == 0) {
                return p;
            }
            if (count < 0) {
                // A negative count is followed by the block's size in bytes: skip it whole.
                long size = readLong(b, p, limit);
                p = cursor;
                if (size < 0 || size > limit - p) {
                    throw new Malformed("collection block size " + size + " at record byte " + (at - origin) + ", "
                            + (limit - p) + " bytes left");
                }
                p += (int) size;
                continue;
            }
            if (!map && items < 0) {
                continue; // items of no bytes (nulls): nothing to skip
            }
            // Every item of a non-empty program takes a byte at least: a larger count is corrupt.
            if (count > limit - p) {
                throw new Malformed("collection count " + count + " at record byte " + (at - origin) + ", "
                        + (limit - p) + " bytes left");
            }
            for (long i = 0; i < count; i++) {
                if (map) {
                    p = skipLength(b, p, limit);
                }
                if (items >= 0) {
                    p = run(items, b, p, limit);
                }
            }
        }
    }

    private int skipVarint(byte[] b, int p, int limit) throws Malformed {
        int start = p;
        for (int i = 0; i < 10; i++) {
            if (p >= limit) {
                throw new Malformed("a varint at record byte " + (start - origin) + " runs past the end");
            }
            if (b[p++] >= 0) {
                return p;
            }
        }
        throw new Malformed("malformed varint at record byte " + (start - origin));
    }

    private int skipLength(byte[] b, int p, int limit) throws Malformed {
        long length = readLong(b, p, limit);
        int q = cursor;
        if (length < 0 || length > limit - q) {
            throw new Malformed(
                    "length " + length + " at record byte " + (p - origin) + ", " + (limit - q) + " bytes left");
        }
        return q + (int) length;
    }

    /** Reads a zig-zag varint at {@code p}; leaves the position after it in {@link #cursor}. */
    private long readLong(byte[] b, int p, int limit) throws Malformed {
        int start = p;
        long value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (p >= limit) {
                throw new Malformed("a varint at record byte " + (start - origin) + " runs past the end");
            }
            int v = b[p++];
            value |= (long) (v & 0x7f) << shift;
            if (v >= 0) {
                cursor = p;
                return (value >>> 1) ^ -(value & 1);
            }
        }
        throw new Malformed("malformed varint at record byte " + (start - origin));
    }

    private static int minBytes(Schema s, Set<Schema> onStack) {
        switch (s.getType()) {
            case NULL:
                return 0;
            case FLOAT:
                return 4;
            case DOUBLE:
                return 8;
            case FIXED:
                return s.getFixedSize();
            case UNION: {
                int min = Integer.MAX_VALUE;
                for (Schema branch : s.getTypes()) {
                    min = Math.min(min, minBytes(branch, onStack));
                }
                return 1 + (min == Integer.MAX_VALUE ? 0 : min);
            }
            case RECORD: {
                if (!onStack.add(s)) {
                    return 0;
                }
                long sum = 0;
                for (Schema.Field f : s.getFields()) {
                    sum += minBytes(f.schema(), onStack);
                }
                onStack.remove(s);
                return (int) Math.min(sum, Integer.MAX_VALUE);
            }
            default:
                return 1; // boolean, int, long, enum, string, bytes, array, map
        }
    }

    /** A value that does not fit its block or is malformed: the message says what and at which byte. */
    static final class Malformed extends Exception {
        private static final long serialVersionUID = 1L;

        Malformed(String message) {
            super(message, null, false, false);
        }
    }
}
