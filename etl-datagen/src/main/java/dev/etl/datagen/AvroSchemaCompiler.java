package dev.etl.datagen;

import static dev.etl.datagen.AvroValueWriter.*;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;

/**
 * Compiles an Avro schema and its {@code datagen} hints into a tree of {@link AvroValueWriter}s
 * ({@link AvroValueWriter#compile}): one writer per node, the default ranges per type and logical
 * type, the hints each type allows checked (an unknown or misplaced hint fails), ranges and values
 * validated, recursive schemas refused. One instance per compilation (it tracks the records in
 * progress); not thread-safe, and the tree it builds is immutable.
 */
final class AvroSchemaCompiler {
    private final Set<String> inProgress = new HashSet<>();

    AvroValueWriter compile(Schema schema, AvroHints hints, String path, boolean top) {
        LogicalType logical = schema.getLogicalType();
        switch (schema.getType()) {
            case NULL:
                hints.allowOnly("null");
                return NULL;
            case BOOLEAN:
                hints.allowOnly("boolean");
                return BOOLEAN;
            case INT:
                return ints(schema, logical, hints);
            case LONG:
                return longs(schema, logical, hints);
            case FLOAT:
            case DOUBLE:
                return floats(schema, hints);
            case STRING:
                return strings(logical, hints);
            case BYTES:
                if (logical instanceof LogicalTypes.Decimal) {
                    hints.allowOnly("decimal");
                    return new DecimalWriter(((LogicalTypes.Decimal) logical).getPrecision(), -1);
                }
                return bytes(hints);
            case FIXED:
                hints.allowOnly("fixed");
                if (logical instanceof LogicalTypes.Decimal) {
                    return new DecimalWriter(((LogicalTypes.Decimal) logical).getPrecision(), schema.getFixedSize());
                }
                return new FixedWriter(schema.getFixedSize());
            case ENUM:
                return enums(schema, hints);
            case ARRAY: {
                hints.allowOnly("array", "length", "min-length", "max-length");
                int[] lengths = hints.lengths(0, 4);
                return new ArrayWriter(
                        lengths[0], lengths[1], compile(schema.getElementType(), AvroHints.NONE, path + "[]", false));
            }
            case MAP: {
                hints.allowOnly("map", "length", "min-length", "max-length");
                int[] lengths = hints.lengths(0, 4);
                return new MapWriter(
                        lengths[0], lengths[1], compile(schema.getValueType(), AvroHints.NONE, path + "{}", false));
            }
            case UNION:
                return union(schema, hints, path);
            case RECORD:
                return record(schema, hints, path);
            default:
                throw new IllegalArgumentException(
                        "datagen cannot generate Avro type " + schema.getType() + " at " + path);
        }
    }

    private AvroValueWriter ints(Schema schema, LogicalType logical, AvroHints hints) {
        AvroValueWriter special = kindOrValues(hints, "int", true);
        if (special != null) {
            return special;
        }
        long min = 0;
        long max = 999_999;
        if (logical instanceof LogicalTypes.Date) {
            min = BASE_EPOCH_DAYS;
            max = BASE_EPOCH_DAYS + 364;
        } else if (logical instanceof LogicalTypes.TimeMillis) {
            max = 86_399_999;
        }
        long lo = hints.longValue("min", min);
        long hi = hints.longValue("max", Math.max(max, lo));
        checkRange(hints, lo, hi, Integer.MIN_VALUE, Integer.MAX_VALUE, "int");
        return new IntWriter((int) lo, (int) hi);
    }

    private AvroValueWriter longs(Schema schema, LogicalType logical, AvroHints hints) {
        AvroValueWriter special = kindOrValues(hints, "long", false);
        if (special != null) {
            return special;
        }
        long min = 0;
        long max = 999_999_999L;
        if (logical instanceof LogicalTypes.TimestampMillis || logical instanceof LogicalTypes.LocalTimestampMillis) {
            min = BASE_EPOCH_MS;
            max = BASE_EPOCH_MS + YEAR_MS - 1;
        } else if (logical instanceof LogicalTypes.TimestampMicros
                || logical instanceof LogicalTypes.LocalTimestampMicros) {
            min = BASE_EPOCH_MS * 1000;
            max = (BASE_EPOCH_MS + YEAR_MS) * 1000 - 1;
        } else if (logical instanceof LogicalTypes.TimeMicros) {
            max = 86_399_999_999L;
        }
        long lo = hints.longValue("min", min);
        long hi = hints.longValue("max", Math.max(max, lo));
        checkRange(hints, lo, hi, Long.MIN_VALUE, Long.MAX_VALUE, "long");
        return new LongWriter(lo, hi);
    }

