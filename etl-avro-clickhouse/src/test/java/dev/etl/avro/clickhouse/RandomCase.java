package dev.etl.avro.clickhouse;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.UUID;
import org.apache.avro.JsonProperties;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;

/**
 * One random case of the property harness: a reader schema, a mapping of some of its (nested)
 * fields to random compatible column types in a random column order, and a writer schema — the same
 * as the reader, or evolved from it: fields removed (those with defaults), added (of any type,
 * unmapped), reordered, renamed through a reader alias, promoted (int → long/float/double,
 * long → float/double, float → double, string ↔ bytes), enums with symbols reordered and added (when
 * the reader has a default), nullable unions reordered or narrowed to their value type. Then random
 * writer records with edge values mixed in.
 */
final class RandomCase {
    private static final String NS = "dev.etl.avro.clickhouse.random";

    final Schema reader;
    final Schema writer;
    final AvroRowMapping mapping;

    private final SplittableRandom random;
    private final boolean evolve;
    private int names;
    private final List<Leaf> leaves = new ArrayList<>();
    private boolean promotions = true;

    /** A reader field that can be mapped, with the column types it may be written to. */
    private record Leaf(String path, List<String> columns) {}

    /** A leaf type: its reader and writer schemas, the columns it converts to, its default (or none). */
    private record Kind(Schema reader, Schema writer, List<String> columns, Object defaultValue) {}

    private static final Object NO_DEFAULT = new Object();

    RandomCase(long seed, boolean evolve) {
        this.random = new SplittableRandom(seed);
        this.evolve = evolve;
        Schema[] pair = record("Root", "", 0);
        this.reader = pair[0];
        this.writer = pair[1];
        this.mapping = mapping();
    }

    private AvroRowMapping mapping() {
        List<String[]> columns = new ArrayList<>();
        for (Leaf leaf : leaves) {
            if (random.nextInt(5) == 0) {
                continue;
            }
            columns.add(new String[] {leaf.path, pick(leaf.columns)});
            if (random.nextInt(6) == 0) {
                columns.add(new String[] {leaf.path, pick(leaf.columns)});
            }
        }
        if (columns.isEmpty()) {
            Leaf leaf = leaves.get(0);
            columns.add(new String[] {leaf.path, pick(leaf.columns)});
        }
        Collections.shuffle(columns, new Random(random.nextLong()));
        AvroRowMapping.Builder b = AvroRowMapping.builder(reader);
        for (int i = 0; i < columns.size(); i++) {
            b.column("c" + i, columns.get(i)[1], columns.get(i)[0]);
        }
        return b.build();
    }

    @Override
    public String toString() {
        return "reader " + reader + "\nwriter " + writer + "\nmapping " + mapping;
    }

    // ---- schemas ------------------------------------------------------------------------------

    private Schema[] record(String name, String prefix, int depth) {
        List<Schema.Field> readerFields = new ArrayList<>();
        List<Schema.Field> writerFields = new ArrayList<>();
        int n = 1 + random.nextInt(depth == 0 ? 9 : 4);
        for (int i = 0; i < n; i++) {
            String field = "f" + i;
            if (depth < 2 && random.nextInt(7) == 0) {
                Schema[] nested = record(name + "_" + field, prefix + field + ".", depth + 1);
                readerFields.add(new Schema.Field(field, nested[0]));
                writerFields.add(new Schema.Field(field, nested[1]));
                continue;
            }
            Kind kind = random.nextInt(8) == 0 ? array() : random.nextInt(6) == 0 ? nullable() : scalar(true);
            boolean hasDefault = kind.defaultValue != NO_DEFAULT;
            Schema.Field rf = hasDefault
                    ? new Schema.Field(field, kind.reader, null, kind.defaultValue)
                    : new Schema.Field(field, kind.reader);
            String writerName = field;
            if (evolve && random.nextInt(10) == 0) {
                writerName = "old_" + field;
                rf.addAlias(writerName);
            }
            readerFields.add(rf);
            leaves.add(new Leaf(prefix + field, kind.columns));
            if (evolve && hasDefault && random.nextInt(4) == 0) {
                continue; // the writer does not have it: the reader default is written
            }
            writerFields.add(new Schema.Field(writerName, kind.writer));
        }
        if (evolve) {
            for (int extra = random.nextInt(3); extra > 0; extra--) {
                writerFields.add(random.nextInt(writerFields.size() + 1), new Schema.Field("extra" + names++, any(0)));
            }
            Collections.shuffle(writerFields, new Random(random.nextLong()));
        }
        Schema r = Schema.createRecord(name, null, NS, false, readerFields);
        Schema w = Schema.createRecord(name, null, NS, false, copy(writerFields));
        return new Schema[] {r, w};
    }

