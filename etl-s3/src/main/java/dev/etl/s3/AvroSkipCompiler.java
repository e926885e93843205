package dev.etl.s3;

import static dev.etl.s3.AvroBodySkipper.ARRAY;
import static dev.etl.s3.AvroBodySkipper.BYTES;
import static dev.etl.s3.AvroBodySkipper.CALL;
import static dev.etl.s3.AvroBodySkipper.FIXED;
import static dev.etl.s3.AvroBodySkipper.MAP;
import static dev.etl.s3.AvroBodySkipper.UNION;
import static dev.etl.s3.AvroBodySkipper.VARINT;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.Schema;

/**
 * Compiles a writer schema into the opcode programs {@link AvroBodySkipper} runs: program 0 is the
 * schema's; records are inlined, except recursive ones, which get a program of their own and are
 * called; array items, map values and union branches are programs (-1 when their values take no
 * bytes); consecutive fixed-size fields merge into one skip.
 */
final class AvroSkipCompiler {
    private final List<int[]> programs = new ArrayList<>();
    private final Set<Schema> recursive = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Set<Schema> explored = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Map<Schema, Integer> recordPrograms = new IdentityHashMap<>();

    private AvroSkipCompiler() {}

    static int[][] compile(Schema writer) {
        AvroSkipCompiler compiler = new AvroSkipCompiler();
        compiler.findRecursive(writer, Collections.newSetFromMap(new IdentityHashMap<>()));
        compiler.programs.add(null);
        compiler.programs.set(0, compiler.body(writer));
        return compiler.programs.toArray(new int[0][]);
    }

    private void findRecursive(Schema s, Set<Schema> onStack) {
        switch (s.getType()) {
            case RECORD:
                if (onStack.contains(s)) {
                    recursive.add(s); // a back edge: calling this record breaks the cycle
                    return;
                }
                if (!explored.add(s)) {
                    return; // its cycles were found the first time (depth-first search)
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

    private int[] body(Schema s) {
        Code code = new Code();
        emit(s, code);
        return code.toArray();
    }

    /** A separate program for {@code s}, or -1 when its values take no bytes. */
    private int program(Schema s) {
        int[] body = body(s);
        if (body.length == 0) {
            return -1;
        }
        programs.add(body);
        return programs.size() - 1;
    }

    private void emit(Schema s, Code code) {
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
                ops = Arrays.copyOf(ops, size * 2);
            }
            ops[size++] = value;
            lastFixed = -1;
        }

        int[] toArray() {
            return Arrays.copyOf(ops, size);
        }
    }
}
