package dev.etl.avro;

import dev.etl.avro.binary.AvroCursor;
import dev.etl.avro.binary.AvroSkipper;
import java.lang.invoke.MethodHandle;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.IndexedRecord;

/**
 * Reads a record of a resolved (writer, reader) pair into a reused {@link IndexedRecord}: the
 * writer's fields in writer order, each stored at its reader position (or skipped when the reader
 * has no such field), then the reader-only fields set to their defaults.
 *
 * <p>Primitive fields are decoded inline by opcode (one {@code switch} per field, no virtual call and
 * no {@code get} of the old value); strings reuse the old {@code Utf8}; everything else delegates to
 * the field's {@link ValueReader} with the old value as {@code reuse}.
 *
 * <p><b>No boxing into generated classes.</b> {@code IndexedRecord.put(int, Object)} boxes every long,
 * double and float (and ints above 127). A generated class has a typed setter per field
 * ({@code setId(long)}): a primitive field of a specific record is set through it (a method handle
 * found once, checked by setting two values and reading them back with {@code get}), so decoding it
 * allocates nothing. A generic record has no typed storage: its primitives are boxed, as in Avro.
 */
final class RecordReader extends ValueReader {
    /** Primitive fields of a specific record set through their typed setter, by the reader's type. */
    static final int SET_INT = 21;

    static final int SET_LONG = 22;
    static final int SET_FLOAT = 23;
    static final int SET_DOUBLE = 24;
    static final int SET_BOOLEAN = 25;

    private final Schema schema;
    private final GenericData model;
    private final Class<?> recordClass;
    private final boolean genericRecord;
    private final int[] ops;
    private final int[] positions;
    private final ValueReader[] readers;
    /** Per writer field the reader dropped, its writer schema (skipped); null for the others. */
    private final Schema[] skipped;
    /** Per field set through a typed setter ({@code SET_*}): the setter, as {@code (IndexedRecord, prim)void}. */
    private final MethodHandle[] setters;
    /** Per field set through a typed setter: how the writer's value is read (its {@code OP_*}, promotions included). */
    private final int[] reads;

    private final int[] defaultPositions;
    private final Object[] defaults;
    private final Schema[] mutableDefaultSchemas;

    RecordReader(
            Schema schema,
            GenericData model,
            int[] ops,
            int[] positions,
            ValueReader[] readers,
            Schema[] skipped,
            int[] defaultPositions,
            Object[] defaults,
            Schema[] mutableDefaultSchemas) {
        this.schema = schema;
        this.model = model;
        IndexedRecord probe = (IndexedRecord) model.newRecord(null, schema);
        this.recordClass = probe.getClass();
        // A generic record carries its schema; a specific class is its schema (and a nested class's
        // SCHEMA$ is a different object from the field schema inside its parent's SCHEMA$).
        this.genericRecord = recordClass == GenericData.Record.class;
        this.ops = ops.clone();
        this.positions = positions;
        this.readers = readers;
        this.skipped = skipped;
        this.setters = new MethodHandle[ops.length];
        this.reads = new int[ops.length];
        this.defaultPositions = defaultPositions;
        this.defaults = defaults;
        this.mutableDefaultSchemas = mutableDefaultSchemas;
        if (!genericRecord) {
            for (int i = 0; i < ops.length; i++) {
                int set = setOpcode(ops[i]);
                if (set != 0) {
                    MethodHandle setter =
                            TypedSetter.find(probe, schema.getFields().get(positions[i]), set);
                    if (setter != null) {
                        this.setters[i] = setter;
                        this.reads[i] = ops[i];
                        this.ops[i] = set;
                    }
                }
            }
        }
    }

    /** The {@code SET_*} opcode for a primitive read, by the type the reader stores; 0 for the others. */
    private static int setOpcode(int read) {
        switch (read) {
            case OP_INT:
                return SET_INT;
            case OP_LONG:
            case OP_INT_AS_LONG:
                return SET_LONG;
            case OP_FLOAT:
            case OP_INT_AS_FLOAT:
            case OP_LONG_AS_FLOAT:
                return SET_FLOAT;
            case OP_DOUBLE:
            case OP_INT_AS_DOUBLE:
            case OP_LONG_AS_DOUBLE:
            case OP_FLOAT_AS_DOUBLE:
                return SET_DOUBLE;
            case OP_BOOLEAN:
                return SET_BOOLEAN;
            default:
                return 0;
        }
    }

    Schema schema() {
        return schema;
    }

    @Override
    Object read(AvroCursor in, Object reuse) {
        IndexedRecord record = reuse != null
                        && reuse.getClass() == recordClass
                        && (!genericRecord || ((IndexedRecord) reuse).getSchema() == schema)
                ? (IndexedRecord) reuse
                : (IndexedRecord) model.newRecord(null, schema);
        readInto(in, record);
        return record;
    }

