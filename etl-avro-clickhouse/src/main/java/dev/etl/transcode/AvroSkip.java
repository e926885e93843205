package dev.etl.transcode;

import java.util.List;
import org.apache.avro.Schema;

/**
 * Skips a value of a writer schema that no column reads, without allocating. Interprets the schema
 * (a {@code switch} per value); unmapped fields are usually primitives, one varint or a length.
 */
final class AvroSkip {
    private AvroSkip() {}

    static void skip(Schema schema, AvroCursor in) {
        switch (schema.getType()) {
            case NULL:
                return;
            case BOOLEAN:
                in.readBoolean();
                return;
            case INT:
            case ENUM:
                in.readInt();
                return;
            case LONG:
                in.readLong();
                return;
            case FLOAT:
                in.skip(4);
                return;
            case DOUBLE:
                in.skip(8);
                return;
            case STRING:
            case BYTES:
                in.skipLengthPrefixed();
                return;
            case FIXED:
                in.skip(schema.getFixedSize());
                return;
            case UNION: {
                List<Schema> branches = schema.getTypes();
                int at = in.position();
                int index = in.readInt();
                if (index < 0 || index >= branches.size()) {
                    throw new MalformedBody("union index " + index + " at byte " + at + " out of range for "
                            + branches.size() + " branches");
                }
                skip(branches.get(index), in);
                return;
            }
            case RECORD: {
                List<Schema.Field> fields = schema.getFields();
                for (int i = 0; i < fields.size(); i++) {
                    skip(fields.get(i).schema(), in);
                }
                return;
            }
            case ARRAY:
            case MAP: {
                boolean map = schema.getType() == Schema.Type.MAP;
                Schema items = map ? schema.getValueType() : schema.getElementType();
                long total = 0;
                for (long count = in.unsizedBlockCount(total); count != 0; count = in.unsizedBlockCount(total)) {
                    total += count;
                    int from = in.mark();
                    if (map) {
                        in.skipLengthPrefixed();
                    }
                    skip(items, in);
                    if (in.zeroByteItems(from, count)) {
                        continue; // the rest of the block takes no bytes either: nothing to skip
                    }
                    for (long i = 1; i < count; i++) {
                        if (map) {
                            in.skipLengthPrefixed();
                        }
                        skip(items, in);
                    }
                }
                return;
            }
            default:
                throw new IllegalStateException("unknown Avro type " + schema.getType());
        }
    }
}