    private static void checkRange(AvroHints hints, long lo, long hi, long typeMin, long typeMax, String type) {
        if (lo > hi || lo < typeMin || hi > typeMax) {
            throw new IllegalArgumentException("datagen range of " + hints.path + " must satisfy min <= max within "
                    + type + ", got " + lo + ".." + hi);
        }
    }

    /** {@code kind} or {@code values} on an int or long, else null. */
    private AvroValueWriter kindOrValues(AvroHints hints, String type, boolean isInt) {
        hints.allowOnly(type, "min", "max", "values", "kind");
        String kind = hints.string("kind");
        if (kind != null) {
            hints.allowOnly(type + " with kind", "kind");
            switch (kind) {
                case "id":
                    return isInt ? ID_INT : ID_LONG;
                case "sequence":
                    return isInt ? SEQUENCE_INT : SEQUENCE_LONG;
                case "partition":
                    return isInt ? PARTITION_INT : PARTITION_LONG;
                default:
                    throw new IllegalArgumentException(
                            "datagen kind of " + hints.path + " must be one of id, sequence, partition; got " + kind);
            }
        }
        List<?> values = hints.values();
        if (values == null) {
            return null;
        }
        hints.allowOnly(type + " with values", "values");
        long[] picks = new long[values.size()];
        for (int i = 0; i < picks.length; i++) {
            Object v = values.get(i);
            if (!(v instanceof Number) || ((Number) v).doubleValue() != Math.rint(((Number) v).doubleValue())) {
                throw new IllegalArgumentException(
                        "datagen values of " + hints.path + " must be whole numbers, got " + v);
            }
            picks[i] = ((Number) v).longValue();
            if (isInt && (picks[i] < Integer.MIN_VALUE || picks[i] > Integer.MAX_VALUE)) {
                throw new IllegalArgumentException("datagen value " + v + " of " + hints.path + " is not an int");
            }
        }
        return new PickLongWriter(picks);
    }

    private AvroValueWriter floats(Schema schema, AvroHints hints) {
        boolean isFloat = schema.getType() == Schema.Type.FLOAT;
        String type = isFloat ? "float" : "double";
        hints.allowOnly(type, "min", "max", "values");
        List<?> values = hints.values();
        if (values != null) {
            hints.allowOnly(type + " with values", "values");
            double[] picks = new double[values.size()];
            for (int i = 0; i < picks.length; i++) {
                if (!(values.get(i) instanceof Number)) {
                    throw new IllegalArgumentException(
                            "datagen values of " + hints.path + " must be numbers, got " + values.get(i));
                }
                picks[i] = ((Number) values.get(i)).doubleValue();
            }
            return new PickDoubleWriter(picks, isFloat);
        }
        double lo = hints.number("min", 0).doubleValue();
        double hi = hints.number("max", Math.max(1000, lo)).doubleValue();
        if (!(lo <= hi) || Double.isInfinite(hi - lo)) {
            throw new IllegalArgumentException(
                    "datagen range of " + hints.path + " must satisfy min <= max, got " + lo + ".." + hi);
        }
        return new DoubleWriter(lo, hi, isFloat);
    }

    private AvroValueWriter strings(LogicalType logical, AvroHints hints) {
        if (logical != null && "uuid".equals(logical.getName())) {
            hints.allowOnly("string (uuid)");
            return UUID;
        }
        hints.allowOnly("string", "values", "length", "min-length", "max-length");
        List<?> values = hints.values();
        if (values != null) {
            hints.allowOnly("string with values", "values");
            return new PickBytesWriter(encodedStrings(values, hints));
        }
        int[] lengths = hints.lengths(1, 16);
        return new StringWriter(lengths[0], lengths[1]);
    }