    void readInto(AvroCursor in, IndexedRecord record) {
        int[] ops = this.ops;
        int[] positions = this.positions;
        for (int i = 0; i < ops.length; i++) {
            int pos = positions[i];
            switch (ops[i]) {
                case OP_INT:
                    record.put(pos, in.readInt());
                    break;
                case OP_LONG:
                    record.put(pos, in.readLong());
                    break;
                case OP_DOUBLE:
                    record.put(pos, in.readDouble());
                    break;
                case OP_FLOAT:
                    record.put(pos, in.readFloat());
                    break;
                case OP_BOOLEAN:
                    record.put(pos, in.readBoolean());
                    break;
                case OP_UTF8:
                    record.put(pos, in.readUtf8(record.get(pos)));
                    break;
                case OP_VALUE:
                    record.put(pos, readers[i].read(in, record.get(pos)));
                    break;
                case -1:
                    AvroSkipper.skip(skipped[i], in);
                    break;
                case SET_INT:
                    setInt(setters[i], record, in.readInt());
                    break;
                case SET_LONG:
                    setLong(setters[i], record, reads[i] == OP_LONG ? in.readLong() : in.readInt());
                    break;
                case SET_FLOAT:
                    setFloat(setters[i], record, readFloat(reads[i], in));
                    break;
                case SET_DOUBLE:
                    setDouble(setters[i], record, readDouble(reads[i], in));
                    break;
                case SET_BOOLEAN:
                    setBoolean(setters[i], record, in.readBoolean());
                    break;
                default:
                    record.put(pos, readPrimitive(ops[i], in, null));
                    break;
            }
        }
        int[] defaultPositions = this.defaultPositions;
        for (int i = 0; i < defaultPositions.length; i++) {
            Schema mutable = mutableDefaultSchemas[i];
            if (mutable == null) {
                record.put(defaultPositions[i], defaults[i]);
            } else if (!equalsDefault(defaults[i], record.get(defaultPositions[i]))) {
                // A copy, as Avro makes, so a change to the record cannot change the default; kept
                // while it still equals the default, so a record of this writer copies it once.
                record.put(defaultPositions[i], model.deepCopy(mutable, defaults[i]));
            }
        }
    }

    private static float readFloat(int op, AvroCursor in) {
        switch (op) {
            case OP_FLOAT:
                return in.readFloat();
            case OP_INT_AS_FLOAT:
                return in.readInt();
            default:
                return in.readLong();
        }
    }

    private static double readDouble(int op, AvroCursor in) {
        switch (op) {
            case OP_DOUBLE:
                return in.readDouble();
            case OP_INT_AS_DOUBLE:
                return in.readInt();
            case OP_LONG_AS_DOUBLE:
                return in.readLong();
            default:
                return in.readFloat();
        }
    }

    // A setter is a generated class's plain assignment: it throws nothing but what the JVM throws.

    private static void setInt(MethodHandle setter, IndexedRecord record, int value) {
        try {
            setter.invokeExact(record, value);
        } catch (Throwable e) {
            throw TypedSetter.rethrow(e);
        }
    }

    private static void setLong(MethodHandle setter, IndexedRecord record, long value) {
        try {
            setter.invokeExact(record, value);
        } catch (Throwable e) {
            throw TypedSetter.rethrow(e);
        }
    }

    private static void setFloat(MethodHandle setter, IndexedRecord record, float value) {
        try {
            setter.invokeExact(record, value);
        } catch (Throwable e) {
            throw TypedSetter.rethrow(e);
        }
    }

    private static void setDouble(MethodHandle setter, IndexedRecord record, double value) {
        try {
            setter.invokeExact(record, value);
        } catch (Throwable e) {
            throw TypedSetter.rethrow(e);
        }
    }

    private static void setBoolean(MethodHandle setter, IndexedRecord record, boolean value) {
        try {
            setter.invokeExact(record, value);
        } catch (Throwable e) {
            throw TypedSetter.rethrow(e);
        }
    }

    /**
     * Whether {@code value} equals the default {@code expected}, without allocating (Avro's own
     * {@code equals} of arrays and records compares through iterators): strings, bytes and fixed by
     * their own {@code equals}, lists element by element, records field by field; maps never.
     */
    private static boolean equalsDefault(Object expected, Object value) {
        if (expected == null || value == null) {
            return expected == value;
        }
        if (expected instanceof java.util.List && value instanceof java.util.List) {
            java.util.List<?> a = (java.util.List<?>) expected;
            java.util.List<?> b = (java.util.List<?>) value;
            if (a.size() != b.size()) {
                return false;
            }
            for (int i = 0; i < a.size(); i++) {
                if (!equalsDefault(a.get(i), b.get(i))) {
                    return false;
                }
            }
            return true;
        }
        if (expected instanceof IndexedRecord && value instanceof IndexedRecord) {
            IndexedRecord a = (IndexedRecord) expected;
            IndexedRecord b = (IndexedRecord) value;
            if (!a.getSchema().getFullName().equals(b.getSchema().getFullName())) {
                return false;
            }
            int fields = a.getSchema().getFields().size();
            for (int i = 0; i < fields; i++) {
                if (!equalsDefault(a.get(i), b.get(i))) {
                    return false;
                }
            }
            return true;
        }
        if (expected instanceof java.util.Map) {
            return false;
        }
        return expected.equals(value);
    }
}
