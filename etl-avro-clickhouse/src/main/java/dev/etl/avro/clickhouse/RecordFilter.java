package dev.etl.avro.clickhouse;

import dev.etl.avro.binary.AvroCursor;
import dev.etl.avro.binary.MalformedAvroException;
import dev.etl.avro.clickhouse.AvroRowMapping.RecordCondition;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.Schema.Type;

/**
 * A record condition ({@link AvroRowMapping.Builder#dropWhen}, {@code keepWhen}) compiled for one
 * writer field: reads the value under the cursor, in place, and says whether the record is dropped.
 * What the values mean comes from the reader schema (enum symbols by name, with the reader's default
 * for a writer symbol the reader lacks); how the value is read comes from the writer's.
 */
final class RecordFilter {
    private static final int ENUM = 0;
    private static final int INT = 1;
    private static final int LONG = 2;
    private static final int BOOLEAN = 3;
    private static final int STRING = 4;

    private final int kind;
    private final boolean keep;
    /** ENUM: per writer symbol index, whether it matches a value. */
    private final boolean[] matchByIndex;

    private final long[] numbers;
    private final byte[][] strings;
    private final boolean matchTrue;
    private final boolean matchFalse;

    private RecordFilter(
            int kind,
            boolean keep,
            boolean[] matchByIndex,
            long[] numbers,
            byte[][] strings,
            boolean matchTrue,
            boolean matchFalse) {
        this.kind = kind;
        this.keep = keep;
        this.matchByIndex = matchByIndex;
        this.numbers = numbers;
        this.strings = strings;
        this.matchTrue = matchTrue;
        this.matchFalse = matchFalse;
    }

    /** Reads the field's value; true when the record is dropped. */
    boolean drops(AvroCursor in) {
        boolean match;
        switch (kind) {
            case ENUM: {
                int at = in.position();
                int index = in.readInt();
                if (index < 0 || index >= matchByIndex.length) {
                    throw new MalformedAvroException("enum index " + index + " at byte " + at + " out of range for "
                            + matchByIndex.length + " symbols");
                }
                match = matchByIndex[index];
                break;
            }
            case INT:
                match = contains(numbers, in.readInt());
                break;
            case LONG:
                match = contains(numbers, in.readLong());
                break;
            case BOOLEAN:
                match = in.readBoolean() ? matchTrue : matchFalse;
                break;
            default:
                match = in.matchesAny(strings);
        }
        return match != keep;
    }

    private static boolean contains(long[] values, long v) {
        for (long value : values) {
            if (value == v) {
                return true;
            }
        }
        return false;
    }

    /**
     * Compiles {@code c} for a field written as {@code writer} and read as {@code reader}.
     *
     * @throws AvroMappingException naming the field when its type cannot be filtered on or a value does
     *         not fit it
     */
    static RecordFilter compile(RecordCondition c, Schema writer, Schema reader) {
        Type r = reader.getType();
        Type w = writer.getType();
        switch (r) {
            case ENUM -> {
                if (w != Type.ENUM) {
                    throw mismatch(c, writer, reader);
                }
                List<String> values = symbols(c, reader);
                boolean[] match = new boolean[writer.getEnumSymbols().size()];
                for (int i = 0; i < match.length; i++) {
                    String symbol = writer.getEnumSymbols().get(i);
                    if (!reader.hasEnumSymbol(symbol)) {
                        symbol = reader.getEnumDefault();
                        if (symbol == null) {
                            throw problem(
                                    c,
                                    reader,
                                    "writer symbol '" + writer.getEnumSymbols().get(i)
                                            + "' is not in the reader enum, which has no default");
                        }
                    }
                    match[i] = values.contains(symbol);
                }
                return new RecordFilter(ENUM, c.keep(), match, null, null, false, false);
            }
            case INT, LONG -> {
                if (w != Type.INT && !(r == Type.LONG && w == Type.LONG)) {
                    throw mismatch(c, writer, reader);
                }
                long[] numbers = new long[c.values().size()];
                for (int i = 0; i < numbers.length; i++) {
                    Object v = c.values().get(i);
                    if (!(v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte)) {
                        throw problem(c, reader, "value " + v + " is not an integer number");
                    }
                    numbers[i] = ((Number) v).longValue();
                    if (r == Type.INT && numbers[i] != (int) numbers[i]) {
                        throw problem(c, reader, "value " + v + " is out of the int range");
                    }
                }
                return new RecordFilter(w == Type.INT ? INT : LONG, c.keep(), null, numbers, null, false, false);
            }
            case BOOLEAN -> {
                if (w != Type.BOOLEAN) {
                    throw mismatch(c, writer, reader);
                }
                boolean t = false;
                boolean f = false;
                for (Object v : c.values()) {
                    if (!(v instanceof Boolean b)) {
                        throw problem(c, reader, "value " + v + " is not a Boolean");
                    }
                    t |= b;
                    f |= !b;
                }
                return new RecordFilter(BOOLEAN, c.keep(), null, null, null, t, f);
            }
            case STRING, BYTES -> {
                if (w != Type.STRING && w != Type.BYTES) {
                    throw mismatch(c, writer, reader);
                }
                byte[][] strings = new byte[c.values().size()][];
                for (int i = 0; i < strings.length; i++) {
                    Object v = c.values().get(i);
                    if (!(v instanceof CharSequence s)) {
                        throw problem(c, reader, "value " + v + " is not a string");
                    }
                    strings[i] = s.toString().getBytes(StandardCharsets.UTF_8);
                }
                return new RecordFilter(STRING, c.keep(), null, null, strings, false, false);
            }
            default ->
                throw problem(
                        c,
                        reader,
                        "record conditions read enum, string, bytes, int, long or boolean fields"
                                + (r == Type.UNION ? " (not unions)" : ""));
        }
    }

    /** Whether a record is dropped whose field has the reader default {@code value} (the writer lacks the field). */
    static boolean dropsDefault(RecordCondition c, Schema reader, Object value) {
        compile(c, reader, reader); // checks the values against the field's type
        boolean match = false;
        for (Object v : c.values()) {
            match |= switch (reader.getType()) {
                case INT, LONG -> ((Number) v).longValue() == ((Number) value).longValue();
                case BOOLEAN -> v.equals(value);
                default ->
                    v.toString()
                            .equals(String.valueOf(
                                    value instanceof byte[] b
                                            ? new String(b, StandardCharsets.UTF_8)
                                            : value instanceof java.nio.ByteBuffer bb
                                                    ? StandardCharsets.UTF_8
                                                            .decode(bb.duplicate())
                                                            .toString()
                                                    : value));
            };
        }
        return match != c.keep();
    }

    private static List<String> symbols(RecordCondition c, Schema reader) {
        List<String> values = new ArrayList<>();
        for (Object v : c.values()) {
            String symbol = v.toString();
            if (!reader.hasEnumSymbol(symbol)) {
                throw problem(c, reader, "'" + symbol + "' is not a symbol of " + reader.getEnumSymbols());
            }
            values.add(symbol);
        }
        return values;
    }

    private static AvroMappingException mismatch(RecordCondition c, Schema writer, Schema reader) {
        return problem(c, reader, "the writer's " + AvroTypeNames.describe(writer) + " cannot be read as it");
    }

    private static AvroMappingException problem(RecordCondition c, Schema reader, String problem) {
        return new AvroMappingException(
                c.path(),
                "(" + (c.keep() ? "keepWhen" : "dropWhen") + ")",
                AvroTypeNames.describe(reader),
                "-",
                problem);
    }
}