    private static List<Schema.Field> copy(List<Schema.Field> fields) {
        List<Schema.Field> out = new ArrayList<>();
        for (Schema.Field f : fields) {
            out.add(new Schema.Field(f, f.schema()));
        }
        return out;
    }

    private Kind array() {
        // No promotion inside arrays: Avro 1.12's GenericDatumReader checks an array block's size
        // against the reader's element width (8 bytes for a double), so it rejects a valid array of
        // writer ints read as doubles; the object path cannot be the reference there.
        promotions = false;
        Kind element = random.nextInt(4) == 0 ? nullable() : scalar(false);
        promotions = true;
        List<String> columns =
                element.columns.stream().map(c -> "Array(" + c + ")").toList();
        return new Kind(Schema.createArray(element.reader), Schema.createArray(element.writer), columns, List.of());
    }

    private Kind nullable() {
        Kind inner = scalar(false);
        Schema nul = Schema.create(Schema.Type.NULL);
        Schema reader = Schema.createUnion(nul, inner.reader);
        Schema writer = switch (evolve ? random.nextInt(3) : 0) {
            case 0 -> Schema.createUnion(nul, inner.writer);
            case 1 -> Schema.createUnion(inner.writer, nul);
            default -> inner.writer;
        };
        List<String> columns = inner.columns.stream()
                .map(c -> c.startsWith("LowCardinality(") ? "LowCardinality(Nullable(String))" : "Nullable(" + c + ")")
                .toList();
        return new Kind(reader, writer, columns, JsonProperties.NULL_VALUE);
    }

    /** @param wrap whether a column may be Nullable around a non-union value */
    private Kind scalar(boolean wrap) {
        Kind k = scalarKind();
        if (wrap && random.nextInt(8) == 0) {
            return new Kind(
                    k.reader,
                    k.writer,
                    k.columns.stream()
                            .map(c -> c.startsWith("LowCardinality(")
                                    ? "LowCardinality(Nullable(String))"
                                    : "Nullable(" + c + ")")
                            .toList(),
                    k.defaultValue);
        }
        return k;
    }

