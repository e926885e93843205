package dev.etl.clickhouse;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A ClickHouse type string parsed once: the one reading of a type name in this project. The sink's
 * startup check compares the table's types with the encoder's by their {@link #canonical()} spelling,
 * the Native format builds its column transposition from it, the shard writer finds row boundaries
 * with it, and the Avro transcoder plans its conversions on it.
 *
 * <p>What it reads: every type {@code system.columns} prints. The types this project writes get their
 * own {@link Kind} and their arguments checked (integers, floats, {@code Bool}, {@code String},
 * {@code FixedString(N)}, {@code Date}, {@code Date32}, {@code DateTime[('tz')]},
 * {@code DateTime64(p[, 'tz'])}, {@code Decimal(P[, S])} and {@code Decimal32..256(S)}, {@code UUID},
 * {@code IPv4}, {@code IPv6}, {@code Enum8}/{@code Enum16} with or without explicit codes, and
 * {@code Nullable}, {@code LowCardinality}, {@code Array}, {@code Map} and {@code Tuple} (named elements
 * too) around them). Any other name ({@code AggregateFunction(uniq, UInt64)}, {@code JSON}, …) is
 * {@link Kind#OTHER}, its arguments read as types, numbers or quoted strings: it compares, and each user
 * refuses it with its own reason.
 *
 * <p>Immutable and thread-safe. Parsing allocates; nothing on a per-row path parses.
 */
public final class ColumnType {

    /** What a type is. Aliases share a kind ({@code Decimal64(S)} is a {@link #DECIMAL} of precision 18). */
    public enum Kind {
        INT8,
        INT16,
        INT32,
        INT64,
        INT128,
        INT256,
        UINT8,
        UINT16,
        UINT32,
        UINT64,
        UINT128,
        UINT256,
        FLOAT32,
        FLOAT64,
        BOOL,
        STRING,
        FIXED_STRING,
        DATE,
        DATE32,
        DATE_TIME,
        DATE_TIME64,
        DECIMAL,
        UUID,
        IPV4,
        IPV6,
        ENUM8,
        ENUM16,
        NULLABLE,
        LOW_CARDINALITY,
        ARRAY,
        MAP,
        TUPLE,
        /** A name this project does not write; its arguments are kept for {@link #canonical()}. */
        OTHER
    }

    private static final Map<String, Kind> SIMPLE = Map.ofEntries(
            Map.entry("Int8", Kind.INT8),
            Map.entry("Int16", Kind.INT16),
            Map.entry("Int32", Kind.INT32),
            Map.entry("Int64", Kind.INT64),
            Map.entry("Int128", Kind.INT128),
            Map.entry("Int256", Kind.INT256),
            Map.entry("UInt8", Kind.UINT8),
            Map.entry("UInt16", Kind.UINT16),
            Map.entry("UInt32", Kind.UINT32),
            Map.entry("UInt64", Kind.UINT64),
            Map.entry("UInt128", Kind.UINT128),
            Map.entry("UInt256", Kind.UINT256),
            Map.entry("Float32", Kind.FLOAT32),
            Map.entry("Float64", Kind.FLOAT64),
            Map.entry("Bool", Kind.BOOL),
            Map.entry("String", Kind.STRING),
            Map.entry("Date", Kind.DATE),
            Map.entry("Date32", Kind.DATE32),
            Map.entry("UUID", Kind.UUID),
            Map.entry("IPv4", Kind.IPV4),
            Map.entry("IPv6", Kind.IPV6));

    private final Kind kind;
    private final String name;
    private final String canonical;
    private final List<ColumnType> arguments;
    private final List<String> elementNames;
    private final int length;
    private final int precision;
    private final int scale;
    private final String timeZone;
    private final Map<String, Integer> enumValues;

    private ColumnType(
            Kind kind,
            String name,
            String canonical,
            List<ColumnType> arguments,
            List<String> elementNames,
            int length,
            int precision,
            int scale,
            String timeZone,
            Map<String, Integer> enumValues) {
        this.kind = kind;
        this.name = name;
        this.canonical = canonical;
        this.arguments = arguments;
        this.elementNames = elementNames;
        this.length = length;
        this.precision = precision;
        this.scale = scale;
        this.timeZone = timeZone;
        this.enumValues = enumValues;
    }

    /**
     * Parses a type string ({@code Array(Nullable(String))}, {@code Decimal64(2)},
     * {@code Enum8('a' = 1, 'b' = 2)}, …).
     *
     * @throws IllegalArgumentException naming the type, the problem and where it is, for a string that is
     *                                  not a type, or a known type with wrong arguments
     *                                  ({@code FixedString(0)}, {@code Decimal(80, 2)}, {@code Map(String)})
     */
    public static ColumnType parse(String type) {
        Objects.requireNonNull(type, "type");
        Parser p = new Parser(type);
        ColumnType parsed = p.type();
        p.skipSpaces();
        if (p.at < type.length()) {
            throw p.error("unexpected '" + type.substring(p.at) + "'");
        }
        return parsed;
    }

    /**
     * Whether two type strings name the same wire type: their {@link #canonical()} spellings are equal.
     * A string that does not parse is compared with whitespace outside quotes removed.
     */
    public static boolean sameType(String a, String b) {
        return canonicalOrStripped(a).equals(canonicalOrStripped(b));
    }

    private static String canonicalOrStripped(String type) {
        try {
            return parse(type).canonical();
        } catch (IllegalArgumentException e) {
            return stripWhitespace(type);
        }
    }

    /** What the type is. */
    public Kind kind() {
        return kind;
    }

    /** The type as written, without surrounding whitespace. */
    public String name() {
        return name;
    }

    /**
     * One spelling per wire type, for comparing: no whitespace outside quotes, {@code DecimalN(S)} as
     * {@code Decimal(P,S)}, {@code Decimal(P)} as {@code Decimal(P,0)}, no time zone on
     * {@code DateTime}/{@code DateTime64} (it does not change the encoding), enum items sorted by code
     * with every code written out (servers print them so).
     */
    public String canonical() {
        return canonical;
    }

    /**
     * The type arguments: the one of {@code Nullable}, {@code LowCardinality} and {@code Array}; key and
     * value of {@code Map}; the elements of {@code Tuple}; the type-like arguments of an {@link Kind#OTHER}
     * (numbers and strings are left out). Empty for the rest. Unmodifiable.
     */
    public List<ColumnType> arguments() {
        return arguments;
    }

    /** The single type argument of {@code Nullable}, {@code LowCardinality} and {@code Array}, else null. */
    public ColumnType inner() {
        return kind == Kind.NULLABLE || kind == Kind.LOW_CARDINALITY || kind == Kind.ARRAY ? arguments.get(0) : null;
    }

    /** A {@code Tuple}'s element names, null for an unnamed element; empty for other kinds. Unmodifiable. */
    public List<String> elementNames() {
        return elementNames;
    }

    /** {@code FixedString}'s N; 0 for other kinds. */
    public int length() {
        return length;
    }

    /** {@code Decimal}'s precision (digits) or {@code DateTime64}'s (decimal places of a second); else 0. */
    public int precision() {
        return precision;
    }

    /** {@code Decimal}'s scale; else 0. */
    public int scale() {
        return scale;
    }

    /** The time zone of {@code DateTime('tz')} or {@code DateTime64(p, 'tz')}, else null. */
    public String timeZone() {
        return timeZone;
    }

    /** {@code Enum8}/{@code Enum16} names to codes in declaration order; empty for other kinds. Unmodifiable. */
    public Map<String, Integer> enumValues() {
        return enumValues;
    }

    /**
     * Bytes of one value of a fixed-width type in RowBinary and Native (the integers, floats, Bool, Date,
     * Date32, DateTime, DateTime64, Decimal, UUID, IPv4, IPv6, Enum8/16 and FixedString), else -1.
     */
    public int fixedWidth() {
        return switch (kind) {
            case INT8, UINT8, BOOL, ENUM8 -> 1;
            case INT16, UINT16, DATE, ENUM16 -> 2;
            case INT32, UINT32, FLOAT32, DATE32, DATE_TIME, IPV4 -> 4;
            case INT64, UINT64, FLOAT64, DATE_TIME64 -> 8;
            case INT128, UINT128, UUID, IPV6 -> 16;
            case INT256, UINT256 -> 32;
            case DECIMAL -> RowBinary.decimalWidth(precision);
            case FIXED_STRING -> length;
            default -> -1;
        };
    }

    /** Whether the type has no type arguments of its own (not Nullable, LowCardinality, Array, Map or Tuple). */
    public boolean isScalar() {
        return switch (kind) {
            case NULLABLE, LOW_CARDINALITY, ARRAY, MAP, TUPLE -> false;
            default -> true;
        };
    }

    /**
     * This type as RowBinary carries it: every {@code LowCardinality(T)} in it replaced by {@code T} (the
     * same bytes on the RowBinary wire), each replaced node keeping the {@link #name()} it was written with.
     */
    public ColumnType withoutLowCardinality() {
        if (kind == Kind.LOW_CARDINALITY) {
            ColumnType inner = arguments.get(0).withoutLowCardinality();
            return new ColumnType(
                    inner.kind,
                    name,
                    canonical,
                    inner.arguments,
                    inner.elementNames,
                    inner.length,
                    inner.precision,
                    inner.scale,
                    inner.timeZone,
                    inner.enumValues);
        }
        if (arguments.isEmpty()) {
            return this;
        }
        List<ColumnType> plain = new ArrayList<>(arguments.size());
        boolean changed = false;
        for (ColumnType a : arguments) {
            ColumnType p = a.withoutLowCardinality();
            changed |= p != a;
            plain.add(p);
        }
        return !changed
                ? this
                : new ColumnType(
                        kind,
                        name,
                        canonical,
                        List.copyOf(plain),
                        elementNames,
                        length,
                        precision,
                        scale,
                        timeZone,
                        enumValues);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ColumnType t && canonical.equals(t.canonical);
    }

    @Override
    public int hashCode() {
        return canonical.hashCode();
    }

    /** {@link #name()}. */
    @Override
    public String toString() {
        return name;
    }

    private static String stripWhitespace(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        boolean quoted = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (quoted) {
                sb.append(c);
                if (c == '\\' && i + 1 < s.length()) {
                    sb.append(s.charAt(++i));
                } else if (c == '\'') {
                    quoted = false;
                }
            } else if (c == '\'') {
                quoted = true;
                sb.append(c);
            } else if (!Character.isWhitespace(c)) {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    private static String quote(String s) {
        return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }

    /** Recursive descent over the type string; errors name the whole string and the character. */
    private static final class Parser {
        private final String s;
        private int at;

        Parser(String s) {
            this.s = s;
        }

        ColumnType type() {
            skipSpaces();
            int from = at;
            String word = identifier();
            Kind simple = SIMPLE.get(word);
            if (simple != null) {
                if (peek('(')) {
                    throw error(word + " takes no arguments");
                }
                return leaf(simple, from, word);
            }
            return switch (word) {
                case "FixedString" -> {
                    open();
                    int n = number();
                    close();
                    if (n < 1) {
                        throw error("FixedString length must be > 0");
                    }
                    yield new ColumnType(
                            Kind.FIXED_STRING,
                            text(from),
                            "FixedString(" + n + ")",
                            List.of(),
                            List.of(),
                            n,
                            0,
                            0,
                            null,
                            Map.of());
                }
                case "DateTime" -> {
                    String zone = null;
                    if (peek('(')) {
                        open();
                        zone = quoted();
                        close();
                    }
                    yield new ColumnType(
                            Kind.DATE_TIME, text(from), "DateTime", List.of(), List.of(), 0, 0, 0, zone, Map.of());
                }
                case "DateTime64" -> {
                    open();
                    int p = number();
                    String zone = null;
                    if (peek(',')) {
                        at++;
                        zone = quoted();
                    }
                    close();
                    if (p > 9) {
                        throw error("DateTime64 precision must be in [0, 9]");
                    }
                    yield new ColumnType(
                            Kind.DATE_TIME64,
                            text(from),
                            "DateTime64(" + p + ")",
                            List.of(),
                            List.of(),
                            0,
                            p,
                            0,
                            zone,
                            Map.of());
                }
                case "Decimal" -> {
                    open();
                    int p = number();
                    int sc = 0;
                    if (peek(',')) {
                        at++;
                        sc = number();
                    }
                    close();
                    yield decimal(p, sc, from);
                }
                case "Decimal32", "Decimal64", "Decimal128", "Decimal256" -> {
                    open();
                    int sc = number();
                    close();
                    int p = switch (word) {
                        case "Decimal32" -> 9;
                        case "Decimal64" -> 18;
                        case "Decimal128" -> 38;
                        default -> 76;
                    };
                    yield decimal(p, sc, from);
                }
                case "Enum8" -> enumType(Kind.ENUM8, word, Byte.MIN_VALUE, Byte.MAX_VALUE, from);
                case "Enum16" -> enumType(Kind.ENUM16, word, Short.MIN_VALUE, Short.MAX_VALUE, from);
                case "Nullable", "LowCardinality", "Array" -> {
                    open();
                    ColumnType inner = type();
                    close();
                    Kind kind = word.equals("Nullable")
                            ? Kind.NULLABLE
                            : word.equals("Array") ? Kind.ARRAY : Kind.LOW_CARDINALITY;
                    if (kind == Kind.NULLABLE && inner.kind == Kind.NULLABLE) {
                        throw error("Nullable(Nullable(...)) is not a type");
                    }
                    yield composite(kind, word, from, List.of(inner), List.of());
                }
                case "Map" -> {
                    open();
                    ColumnType key = type();
                    expect(',');
                    ColumnType value = type();
                    close();
                    yield composite(Kind.MAP, word, from, List.of(key, value), List.of());
                }
                case "Tuple" -> tuple(from);
                default -> other(word, from);
            };
        }

        private ColumnType leaf(Kind kind, int from, String canonical) {
            return new ColumnType(kind, text(from), canonical, List.of(), List.of(), 0, 0, 0, null, Map.of());
        }

        private ColumnType composite(
                Kind kind, String word, int from, List<ColumnType> args, List<String> elementNames) {
            StringBuilder c = new StringBuilder(word).append('(');
            for (int i = 0; i < args.size(); i++) {
                if (i > 0) {
                    c.append(',');
                }
                String element = elementNames.isEmpty() ? null : elementNames.get(i);
                if (element != null) {
                    c.append(element).append(' ');
                }
                c.append(args.get(i).canonical);
            }
            return new ColumnType(
                    kind, text(from), c.append(')').toString(), args, elementNames, 0, 0, 0, null, Map.of());
        }

        private ColumnType decimal(int p, int sc, int from) {
            if (p < 1 || p > 76 || sc < 0 || sc > p) {
                throw error("Decimal(" + p + ", " + sc + ") is out of range (precision in [1, 76], scale in [0, "
                        + "precision])");
            }
            return new ColumnType(
                    Kind.DECIMAL,
                    text(from),
                    "Decimal(" + p + "," + sc + ")",
                    List.of(),
                    List.of(),
                    0,
                    p,
                    sc,
                    null,
                    Map.of());
        }

        /** {@code ('a' = 1, 'b' = 2)}; an item without a code takes the previous code plus one (from 1). */
        private ColumnType enumType(Kind kind, String word, int min, int max, int from) {
            open();
            Map<String, Integer> values = new LinkedHashMap<>();
            int next = 1;
            do {
                String item = quoted();
                int code;
                if (peek('=')) {
                    at++;
                    code = signedNumber();
                } else {
                    code = next;
                }
                if (code < min || code > max || values.put(item, code) != null) {
                    throw error("enum value '" + item + "' = " + code + " is out of range or repeated");
                }
                next = code + 1;
            } while (peek(',') && at++ >= 0);
            close();
            List<Map.Entry<String, Integer>> sorted = new ArrayList<>(values.entrySet());
            sorted.sort(Map.Entry.comparingByValue());
            StringBuilder c = new StringBuilder(word).append('(');
            for (int i = 0; i < sorted.size(); i++) {
                c.append(i == 0 ? "" : ",")
                        .append(quote(sorted.get(i).getKey()))
                        .append('=')
                        .append(sorted.get(i).getValue());
            }
            return new ColumnType(
                    kind,
                    text(from),
                    c.append(')').toString(),
                    List.of(),
                    List.of(),
                    0,
                    0,
                    0,
                    null,
                    Collections.unmodifiableMap(values));
        }

        /** {@code Tuple(T1, T2)} or {@code Tuple(a T1, b T2)}. */
        private ColumnType tuple(int from) {
            open();
            List<ColumnType> elements = new ArrayList<>();
            List<String> names = new ArrayList<>();
            boolean named = false;
            do {
                skipSpaces();
                int start = at;
                String element = null;
                if (at < s.length() && (s.charAt(at) == '`' || isIdentifierStart(s.charAt(at)))) {
                    String word = s.charAt(at) == '`' ? backquoted() : identifier();
                    int afterWord = at;
                    skipSpaces();
                    if (at > afterWord && at < s.length() && isIdentifierStart(s.charAt(at))) {
                        element = word;
                    } else {
                        at = start;
                    }
                }
                named |= element != null;
                names.add(element);
                elements.add(type());
            } while (peek(',') && at++ >= 0);
            close();
            return composite(Kind.TUPLE, "Tuple", from, List.copyOf(elements), named ? unmodifiable(names) : List.of());
        }

        /** A name this project does not write: its arguments are types, numbers or quoted strings. */
        private ColumnType other(String word, int from) {
            if (!peek('(')) {
                return leaf(Kind.OTHER, from, word);
            }
            open();
            List<ColumnType> types = new ArrayList<>();
            StringBuilder c = new StringBuilder(word).append('(');
            if (!peek(')')) {
                do {
                    skipSpaces();
                    if (c.charAt(c.length() - 1) != '(') {
                        c.append(',');
                    }
                    char first = at < s.length() ? s.charAt(at) : ' ';
                    if (first == '\'') {
                        c.append(quote(quoted()));
                        if (peek('=')) {
                            at++;
                            c.append('=').append(signedNumber());
                        }
                    } else if (first == '-' || first == '.' || Character.isDigit(first)) {
                        c.append(numberText());
                    } else {
                        ColumnType t = type();
                        types.add(t);
                        c.append(t.canonical);
                    }
                } while (peek(',') && at++ >= 0);
            }
            close();
            return new ColumnType(
                    Kind.OTHER,
                    text(from),
                    c.append(')').toString(),
                    List.copyOf(types),
                    List.of(),
                    0,
                    0,
                    0,
                    null,
                    Map.of());
        }

        private static List<String> unmodifiable(List<String> names) {
            return Collections.unmodifiableList(new ArrayList<>(names));
        }

        private String text(int from) {
            return s.substring(from, at).strip();
        }

        private static boolean isIdentifierStart(char c) {
            return Character.isLetter(c) || c == '_';
        }

        private String identifier() {
            skipSpaces();
            int from = at;
            while (at < s.length() && (Character.isLetterOrDigit(s.charAt(at)) || s.charAt(at) == '_')) {
                at++;
            }
            if (from == at) {
                throw error("expected a type name");
            }
            return s.substring(from, at);
        }

        private String backquoted() {
            int from = ++at;
            while (at < s.length() && s.charAt(at) != '`') {
                at++;
            }
            if (at >= s.length()) {
                throw error("unclosed '`'");
            }
            return s.substring(from, at++);
        }

        private int number() {
            skipSpaces();
            int from = at;
            while (at < s.length() && Character.isDigit(s.charAt(at))) {
                at++;
            }
            if (from == at || at - from > 9) {
                throw error("expected a number");
            }
            return Integer.parseInt(s.substring(from, at));
        }

        private int signedNumber() {
            skipSpaces();
            boolean negative = at < s.length() && s.charAt(at) == '-';
            if (negative) {
                at++;
            }
            int n = number();
            return negative ? -n : n;
        }

        /** A numeric literal as written (a quantile level {@code 0.5}, a negative code). */
        private String numberText() {
            int from = at;
            if (at < s.length() && s.charAt(at) == '-') {
                at++;
            }
            while (at < s.length() && (Character.isDigit(s.charAt(at)) || s.charAt(at) == '.')) {
                at++;
            }
            if (at == from) {
                throw error("expected a number");
            }
            return s.substring(from, at);
        }

        private String quoted() {
            expect('\'');
            StringBuilder sb = new StringBuilder();
            while (at < s.length() && s.charAt(at) != '\'') {
                char c = s.charAt(at++);
                if (c == '\\' && at < s.length()) {
                    c = s.charAt(at++);
                }
                sb.append(c);
            }
            expect('\'');
            return sb.toString();
        }

        private boolean peek(char c) {
            skipSpaces();
            return at < s.length() && s.charAt(at) == c;
        }

        private void open() {
            expect('(');
        }

        private void close() {
            expect(')');
        }

        private void expect(char c) {
            skipSpaces();
            if (at >= s.length() || s.charAt(at) != c) {
                throw error("expected '" + c + "'");
            }
            at++;
        }

        void skipSpaces() {
            while (at < s.length() && Character.isWhitespace(s.charAt(at))) {
                at++;
            }
        }

        IllegalArgumentException error(String problem) {
            return new IllegalArgumentException("ClickHouse type '" + s + "': " + problem + " at character " + at);
        }
    }
}
