package dev.etl.s3;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
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
    private static final int VARINT = 0;
    private static final int FIXED = 1;
    private static final int BYTES = 2;
    private static final int UNION = 3;
    private static final int ARRAY = 4;
    private static final int MAP = 5;
    private static final int CALL = 6;

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
        Compiler compiler = new Compiler();
        compiler.findRecursive(writer, Collections.newSetFromMap(new IdentityHashMap<>()));
        compiler.programs.add(null);
        compiler.programs.set(0, compiler.body(writer));
        return new AvroBodySkipper(
                compiler.programs.toArray(new int[0][]),
                minBytes(writer, Collections.newSetFromMap(new IdentityHashMap<>())));
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

    private static final class Compiler {
        final List<int[]> programs = new ArrayList<>();
        final Set<Schema> recursive = Collections.newSetFromMap(new IdentityHashMap<>());
        final Map<Schema, Integer> recordPrograms = new IdentityHashMap<>();

        void findRecursive(Schema s, Set<Schema> onStack) {
            switch (s.getType()) {
                case RECORD:
                    if (onStack.contains(s)) {
                        recursive.add(s);
                        return;
                    }
                    onStack.add(s);
                    for (Schema.Field f : s.getFields()) {
                        findRecursive(f.schema(), onStack);
                    }
                    onStack.remove(s);
                    return;
                case ARRAY:
                    findRecursive(s.getElementType(), onStack);
                    return;
                case MAP:
                    findRecursive(s.getValueType(), onStack);
                    return;
                case UNION:
                    for (Schema branch : s.getTypes()) {
                        findRecursive(branch, onStack);
                    }
                    return;
                default:
            }
        }

        int[] body(Schema s) {
            Code code = new Code();
            emit(s, code);
            return code.toArray();
        }

        /** A separate program for {@code s}, or -1 when its values take no bytes. */
        int program(Schema s) {
            int[] body = body(s);
            if (body.length == 0) {
                return -1;
            }
            programs.add(body);
            return programs.size() - 1;
        }

        void emit(Schema s, Code code) {
            switch (s.getType()) {
                case NULL:
                    return;
                case BOOLEAN:
                    code.fixed(1);
                    return;
                case INT:
                case LONG:
                case ENUM:
                    code.op(VARINT);
                    return;
                case FLOAT:
                    code.fixed(4);
                    return;
                case DOUBLE:
                    code.fixed(8);
                    return;
                case FIXED:
                    code.fixed(s.getFixedSize());
                    return;
                case STRING:
                case BYTES:
                    code.op(BYTES);
                    return;
                case RECORD:
                    if (recursive.contains(s)) {
                        code.op(CALL, recordProgram(s));
                    } else {
                        for (Schema.Field f : s.getFields()) {
                            emit(f.schema(), code);
                        }
                    }
                    return;
                case ARRAY:
                    code.op(ARRAY, program(s.getElementType()));
                    return;
                case MAP:
                    code.op(MAP, program(s.getValueType()));
                    return;
                case UNION: {
                    List<Schema> branches = s.getTypes();
                    int[] targets = new int[branches.size()];
                    for (int i = 0; i < targets.length; i++) {
                        targets[i] = program(branches.get(i));
                    }
                    code.op(UNION, targets.length);
                    for (int target : targets) {
                        code.add(target);
                    }
                    return;
                }
                default:
                    throw new IllegalArgumentException("unknown Avro type " + s.getType());
            }
        }

        private int recordProgram(Schema record) {
            Integer id = recordPrograms.get(record);
            if (id != null) {
                return id;
            }
            int reserved = programs.size();
            programs.add(new int[0]);
            recordPrograms.put(record, reserved);
            Code code = new Code();
            for (Schema.Field f : record.getFields()) {
                emit(f.schema(), code);
            }
            programs.set(reserved, code.toArray());
            return reserved;
        }
    }

    private static final class Code {
        private int[] ops = new int[16];
        private int size;
        private int lastFixed = -1;

        void fixed(int n) {
            if (n == 0) {
                return;
            }
            if (lastFixed >= 0 && lastFixed == size - 2) {
                ops[size - 1] += n;
                return;
            }
            op(FIXED, n);
            lastFixed = size - 2;
        }

        void op(int op) {
            add(op);
            lastFixed = -1;
        }

        void op(int op, int operand) {
            add(op);
            add(operand);
            lastFixed = -1;
        }

        void add(int value) {
            if (size == ops.length) {
                ops = java.util.Arrays.copyOf(ops, size * 2);
            }
            ops[size++] = value;
            lastFixed = -1;
        }

        int[] toArray() {
            return java.util.Arrays.copyOf(ops, size);
        }
    }
}