    private Kind scalarKind() {
        switch (random.nextInt(15)) {
            case 0:
                return new Kind(
                        prim(Schema.Type.INT),
                        prim(Schema.Type.INT),
                        List.of(
                                "Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64", "Float32",
                                "Float64"),
                        7);
            case 1:
                return new Kind(
                        prim(Schema.Type.LONG),
                        promoted(Schema.Type.LONG, Schema.Type.INT),
                        List.of("Int64", "UInt64", "Int32", "UInt32", "Int8", "Float64", "Float32"),
                        7L);
            case 2:
                return new Kind(
                        prim(Schema.Type.FLOAT),
                        promoted(Schema.Type.FLOAT, Schema.Type.INT, Schema.Type.LONG),
                        List.of("Float32", "Float64"),
                        1.5f);
            case 3:
                return new Kind(
                        prim(Schema.Type.DOUBLE),
                        promoted(Schema.Type.DOUBLE, Schema.Type.INT, Schema.Type.LONG, Schema.Type.FLOAT),
                        List.of("Float64"),
                        2.5);
            case 4:
                return new Kind(prim(Schema.Type.BOOLEAN), prim(Schema.Type.BOOLEAN), List.of("Bool", "UInt8"), true);
            case 5:
                return new Kind(
                        prim(Schema.Type.STRING),
                        promoted(Schema.Type.STRING, Schema.Type.BYTES),
                        List.of("String", "LowCardinality(String)", "FixedString(" + (1 + random.nextInt(12)) + ")"),
                        "");
            case 6:
                return new Kind(
                        prim(Schema.Type.BYTES),
                        promoted(Schema.Type.BYTES, Schema.Type.STRING),
                        List.of("String", "FixedString(" + (1 + random.nextInt(12)) + ")"),
                        new byte[0]);
            case 7: {
                int size = 1 + random.nextInt(20);
                Schema fixed = Schema.createFixed("F" + names++, null, NS, size);
                return new Kind(
                        fixed,
                        fixed,
                        List.of("FixedString(" + (size + random.nextInt(4)) + ")", "String"),
                        "x".repeat(size));
            }
            case 8:
                return enumeration();
            case 9:
                return logical(LogicalTypes.date(), Schema.Type.INT, List.of("Date", "Date32", "Int32"), 7);
            case 10: {
                LogicalType t = switch (random.nextInt(6)) {
                    case 0 -> LogicalTypes.timestampMillis();
                    case 1 -> LogicalTypes.timestampMicros();
                    case 2 -> LogicalTypes.timestampNanos();
                    case 3 -> LogicalTypes.localTimestampMillis();
                    case 4 -> LogicalTypes.localTimestampMicros();
                    default -> LogicalTypes.localTimestampNanos();
                };
                Kind k = logical(
                        t,
                        Schema.Type.LONG,
                        List.of(
                                "DateTime",
                                "DateTime64(" + random.nextInt(10) + ")",
                                "DateTime64(" + random.nextInt(10) + ", 'UTC')",
                                "Int64"),
                        7L);
                if (evolve && promotions && random.nextInt(5) == 0) {
                    return new Kind(k.reader, prim(Schema.Type.INT), k.columns, k.defaultValue);
                }
                return k;
            }
            case 11: {
                int p = 1 + random.nextInt(40);
                int s = random.nextInt(p + 1);
                Schema bytes = LogicalTypes.decimal(p, s).addToSchema(prim(Schema.Type.BYTES));
                Schema same = LogicalTypes.decimal(p, s).addToSchema(prim(Schema.Type.BYTES));
                return new Kind(bytes, same, List.of(decimalColumn(p, s)), NO_DEFAULT);
            }
            case 12: {
                int size = 1 + random.nextInt(16);
                int max = (int) Math.floor(Math.log10(2) * (8 * size - 1));
                if (max < 1) {
                    size = 2;
                    max = 4;
                }
                int p = 1 + random.nextInt(max);
                int s = random.nextInt(p + 1);
                Schema fixed =
                        LogicalTypes.decimal(p, s).addToSchema(Schema.createFixed("D" + names++, null, NS, size));
                return new Kind(fixed, fixed, List.of(decimalColumn(p, s)), NO_DEFAULT);
            }
            case 13:
                return logical(LogicalTypes.uuid(), Schema.Type.STRING, List.of("UUID", "String"), NO_DEFAULT);
            default: {
                Schema fixed = LogicalTypes.uuid().addToSchema(Schema.createFixed("U" + names++, null, NS, 16));
                return new Kind(fixed, fixed, List.of("UUID", "FixedString(16)"), NO_DEFAULT);
            }
        }
    }

    /** Decimal(P, s): usually wide enough for the Avro precision, sometimes not. */
    private String decimalColumn(int p, int s) {
        int precision = random.nextInt(4) == 0
                ? Math.max(s, 1) + random.nextInt(76 - Math.max(s, 1) + 1)
                : Math.min(76, p + random.nextInt(3));
        precision = Math.max(precision, Math.max(s, 1));
        return random.nextBoolean()
                ? "Decimal(" + precision + ", " + s + ")"
                : switch (precision) {
                    case 9 -> "Decimal32(" + s + ")";
                    case 18 -> "Decimal64(" + s + ")";
                    case 38 -> "Decimal128(" + s + ")";
                    case 76 -> "Decimal256(" + s + ")";
                    default -> "Decimal(" + precision + "," + s + ")";
                };
    }

    private Kind enumeration() {
        int m = 1 + random.nextInt(6);
        List<String> symbols = new ArrayList<>();
        for (int i = 0; i < m; i++) {
            symbols.add("S" + i);
        }
        boolean withDefault = random.nextBoolean();
        String name = "E" + names++;
        Schema reader = Schema.createEnum(name, null, NS, symbols, withDefault ? symbols.get(0) : null);
        List<String> writerSymbols = new ArrayList<>(symbols);
        if (evolve) {
            if (withDefault) {
                for (int extra = random.nextInt(3); extra > 0; extra--) {
                    writerSymbols.add("NEW" + extra);
                }
            }
            Collections.shuffle(writerSymbols, new Random(random.nextLong()));
        }
        Schema writer = Schema.createEnum(name, null, NS, writerSymbols);
        boolean wide = random.nextBoolean();
        int min = wide ? Short.MIN_VALUE : Byte.MIN_VALUE;
        int max = wide ? Short.MAX_VALUE : Byte.MAX_VALUE;
        Map<String, Integer> codes = new LinkedHashMap<>();
        List<String> order = new ArrayList<>(symbols);
        if (random.nextBoolean()) {
            order.add("UNUSED");
        }
        Collections.shuffle(order, new Random(random.nextLong()));
        java.util.Set<Integer> used = new java.util.HashSet<>();
        for (String symbol : order) {
            int code;
            do {
                code = min + random.nextInt(max - min + 1);
            } while (!used.add(code));
            codes.put(symbol, code);
        }
        StringBuilder type = new StringBuilder(wide ? "Enum16(" : "Enum8(");
        codes.forEach((k, v) -> type.append(type.charAt(type.length() - 1) == '(' ? "" : ", ")
                .append('\'')
                .append(k)
                .append("' = ")
                .append(v));
        type.append(')');
        return new Kind(reader, writer, List.of(type.toString(), "String"), symbols.get(0));
    }