    private AvroValueWriter bytes(AvroHints hints) {
        hints.allowOnly("bytes", "values", "length", "min-length", "max-length");
        List<?> values = hints.values();
        if (values != null) {
            hints.allowOnly("bytes with values", "values");
            return new PickBytesWriter(encodedStrings(values, hints));
        }
        int[] lengths = hints.lengths(0, 16);
        return new BytesWriter(lengths[0], lengths[1]);
    }

    /** Each value as Avro string/bytes: its UTF-8 length, then the bytes. */
    private static byte[][] encodedStrings(List<?> values, AvroHints hints) {
        byte[][] encoded = new byte[values.size()][];
        for (int i = 0; i < encoded.length; i++) {
            if (!(values.get(i) instanceof String)) {
                throw new IllegalArgumentException(
                        "datagen values of " + hints.path + " must be strings, got " + values.get(i));
            }
            byte[] utf8 = ((String) values.get(i)).getBytes(StandardCharsets.UTF_8);
            RecordBytes b = new RecordBytes(utf8.length + 10);
            b.writeAvroBytes(utf8, 0, utf8.length);
            encoded[i] = b.toByteArray();
        }
        return encoded;
    }

    private AvroValueWriter enums(Schema schema, AvroHints hints) {
        hints.allowOnly("enum", "values");
        List<String> symbols = schema.getEnumSymbols();
        List<?> values = hints.values();
        if (values == null) {
            return new IntWriter(0, symbols.size() - 1);
        }
        long[] picks = new long[values.size()];
        for (int i = 0; i < picks.length; i++) {
            int index = symbols.indexOf(String.valueOf(values.get(i)));
            if (index < 0) {
                throw new IllegalArgumentException("datagen value " + values.get(i) + " of " + hints.path
                        + " is not a symbol of enum " + schema.getFullName() + " " + symbols);
            }
            picks[i] = index;
        }
        return new PickLongWriter(picks);
    }

    private AvroValueWriter union(Schema schema, AvroHints hints, String path) {
        List<Schema> types = schema.getTypes();
        int nullIndex = -1;
        List<Integer> indexes = new ArrayList<>();
        List<AvroValueWriter> writers = new ArrayList<>();
        AvroHints branchHints = hints.without("null-probability");
        for (int i = 0; i < types.size(); i++) {
            if (types.get(i).getType() == Schema.Type.NULL) {
                nullIndex = i;
            } else {
                indexes.add(i);
                writers.add(compile(types.get(i), branchHints, path, false));
            }
        }
        double nullProbability =
                hints.number("null-probability", nullIndex < 0 ? 0 : 0.1).doubleValue();
        if (hints.has("null-probability") && nullIndex < 0) {
            throw new IllegalArgumentException(
                    "datagen hint 'null-probability' of " + path + " needs a union with null, got " + schema);
        }
        if (nullProbability < 0 || nullProbability > 1) {
            throw new IllegalArgumentException(
                    "datagen null-probability of " + path + " must be in [0, 1], got " + nullProbability);
        }
        if (writers.isEmpty()) {
            nullProbability = 1;
        }
        return new UnionWriter(
                nullIndex,
                nullProbability,
                indexes.stream().mapToInt(Integer::intValue).toArray(),
                writers.toArray(new AvroValueWriter[0]));
    }

    private AvroValueWriter record(Schema schema, AvroHints hints, String path) {
        hints.allowOnly("record");
        if (!inProgress.add(schema.getFullName())) {
            throw new IllegalArgumentException("datagen cannot generate recursive schemas: " + schema.getFullName()
                    + " contains itself at " + path);
        }
        AvroValueWriter[] fields = new AvroValueWriter[schema.getFields().size()];
        for (int i = 0; i < fields.length; i++) {
            Schema.Field field = schema.getFields().get(i);
            String fieldPath = path + "." + field.name();
            fields[i] =
                    compile(field.schema(), AvroHints.of(field.getObjectProp("datagen"), fieldPath), fieldPath, false);
        }
        inProgress.remove(schema.getFullName());
        return new RecordWriter(fields);
    }
}
