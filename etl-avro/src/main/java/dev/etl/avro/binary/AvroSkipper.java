package dev.etl.avro.binary;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.apache.avro.Schema;

/**
 * Skips Avro values of a writer schema without decoding them and without allocating: a field a reader
 * dropped, a field no column reads, a record whose end is wanted (the record boundaries inside a block of
 * an object container file). Interprets the schema (a {@code switch} per value), so recursive schemas
 * need no special care; the values skipped are mostly primitives, one varint or a length.
 *
 * <p>It checks what the cursor checks, and no more: varints, lengths, a boolean's byte and a union's
 * index, the blocks of arrays and maps ({@link AvroCursor#unsizedBlockCount}, so a block that states its
 * size is jumped over) and the {@link dev.etl.avro.AvroLimits}; it does not check an enum's index against
 * its symbols (decoding does). Malformed bytes throw {@link MalformedAvroException}. Stateless.
 */
public final class AvroSkipper {
    private AvroSkipper() {}

    /** Skips one value of {@code schema} at the cursor's position. */
    public static void skip(Schema schema, AvroCursor in) {
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
                    throw new MalformedAvroException("union index " + index + " at byte " + at + " out of range for "
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

    /**
     * The fewest bytes one value of {@code schema} can take: 0 for a record of nulls (or of fixeds of size
     * 0), whose values the body's size does not bound; bounds how many values a run of bytes can hold.
     */
    public static int minBytes(Schema schema) {
        return minBytes(schema, Collections.newSetFromMap(new IdentityHashMap<>()));
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
}