    private Kind logical(LogicalType type, Schema.Type base, List<String> columns, Object defaultValue) {
        return new Kind(type.addToSchema(prim(base)), type.addToSchema(prim(base)), columns, defaultValue);
    }

    private static Schema prim(Schema.Type type) {
        return Schema.create(type);
    }

    /** The writer's type: the reader's, or (when evolving, sometimes) one that promotes to it. */
    private Schema promoted(Schema.Type reader, Schema.Type... from) {
        if (!evolve || !promotions || random.nextInt(3) != 0) {
            return prim(reader);
        }
        return prim(from[random.nextInt(from.length)]);
    }

    /** A writer-only field: any type, unmapped (skipped). */
    private Schema any(int depth) {
        switch (random.nextInt(depth < 2 ? 9 : 6)) {
            case 0:
                return prim(Schema.Type.INT);
            case 1:
                return prim(Schema.Type.STRING);
            case 2:
                return prim(Schema.Type.DOUBLE);
            case 3:
                return Schema.createFixed("X" + names++, null, NS, 1 + random.nextInt(5));
            case 4:
                return Schema.createUnion(prim(Schema.Type.NULL), prim(Schema.Type.LONG), prim(Schema.Type.BYTES));
            case 5:
                return Schema.createEnum("XE" + names++, null, NS, List.of("A", "B"));
            case 6:
                return Schema.createMap(any(depth + 1));
            case 7:
                return Schema.createArray(any(depth + 1));
            default:
                return Schema.createRecord(
                        "XR" + names++,
                        null,
                        NS,
                        false,
                        List.of(new Schema.Field("a", any(depth + 1)), new Schema.Field("b", any(depth + 1))));
        }
    }

    private String pick(List<String> options) {
        return options.get(random.nextInt(options.size()));
    }

    // ---- values -------------------------------------------------------------------------------

    GenericRecord record() {
        return (GenericRecord) value(writer);
    }

