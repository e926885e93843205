package dev.etl.avro;

import dev.etl.avro.binary.AvroCursor;

/**
 * One node of a compiled decoder: reads one value of a (writer, reader) schema pair from an
 * {@link AvroCursor}. Built per lane's decoder and schema pair by {@link FastDecoderCompiler}; lane-confined
 * (a union keeps the values it displaced for its next read), and the values it returns are the caller's
 * (reused per lane).
 *
 * <p>Leaf readers for primitives also have an {@link #opcode()}: a {@link RecordReader} inlines those
 * into its field loop instead of a virtual call per field.
 */
abstract class ValueReader {
    static final int OP_VALUE = 0;
    static final int OP_INT = 1;
    static final int OP_LONG = 2;
    static final int OP_INT_AS_LONG = 3;
    static final int OP_FLOAT = 4;
    static final int OP_DOUBLE = 5;
    static final int OP_INT_AS_DOUBLE = 6;
    static final int OP_LONG_AS_DOUBLE = 7;
    static final int OP_FLOAT_AS_DOUBLE = 8;
    static final int OP_INT_AS_FLOAT = 9;
    static final int OP_LONG_AS_FLOAT = 10;
    static final int OP_BOOLEAN = 11;
    static final int OP_UTF8 = 12;
    static final int OP_STRING = 13;
    static final int OP_NULL = 14;

    /**
     * Reads one value.
     *
     * @param reuse the previous value at this position (may be null, or of another type after a
     *        union switched branches); readers reuse it only when it has the right type
     */
    abstract Object read(AvroCursor in, Object reuse);

    /** The inlined form of this reader inside a record's field loop, or {@link #OP_VALUE}. */
    int opcode() {
        return OP_VALUE;
    }

    /** A reader of a primitive with a fixed opcode. */
    static final class Primitive extends ValueReader {
        private final int opcode;

        Primitive(int opcode) {
            this.opcode = opcode;
        }

        @Override
        int opcode() {
            return opcode;
        }

        @Override
        Object read(AvroCursor in, Object reuse) {
            return readPrimitive(opcode, in, reuse);
        }
    }

    /** Reads one primitive by opcode; shared by {@link Primitive} and {@link RecordReader}'s slow path. */
    static Object readPrimitive(int opcode, AvroCursor in, Object reuse) {
        switch (opcode) {
            case OP_INT:
                return in.readInt();
            case OP_LONG:
                return in.readLong();
            case OP_INT_AS_LONG:
                return (long) in.readInt();
            case OP_FLOAT:
                return in.readFloat();
            case OP_DOUBLE:
                return in.readDouble();
            case OP_INT_AS_DOUBLE:
                return (double) in.readInt();
            case OP_LONG_AS_DOUBLE:
                return (double) in.readLong();
            case OP_FLOAT_AS_DOUBLE:
                return (double) in.readFloat();
            case OP_INT_AS_FLOAT:
                return (float) in.readInt();
            case OP_LONG_AS_FLOAT:
                return (float) in.readLong();
            case OP_BOOLEAN:
                return in.readBoolean();
            case OP_UTF8:
                return in.readUtf8(reuse);
            case OP_STRING:
                return in.readString();
            case OP_NULL:
                return null;
            default:
                throw new IllegalStateException("not a primitive opcode: " + opcode);
        }
    }
}
