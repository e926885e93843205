package dev.etl.avro;

import java.util.List;
import org.apache.avro.Schema;

/**
 * Skips a value of a writer schema the reader does not want (a field the reader removed), without
 * allocating. Interprets the writer schema directly, so recursive schemas need no special care;
 * removed fields are rare enough that this is not worth compiling.
 */
final class Skipper {
    private final Schema writer;

    Skipper(Schema writer) {
        this.writer = writer;
    }

    void skip(AvroInput in) {
        skip(writer, in);
    }

    private static void skip(Schema schema, AvroInput in) {
        switch (schema.getType()) {
            case NULL:
                return;
            case BOOLEAN:
                in.readBoolean();
                return;
            case INT:
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
            case ENUM:
                in.readInt();
                return;
            case UNION: {
                List<Schema> branches = schema.getTypes();
                int at = in.position();
                int index = in.readInt();
                if (index < 0 || index >= branches.size()) {
                    throw new AvroBodyException("union index " + index + " at byte " + at + " out of range for "
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
                    int from = in.position();
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
