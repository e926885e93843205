package dev.etl.avro;

import dev.etl.avro.binary.AvroCursor;
import dev.etl.avro.binary.AvroSkipper;
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
 */
final class RecordReader extends ValueReader {
    private final Schema schema;
    private final GenericData model;
    private final Class<?> recordClass;
    private final boolean genericRecord;
    private final int[] ops;
    private final int[] positions;
    private final ValueReader[] readers;
    /** Per writer field the reader dropped, its writer schema (skipped); null for the others. */
    private final Schema[] skipped;

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
        this.recordClass = model.newRecord(null, schema).getClass();
        // A generic record carries its schema; a specific class is its schema (and a nested class's
        // SCHEMA$ is a different object from the field schema inside its parent's SCHEMA$).
        this.genericRecord = recordClass == GenericData.Record.class;
        this.ops = ops;
        this.positions = positions;
        this.readers = readers;
        this.skipped = skipped;
        this.defaultPositions = defaultPositions;
        this.defaults = defaults;
        this.mutableDefaultSchemas = mutableDefaultSchemas;
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
                default:
                    record.put(pos, readPrimitive(ops[i], in, null));
                    break;
            }
        }
        int[] defaultPositions = this.defaultPositions;
        for (int i = 0; i < defaultPositions.length; i++) {
            Schema mutable = mutableDefaultSchemas[i];
            record.put(defaultPositions[i], mutable == null ? defaults[i] : model.deepCopy(mutable, defaults[i]));
        }
    }
}