    private Object value(Schema s) {
        LogicalType logical = s.getLogicalType();
        switch (s.getType()) {
            case NULL:
                return null;
            case BOOLEAN:
                return random.nextBoolean();
            case INT:
                if (logical != null) {
                    return pickInt(
                            new int[] {0, -1, 65535, 65536, 120529, 120530, -25567, -25568}, random.nextInt(60_000));
                }
                return pickInt(
                        new int[] {
                            0, -1, 1, 127, 128, -128, -129, 255, 256, 65535, 65536, Integer.MAX_VALUE, Integer.MIN_VALUE
                        },
                        random.nextInt());
            case LONG: {
                if (logical != null) {
                    long unit = logical.getName().endsWith("millis")
                            ? 1_000L
                            : logical.getName().endsWith("micros") ? 1_000_000L : 1_000_000_000L;
                    long[] edges = {
                        0,
                        -1,
                        1L << 40,
                        -(1L << 40),
                        1L << 62,
                        -(1L << 62),
                        0xFFFF_FFFFL * unit,
                        0x1_0000_0000L * unit,
                        -unit
                    };
                    return pickLong(edges, 1_700_000_000L * unit + random.nextLong(1_000_000_000L * unit));
                }
                return pickLong(
                        new long[] {
                            0,
                            -1,
                            1,
                            Long.MAX_VALUE,
                            Long.MIN_VALUE,
                            1L << 32,
                            (1L << 32) - 1,
                            Integer.MAX_VALUE + 1L,
                            Integer.MIN_VALUE - 1L,
                            1L << 53
                        },
                        random.nextLong());
            }
            case FLOAT: {
                int r = random.nextInt(10);
                return r == 0
                        ? Float.NaN
                        : r == 1 ? Float.NEGATIVE_INFINITY : r == 2 ? -0.0f : (float) (random.nextDouble() * 2e6 - 1e6);
            }
            case DOUBLE: {
                int r = random.nextInt(10);
                return r == 0
                        ? Double.NaN
                        : r == 1
                                ? Double.POSITIVE_INFINITY
                                : r == 2 ? Double.MIN_VALUE : random.nextDouble() * 2e12 - 1e12;
            }
            case STRING:
                if (logical != null) {
                    UUID u = new UUID(random.nextLong(), random.nextLong());
                    return random.nextInt(4) == 0 ? u.toString().toUpperCase() : u.toString();
                }
                return text();
            case BYTES:
                if (logical instanceof LogicalTypes.Decimal d) {
                    return ByteBuffer.wrap(decimalBytes(d.getPrecision(), -1));
                }
                return ByteBuffer.wrap(text().getBytes(StandardCharsets.UTF_8));
            case FIXED: {
                byte[] bytes = new byte[s.getFixedSize()];
                if (logical instanceof LogicalTypes.Decimal d) {
                    bytes = decimalBytes(d.getPrecision(), s.getFixedSize());
                } else {
                    random.nextBytes(bytes);
                }
                return new GenericData.Fixed(s, bytes);
            }
            case ENUM:
                return new GenericData.EnumSymbol(s, pick(s.getEnumSymbols()));
            case UNION: {
                List<Schema> branches = s.getTypes();
                return value(branches.get(random.nextInt(branches.size())));
            }
            case ARRAY: {
                List<Object> list = new ArrayList<>();
                for (int i = random.nextInt(5); i > 0; i--) {
                    list.add(value(s.getElementType()));
                }
                return list;
            }
            case MAP: {
                Map<String, Object> map = new HashMap<>();
                for (int i = random.nextInt(4); i > 0; i--) {
                    map.put(text(), value(s.getValueType()));
                }
                return map;
            }
            case RECORD: {
                GenericData.Record record = new GenericData.Record(s);
                for (Schema.Field f : s.getFields()) {
                    record.put(f.pos(), value(f.schema()));
                }
                return record;
            }
            default:
                throw new IllegalArgumentException(s.toString());
        }
    }

    /**
     * An unscaled decimal of up to {@code precision} digits (sometimes one more), big-endian; minimal,
     * or sign-extended by a redundant byte, or to {@code size} bytes for a fixed.
     */
    private byte[] decimalBytes(int precision, int size) {
        int digits = 1 + random.nextInt(precision + (random.nextInt(6) == 0 ? 1 : 0));
        BigInteger limit = BigInteger.TEN.pow(digits);
        BigInteger v = new BigInteger(limit.bitLength() + 2, new Random(random.nextLong())).mod(limit);
        if (random.nextBoolean()) {
            v = v.negate();
        }
        byte[] be = v.toByteArray();
        int length = size > 0 ? size : be.length + (random.nextInt(5) == 0 ? 1 : 0);
        if (be.length > length) {
            be = v.mod(BigInteger.ONE.shiftLeft(8 * length - 1)).toByteArray();
            if (be.length > length) {
                be = java.util.Arrays.copyOfRange(be, be.length - length, be.length);
            }
            v = new BigInteger(be);
        }
        byte[] out = new byte[length];
        java.util.Arrays.fill(out, v.signum() < 0 ? (byte) -1 : 0);
        System.arraycopy(be, 0, out, length - be.length, be.length);
        return out;
    }

    private String text() {
        int n = random.nextInt(15);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            int kind = random.nextInt(12);
            if (kind == 0) {
                sb.append('é');
            } else if (kind == 1) {
                sb.append('€');
            } else if (kind == 2) {
                sb.appendCodePoint(0x1F600);
            } else {
                sb.append((char) ('a' + random.nextInt(26)));
            }
        }
        return sb.toString();
    }

    private int pickInt(int[] edges, int otherwise) {
        int r = random.nextInt(4);
        return r == 0 ? edges[random.nextInt(edges.length)] : r == 1 ? random.nextInt(200) - 50 : otherwise;
    }

    private long pickLong(long[] edges, long otherwise) {
        int r = random.nextInt(4);
        return r == 0 ? edges[random.nextInt(edges.length)] : r == 1 ? random.nextInt(200) - 50 : otherwise;
    }
}
