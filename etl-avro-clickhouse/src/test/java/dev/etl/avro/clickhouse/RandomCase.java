package dev.etl.avro.clickhouse;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.function.Supplier;
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
 *
 * <p>About one field in six is a composite instead ({@link #composite}): an Avro map into {@code Map(K, V)}
 * (String, LowCardinality(String) or FixedString keys; scalar, Nullable or Array values), a record into an
 * unnamed {@code Tuple(...)} (every reader field by position) or a named one (some reader fields by name, in
 * any order), an IP address into {@code IPv4}/{@code IPv6} (a string of valid and invalid address text, a
 * {@code fixed(4)}/{@code fixed(16)}, an int or long, a bytes of 16 bytes or not), and a union of two or
 * three non-null types (sometimes with null) into {@code Variant(...)} and into one column per branch
 * ({@code field[long]}, {@code field[E3]}). Evolved, a composite's writer drops and adds record fields,
 * drops, reorders and promotes union branches, narrows a union to one branch and an enum to some of its
 * symbols. The composites draw from a random stream of their own, so that a seed's other fields, columns
 * and values are those it had before composites were generated (the fuzz corpus's inputs name seeds).
 */
final class RandomCase {
    private static final String NS = "dev.etl.avro.clickhouse.random";

    final Schema reader;
    final Schema writer;
    final AvroRowMapping mapping;

    /** One field in this many is a composite (drawn from the composites' stream). */
    private static final int COMPOSITE_ODDS = 6;

    /** A string or bytes schema property saying what values to generate: IP address text, or 16 bytes. */
    static final String VALUES = "x-random-values";

    private SplittableRandom random;
    private final boolean evolve;
    private int names;
    private final List<Leaf> leaves = new ArrayList<>();
    private boolean promotions = true;

    /** The composites' stream and names (named types of composites are numbered from 1,000,000). */
    private SplittableRandom compositeRandom;

    private int compositeNames = 1_000_000;
    private boolean inComposite;
    /** The writer schemas of composite fields: their values are drawn from the composites' stream. */
    private final Set<Schema> composites = Collections.newSetFromMap(new IdentityHashMap<>());

    /**
     * A reader field that can be mapped, with the columns it may be written to: each a path suffix ("" or a
     * union branch, {@code [long]}) and a column type.
     */
    private record Leaf(String path, List<String[]> options, boolean composite) {}

    /**
     * A leaf type: its reader and writer schemas, the columns it converts to, its default (or none), and
     * the columns of one union branch each ({@code [long]} and a Nullable type), for a union of several types.
     */
    private record Kind(
            Schema reader, Schema writer, List<String> columns, Object defaultValue, List<String[]> branchColumns) {
        Kind(Schema reader, Schema writer, List<String> columns, Object defaultValue) {
            this(reader, writer, columns, defaultValue, List.of());
        }

        List<String[]> options() {
            List<String[]> options = new ArrayList<>();
            for (String c : columns) {
                options.add(new String[] {"", c});
            }
            options.addAll(branchColumns);
            return options;
        }
    }

    private static final Object NO_DEFAULT = new Object();

    RandomCase(long seed, boolean evolve) {
        this.random = new SplittableRandom(seed);
        this.compositeRandom = new SplittableRandom(~seed ^ 0x5EED_C0DE_C0FF_EEL);
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
            columns.add(column(leaf));
            if (random.nextInt(6) == 0) {
                columns.add(column(leaf));
            }
        }
        if (columns.isEmpty()) {
            columns.add(column(leaves.get(0)));
        }
        Collections.shuffle(columns, new Random(random.nextLong()));
        AvroRowMapping.Builder b = AvroRowMapping.builder(reader);
        for (int i = 0; i < columns.size(); i++) {
            b.column("c" + i, columns.get(i)[1], columns.get(i)[0]);
        }
        return b.build();
    }

    /** A column of the leaf: its path (with a branch suffix, for a branch column) and type. */
    private String[] column(Leaf leaf) {
        String[] option = leaf.composite ? onCompositeStream(() -> pick(leaf.options)) : pick(leaf.options);
        return new String[] {leaf.path + option[0], option[1]};
    }

    /**
     * Runs {@code generate} on the composites' stream and names: what it draws changes nothing the main
     * stream draws.
     */
    private <T> T onCompositeStream(Supplier<T> generate) {
        if (inComposite) {
            return generate.get();
        }
        SplittableRandom main = random;
        int mainNames = names;
        random = compositeRandom;
        names = compositeNames;
        inComposite = true;
        try {
            return generate.get();
        } finally {
            inComposite = false;
            compositeNames = names;
            random = main;
            names = mainNames;
        }
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
            boolean aliased = evolve && random.nextInt(10) == 0;
            boolean dropped = evolve && hasDefault && random.nextInt(4) == 0;
            // The main stream drew the same as before composites existed; a composite replaces the kind.
            boolean composite = onCompositeStream(() -> random.nextInt(COMPOSITE_ODDS) == 0);
            if (composite) {
                Kind c = onCompositeStream(() -> composite(false));
                kind = c;
                hasDefault = c.defaultValue != NO_DEFAULT;
                aliased = onCompositeStream(() -> evolve && random.nextInt(10) == 0);
                dropped = onCompositeStream(() -> evolve && c.defaultValue != NO_DEFAULT && random.nextInt(4) == 0);
                composites.add(kind.writer);
            }
            Schema.Field rf = hasDefault
                    ? new Schema.Field(field, kind.reader, null, kind.defaultValue)
                    : new Schema.Field(field, kind.reader);
            String writerName = field;
            if (aliased) {
                writerName = "old_" + field;
                rf.addAlias(writerName);
            }
            readerFields.add(rf);
            leaves.add(new Leaf(prefix + field, kind.options(), composite));
            if (dropped) {
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
        boolean outer = promotions;
        promotions = false;
        Kind element = random.nextInt(4) == 0 ? nullable() : scalar(false);
        promotions = outer;
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

    // ---- composites: maps, tuples, IP addresses, unions of several types ----------------------------

    /**
     * A composite kind; on the composites' stream. {@code element}: a tuple's element (no tuple inside, and a
     * union only into a Variant: a branch column is a column's path).
     */
    private Kind composite(boolean element) {
        return switch (random.nextInt(element ? 3 : 5)) {
            case 0 -> ip();
            case 1 -> map();
            case 2, 3 -> union(element);
            default -> tuple();
        };
    }

    /** An Avro map into Map(K, V): K from the string keys, V a scalar, Nullable or Array column. */
    private Kind map() {
        // No promotion of the values: as in arrays, Avro 1.12's GenericDatumReader checks a map block's size
        // against the reader's value width (ensureAvailableMapBytes), so it would reject valid promoted maps.
        boolean outer = promotions;
        promotions = false;
        int r = random.nextInt(6);
        Kind value = r == 0 ? array() : r == 1 ? nullable() : scalar(false);
        promotions = outer;
        List<String> columns = new ArrayList<>();
        for (String v : value.columns) {
            columns.add("Map(" + mapKey() + ", " + v + ")");
        }
        return new Kind(Schema.createMap(value.reader), Schema.createMap(value.writer), columns, Map.of());
    }

    private String mapKey() {
        return switch (random.nextInt(4)) {
            case 0 -> "LowCardinality(String)";
            case 1 -> "FixedString(" + (1 + random.nextInt(12)) + ")";
            default -> "String";
        };
    }

    /**
     * A record into a Tuple: unnamed (every reader field by position) or named (some reader fields by name,
     * in any order). Evolved, the writer record drops fields that have defaults, adds fields, reorders them,
     * names some by a reader alias and promotes scalars.
     */
    private Kind tuple() {
        String name = "T" + names++;
        int n = 1 + random.nextInt(4);
        List<Schema.Field> readerFields = new ArrayList<>();
        List<Schema.Field> writerFields = new ArrayList<>();
        List<Kind> kinds = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String field = "e" + i;
            int r = random.nextInt(12);
            Kind kind = r == 0 ? composite(true) : r == 1 ? array() : r < 4 ? nullable() : scalar(true);
            kinds.add(kind);
            Schema.Field rf = kind.defaultValue != NO_DEFAULT
                    ? new Schema.Field(field, kind.reader, null, kind.defaultValue)
                    : new Schema.Field(field, kind.reader);
            String writerName = field;
            if (evolve && random.nextInt(8) == 0) {
                writerName = "was_" + field;
                rf.addAlias(writerName);
            }
            readerFields.add(rf);
            if (evolve && kind.defaultValue != NO_DEFAULT && random.nextInt(4) == 0) {
                continue; // the element is the reader default
            }
            writerFields.add(new Schema.Field(writerName, kind.writer));
        }
        if (evolve) {
            for (int extra = random.nextInt(3); extra > 0; extra--) {
                writerFields.add(random.nextInt(writerFields.size() + 1), new Schema.Field("more" + names++, any(1)));
            }
            Collections.shuffle(writerFields, new Random(random.nextLong()));
        }
        Schema reader = Schema.createRecord(name, null, NS, false, readerFields);
        Schema writer = Schema.createRecord(name, null, NS, false, copy(writerFields));
        List<String> columns = new ArrayList<>();
        for (int c = 0; c < 3; c++) {
            StringBuilder type = new StringBuilder("Tuple(");
            if (c < 2) {
                for (int i = 0; i < n; i++) {
                    type.append(i == 0 ? "" : ", ").append(pick(kinds.get(i).columns));
                }
            } else {
                List<Integer> chosen = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    if (random.nextInt(3) != 0) {
                        chosen.add(i);
                    }
                }
                if (chosen.isEmpty()) {
                    chosen.add(random.nextInt(n));
                }
                Collections.shuffle(chosen, new Random(random.nextLong()));
                for (int k = 0; k < chosen.size(); k++) {
                    int i = chosen.get(k);
                    type.append(k == 0 ? "" : ", ")
                            .append("e")
                            .append(i)
                            .append(' ')
                            .append(pick(kinds.get(i).columns));
                }
            }
            columns.add(type.append(')').toString());
        }
        return new Kind(reader, writer, columns, NO_DEFAULT);
    }

    /**
     * An IP address: text (valid and not) into IPv4 and IPv6, {@code fixed(4)} into IPv4, {@code fixed(16)}
     * into IPv6, an int or long into IPv4, a bytes (16 bytes, or not) into IPv6; sometimes in a union with null.
     */
    private Kind ip() {
        Kind k = switch (random.nextInt(7)) {
            case 0, 1, 2 -> {
                Schema reader = valuesOf(prim(Schema.Type.STRING), "ip");
                Schema writer = valuesOf(promoted(Schema.Type.STRING, Schema.Type.BYTES), "ip");
                yield new Kind(reader, writer, List.of("IPv4", "IPv6", "IPv4", "IPv6", "String"), NO_DEFAULT);
            }
            case 3 -> {
                Schema fixed = Schema.createFixed("A" + names++, null, NS, 4);
                yield new Kind(fixed, fixed, List.of("IPv4", "IPv4", "FixedString(4)"), "\u007f\u0000\u0000\u0001");
            }
            case 4 -> {
                Schema fixed = Schema.createFixed("B" + names++, null, NS, 16);
                yield new Kind(fixed, fixed, List.of("IPv6", "IPv6", "FixedString(16)"), "x".repeat(16));
            }
            case 5 ->
                random.nextBoolean()
                        ? new Kind(prim(Schema.Type.INT), prim(Schema.Type.INT), List.of("IPv4"), 7)
                        : new Kind(
                                prim(Schema.Type.LONG),
                                promoted(Schema.Type.LONG, Schema.Type.INT),
                                List.of("IPv4"),
                                7L);
            default -> {
                Schema reader = valuesOf(prim(Schema.Type.BYTES), "16");
                Schema writer = valuesOf(promoted(Schema.Type.BYTES, Schema.Type.STRING), "16");
                yield new Kind(reader, writer, List.of("IPv6"), new byte[16]);
            }
        };
        if (random.nextInt(4) != 0) {
            return k;
        }
        Schema nul = Schema.create(Schema.Type.NULL);
        Schema writer = switch (evolve ? random.nextInt(3) : 0) {
            case 0 -> Schema.createUnion(nul, k.writer);
            case 1 -> Schema.createUnion(k.writer, nul);
            default -> k.writer;
        };
        return new Kind(
                Schema.createUnion(nul, k.reader),
                writer,
                k.columns.stream().map(c -> "Nullable(" + c + ")").toList(),
                JsonProperties.NULL_VALUE);
    }

    private static Schema valuesOf(Schema s, String values) {
        s.addProp(VALUES, values);
        return s;
    }

    /**
     * A union of two or three non-null types (scalars, IP text, {@code fixed(4)}/{@code fixed(16)}), sometimes
     * with null, into Variant(...) columns and (not in a tuple) one Nullable column per branch. Evolved, the
     * writer union lacks some branches, has them in another order, promotes a branch (an int where the reader
     * has a long, …: Avro reads it as the first reader branch it promotes to), narrows an enum to some of its
     * symbols, or is one branch alone.
     */
    private Kind union(boolean element) {
        boolean outer = promotions;
        promotions = false;
        int n = 2 + random.nextInt(2);
        List<Kind> branches = new ArrayList<>();
        Set<String> keys = new LinkedHashSet<>();
        for (int tries = 0; branches.size() < n && tries < 40; tries++) {
            Kind k = random.nextInt(5) == 0 ? ipBranch() : scalarKind();
            if (keys.add(unionKey(k.reader))) {
                branches.add(k);
            }
        }
        promotions = outer;
        boolean withNull = random.nextInt(3) == 0;
        List<Schema> readerTypes = new ArrayList<>();
        if (withNull) {
            readerTypes.add(Schema.create(Schema.Type.NULL));
        }
        for (Kind k : branches) {
            readerTypes.add(k.reader);
        }
        Schema reader = Schema.createUnion(readerTypes);
        Schema writer = evolve ? evolvedUnion(branches, withNull, keys) : sameUnion(branches, withNull);
        List<String> columns = new ArrayList<>();
        for (int c = 0; c < 3; c++) {
            columns.add(variant(branches));
        }
        List<String[]> branchColumns = new ArrayList<>();
        if (!element) {
            for (Kind k : branches) {
                for (int c = 1 + random.nextInt(2); c > 0; c--) {
                    String column = pick(k.columns);
                    branchColumns.add(new String[] {
                        "[" + selector(k.reader) + "]",
                        column.startsWith("LowCardinality(")
                                ? "LowCardinality(Nullable(" + column.substring(15) + ")"
                                : "Nullable(" + column + ")"
                    });
                }
            }
        }
        // Without null, no default: the first branch's default may not convert to the Variant's first type that
        // takes it (an empty string into IPv4), and a writer schema whose default does not convert is refused
        // whole, where the object path refuses each record.
        return new Kind(reader, writer, columns, withNull ? JsonProperties.NULL_VALUE : NO_DEFAULT, branchColumns);
    }

    private Schema sameUnion(List<Kind> branches, boolean withNull) {
        List<Schema> types = new ArrayList<>();
        if (withNull) {
            types.add(Schema.create(Schema.Type.NULL));
        }
        for (Kind k : branches) {
            types.add(k.writer);
        }
        return Schema.createUnion(types);
    }

    private Schema evolvedUnion(List<Kind> branches, boolean withNull, Set<String> readerKeys) {
        List<Schema> types = new ArrayList<>();
        Set<String> writerKeys = new java.util.HashSet<>();
        for (Kind k : branches) {
            if (random.nextInt(4) == 0) {
                continue;
            }
            Schema w = k.writer;
            if (w.getType() == Schema.Type.ENUM && random.nextInt(3) == 0) {
                List<String> symbols = new ArrayList<>();
                for (String symbol : k.reader.getEnumSymbols()) {
                    if (symbols.isEmpty() || random.nextBoolean()) {
                        symbols.add(symbol);
                    }
                }
                Collections.shuffle(symbols, new Random(random.nextLong()));
                w = Schema.createEnum(w.getName(), null, w.getNamespace(), symbols);
            } else if (w.getLogicalType() == null && random.nextInt(3) == 0) {
                Schema.Type[] from = switch (w.getType()) {
                    case LONG -> new Schema.Type[] {Schema.Type.INT};
                    case FLOAT -> new Schema.Type[] {Schema.Type.INT, Schema.Type.LONG};
                    case DOUBLE -> new Schema.Type[] {Schema.Type.INT, Schema.Type.LONG, Schema.Type.FLOAT};
                    case STRING -> new Schema.Type[] {Schema.Type.BYTES};
                    case BYTES -> new Schema.Type[] {Schema.Type.STRING};
                    default -> new Schema.Type[0];
                };
                Schema.Type promotedFrom = from.length == 0 ? null : from[random.nextInt(from.length)];
                // Only a type the reader union lacks: Avro resolves a writer type the reader has to that branch.
                if (promotedFrom != null && !readerKeys.contains(promotedFrom.getName())) {
                    Schema promoted = prim(promotedFrom);
                    if (w.getProp(VALUES) != null) {
                        promoted.addProp(VALUES, w.getProp(VALUES));
                    }
                    w = promoted;
                }
            }
            if (writerKeys.add(unionKey(w))) {
                types.add(w);
            }
        }
        if (types.isEmpty()) {
            Kind k = branches.get(random.nextInt(branches.size()));
            types.add(k.writer);
        }
        if (withNull && random.nextInt(4) != 0) {
            types.add(random.nextInt(types.size() + 1), Schema.create(Schema.Type.NULL));
        }
        Collections.shuffle(types, new Random(random.nextLong()));
        if (types.size() == 1 && random.nextBoolean()) {
            return types.get(0);
        }
        return Schema.createUnion(types);
    }

    /** A union branch that is an IP address: text, {@code fixed(4)} or {@code fixed(16)}. */
    private Kind ipBranch() {
        return switch (random.nextInt(3)) {
            case 0 -> {
                Schema fixed = Schema.createFixed("A" + names++, null, NS, 4);
                yield new Kind(fixed, fixed, List.of("IPv4", "FixedString(4)", "String"), "\u007f\u0000\u0000\u0001");
            }
            case 1 -> {
                Schema fixed = Schema.createFixed("B" + names++, null, NS, 16);
                yield new Kind(fixed, fixed, List.of("IPv6", "FixedString(16)"), "x".repeat(16));
            }
            default -> {
                Schema s = valuesOf(prim(Schema.Type.STRING), "ip");
                yield new Kind(s, s, List.of("IPv4", "IPv6", "String"), NO_DEFAULT);
            }
        };
    }

    /** What makes two union branches the same in Avro's eyes: the type, or the full name of a named type. */
    private static String unionKey(Schema s) {
        return switch (s.getType()) {
            case RECORD, ENUM, FIXED -> s.getFullName();
            default -> s.getType().getName();
        };
    }

    /** The suffix naming a union branch: its type, or a named type's simple or full name. */
    private String selector(Schema branch) {
        return switch (branch.getType()) {
            case RECORD, ENUM, FIXED -> random.nextBoolean() ? branch.getName() : branch.getFullName();
            default -> branch.getType().getName();
        };
    }

    /**
     * A Variant of one column type of each branch (no two the same), sometimes with a type no branch chose,
     * or an Enum8 of only some of an enum's symbols (which the enum does not convert to), in a random order
     * and spacing.
     */
    private String variant(List<Kind> branches) {
        List<String> types = new ArrayList<>();
        Set<String> seen = new java.util.HashSet<>();
        for (Kind k : branches) {
            String t = pick(k.columns);
            if (seen.add(dev.etl.clickhouse.ColumnType.parse(t).canonical())) {
                types.add(t);
            }
            if (k.reader.getType() == Schema.Type.ENUM && random.nextInt(3) == 0) {
                List<String> symbols = k.reader.getEnumSymbols();
                StringBuilder partial = new StringBuilder("Enum8(");
                int code = random.nextInt(20) - 10;
                for (int i = 0; i < symbols.size() - 1; i++) {
                    partial.append(i == 0 ? "" : ",")
                            .append('\'')
                            .append(symbols.get(i))
                            .append("'=")
                            .append(code);
                    code -= 1 + random.nextInt(3);
                }
                String t2 = symbols.size() == 1
                        ? "Enum8('OTHER' = 1)"
                        : partial.append(')').toString();
                if (seen.add(dev.etl.clickhouse.ColumnType.parse(t2).canonical())) {
                    types.add(t2);
                }
            }
        }
        if (random.nextInt(3) == 0) {
            String extra = pick(List.of("Int8", "UInt64", "Float64", "String", "Bool", "UUID", "Date", "Array(Int32)"));
            if (seen.add(dev.etl.clickhouse.ColumnType.parse(extra).canonical())) {
                types.add(extra);
            }
        }
        Collections.shuffle(types, new Random(random.nextLong()));
        return "Variant(" + String.join(random.nextBoolean() ? ", " : ",", types) + ")";
    }

    private <T> T pick(List<T> options) {
        return options.get(random.nextInt(options.size()));
    }

    // ---- values -------------------------------------------------------------------------------

    GenericRecord record() {
        return (GenericRecord) value(writer);
    }

    private Object value(Schema s) {
        if (!inComposite && composites.contains(s)) {
            return onCompositeStream(() -> value(s));
        }
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
                if ("ip".equals(s.getProp(VALUES))) {
                    return ipText();
                }
                if ("16".equals(s.getProp(VALUES))) {
                    return new String(sixteen(), StandardCharsets.ISO_8859_1);
                }
                if (logical != null) {
                    UUID u = new UUID(random.nextLong(), random.nextLong());
                    return random.nextInt(4) == 0 ? u.toString().toUpperCase() : u.toString();
                }
                return text();
            case BYTES:
                if ("ip".equals(s.getProp(VALUES))) {
                    return ByteBuffer.wrap(ipText().getBytes(StandardCharsets.UTF_8));
                }
                if ("16".equals(s.getProp(VALUES))) {
                    return ByteBuffer.wrap(sixteen());
                }
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

    /** Mostly 16 bytes (an IPv6 address), sometimes another length; ASCII, so that a string can hold them. */
    private byte[] sixteen() {
        byte[] b = new byte[random.nextInt(4) == 0 ? random.nextInt(20) : 16];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) random.nextInt(128);
        }
        return b;
    }

    /**
     * IP address text: valid IPv4 (leading zeros, 0 and 255) and IPv6 (full, compressed anywhere, either case,
     * leading zeros, an IPv4 tail as in {@code ::ffff:1.2.3.4}), and invalid: out-of-range octets, too few or too
     * many parts or groups, two {@code ::}, groups of five digits, a {@code ::} that stands for no group, stray
     * colons and dots, a tail that is no quad, scope ids, brackets, spaces, non-ASCII, empty.
     */
    private String ipText() {
        return switch (random.nextInt(12)) {
            case 0, 1 -> ipv4Text();
            case 2, 3, 4 -> ipv6Text();
            case 5 ->
                pick(List.of(
                        "256.1.1.1",
                        "1.2.3.256",
                        "1.2.3",
                        "1.2.3.4.5",
                        "1..2.3",
                        "1.2.3.4.",
                        ".1.2.3",
                        "0001.2.3.4",
                        "1.2.3.-4",
                        " 1.2.3.4",
                        "1.2.3.4 ",
                        "1.2.3.a",
                        "",
                        "999.999.999.999",
                        "4294967295",
                        "0x7f.0.0.1",
                        "١.2.3.4"));
            case 6 ->
                pick(List.of(
                        "::ffff:1.2.3.4",
                        "::1.2.3.4",
                        "64:ff9b::192.0.2.33",
                        "1:2:3:4:5:6:1.2.3.4",
                        "::",
                        "::1",
                        "1::",
                        "1::8",
                        "FFFF:ffff:FfFf:0:0:0:0:1",
                        "0000:0000:0000:0000:0000:0000:0000:0001",
                        "1:0:0:0:0:0:0:8"));
            case 7 ->
                pick(List.of(
                        "1:2:3:4:5:6:7:8:9",
                        "1:2:3:4:5:6:7",
                        "1::2::3",
                        ":::",
                        "1:::2",
                        "12345::1",
                        "1:2:3:4:5:6:7::8",
                        "::1:2:3:4:5:6:7:8",
                        "1:2:3:4:5:6:7:8::",
                        ":1::2",
                        "1::2:",
                        "1:2:3:4:5:6:7:",
                        ":1:2:3:4:5:6:7:8",
                        "::ffff:1.2.3.256",
                        "::ffff:1.2.3",
                        "::ffff:1.2.3.4.5",
                        "1.2.3.4::",
                        "::1.2.3.4:5",
                        "1:2:3:4:5:6:7:1.2.3.4",
                        "::ffff:01.2.3.0004",
                        "fe80::1%eth0",
                        "[::1]",
                        "g::1",
                        ":",
                        "1",
                        "::ffff:1.2.3.4 ",
                        "::ffff:0x1.2.3.4"));
            case 8 -> {
                // A valid address with one character changed.
                char[] text = (random.nextBoolean() ? ipv4Text() : ipv6Text()).toCharArray();
                if (text.length > 0) {
                    text[random.nextInt(text.length)] = pick(List.of(':', '.', '0', 'f', 'g', ' ', '9', 'é'));
                }
                yield new String(text);
            }
            case 9 -> ipv4Text() + pick(List.of("", ".", ".0", "0", ":1"));
            case 10 -> pick(List.of("", "::", ":")) + ipv6Text() + pick(List.of("", ":", "::", ":0", ".1"));
            default -> text();
        };
    }

    private String ipv4Text() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 4; i++) {
            sb.append(i == 0 ? "" : ".").append(octet());
        }
        return sb.toString();
    }

    private String octet() {
        int r = random.nextInt(8);
        int v = r == 0 ? 0 : r == 1 ? 255 : r == 2 ? 250 + random.nextInt(10) : random.nextInt(256);
        String s = Integer.toString(v);
        if (random.nextInt(8) == 0 && s.length() < 3) {
            s = "0".repeat(1 + random.nextInt(3 - s.length())) + s;
        }
        return s;
    }

    private String ipv6Text() {
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            int r = random.nextInt(4);
            groups[i] = r == 0 ? 0 : r == 1 ? 0xFFFF : random.nextInt(0x10000);
        }
        boolean quad = random.nextInt(4) == 0;
        int count = quad ? 6 : 8;
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String g = Integer.toHexString(groups[i]);
            if (random.nextInt(6) == 0) {
                g = "0".repeat(4 - g.length()) + g;
            }
            if (random.nextInt(4) == 0) {
                g = g.toUpperCase(java.util.Locale.ROOT);
            }
            parts.add(g);
        }
        if (quad) {
            parts.add(ipv4Text());
        }
        if (random.nextInt(3) != 0) {
            // "::" for a run of one or more groups (the quad counts as two)
            int from = random.nextInt(count);
            int to = from + 1 + random.nextInt(count - from);
            List<String> head = parts.subList(0, from);
            List<String> tail = parts.subList(to, parts.size());
            return String.join(":", head) + "::" + String.join(":", tail);
        }
        return String.join(":", parts);
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
