package dev.etl.clickhouse;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Parses a ClickHouse type string (as a {@link ClickHouseColumn} spells it) into the
 * {@link NativeColumn} tree that transposes its RowBinary values into Native streams. The type string
 * is the one thing every column declaration has — the builder's typed methods and any
 * {@link ClickHouseType}, including a user's own — so the Native path needs no second declaration.
 *
 * <p>Supported: the fixed-width scalars (see {@link #FIXED}, plus {@code Decimal(P, S)},
 * {@code Decimal32..256(S)}, {@code DateTime(tz)}, {@code DateTime64(p[, tz])}, {@code Enum8/16(…)},
 * {@code FixedString(N)}), {@code String}, {@code Nullable(scalar)}, {@code LowCardinality(scalar)}
 * and {@code LowCardinality(Nullable(scalar))}, and {@code Array}, {@code Tuple} (named elements too)
 * and {@code Map} of any supported type. Anything else is refused with the reason.
 *
 * <p>Stateless; every call builds a fresh tree.
 */
final class NativeTypes {
    /** Bytes of the fixed-width scalars whose name takes no arguments. */
    static final Map<String, Integer> FIXED = Map.ofEntries(
            Map.entry("UInt8", 1),
            Map.entry("Int8", 1),
            Map.entry("Bool", 1),
            Map.entry("UInt16", 2),
            Map.entry("Int16", 2),
            Map.entry("Date", 2),
            Map.entry("UInt32", 4),
            Map.entry("Int32", 4),
            Map.entry("Float32", 4),
            Map.entry("Date32", 4),
            Map.entry("DateTime", 4),
            Map.entry("IPv4", 4),
            Map.entry("UInt64", 8),
            Map.entry("Int64", 8),
            Map.entry("Float64", 8),
            Map.entry("UInt128", 16),
            Map.entry("Int128", 16),
            Map.entry("UUID", 16),
            Map.entry("IPv6", 16),
            Map.entry("UInt256", 32),
            Map.entry("Int256", 32));

    private NativeTypes() {}

    /**
     * The transposition tree of {@code type}.
     *
     * @throws IllegalArgumentException naming the part of the type that the Native path cannot write
     */
    static NativeColumn parse(String type) {
        String t = type.strip();
        int open = t.indexOf('(');
        if (open < 0) {
            if (t.equals("String")) {
                return new NativeColumn.Str();
            }
            Integer width = FIXED.get(t);
            if (width != null) {
                return new NativeColumn.Fixed(width);
            }
            throw unsupported(t);
        }
        if (!t.endsWith(")")) {
            throw new IllegalArgumentException("'" + t + "' is not a type name: unbalanced parentheses");
        }
        String name = t.substring(0, open).strip();
        List<String> args = arguments(t.substring(open + 1, t.length() - 1), t);
        switch (name) {
            case "DateTime":
                return new NativeColumn.Fixed(4); // DateTime('tz'): the zone is metadata
            case "DateTime64":
                return new NativeColumn.Fixed(8);
            case "Enum8":
                return new NativeColumn.Fixed(1);
            case "Enum16":
                return new NativeColumn.Fixed(2);
            case "Decimal":
                return new NativeColumn.Fixed(RowBinary.decimalWidth(intArgument(args, 0, t)));
            case "Decimal32":
                return new NativeColumn.Fixed(4);
            case "Decimal64":
                return new NativeColumn.Fixed(8);
            case "Decimal128":
                return new NativeColumn.Fixed(16);
            case "Decimal256":
                return new NativeColumn.Fixed(32);
            case "FixedString": {
                int n = intArgument(args, 0, t);
                if (n <= 0) {
                    throw new IllegalArgumentException("'" + t + "': FixedString length must be > 0");
                }
                return new NativeColumn.Fixed(n);
            }
            case "Nullable": {
                NativeColumn inner = parse(single(args, t));
                if (!inner.isScalar()) {
                    throw new IllegalArgumentException("'" + t + "': Nullable of a composite type is not a ClickHouse "
                            + "type (Nullable wraps a scalar)");
                }
                return new NativeColumn.Nullable(inner);
            }
            case "LowCardinality": {
                String inner = single(args, t);
                String innerName = inner.strip();
                boolean nullable = innerName.startsWith("Nullable(");
                NativeColumn scalar =
                        parse(nullable ? innerName.substring("Nullable(".length(), innerName.length() - 1) : innerName);
                if (!scalar.isScalar()) {
                    throw new IllegalArgumentException(
                            "'" + t + "': LowCardinality wraps a scalar or Nullable(scalar)");
                }
                return new NativeLowCardinality(scalar, nullable);
            }
            case "Array":
                return new NativeArray(parse(single(args, t)));
            case "Map":
                if (args.size() != 2) {
                    throw new IllegalArgumentException("'" + t + "': Map takes a key and a value type");
                }
                return new NativeArray(parse(args.get(0)), parse(args.get(1)));
            case "Tuple": {
                if (args.isEmpty()) {
                    throw new IllegalArgumentException("'" + t + "': Tuple needs at least one element");
                }
                NativeColumn[] elements = new NativeColumn[args.size()];
                for (int i = 0; i < elements.length; i++) {
                    elements[i] = parse(elementType(args.get(i)));
                }
                return new NativeTuple(elements);
            }
            default:
                throw unsupported(t);
        }
    }

    private static IllegalArgumentException unsupported(String type) {
        return new IllegalArgumentException("type '" + type + "' is not supported by the Native insert format");
    }

    /** A named tuple element ({@code id UInt64}) is its type; an unnamed one is the whole text. */
    private static String elementType(String element) {
        String e = element.strip();
        int space = -1;
        for (int i = 0; i < e.length(); i++) {
            char c = e.charAt(i);
            if (c == '(') {
                break;
            }
            if (Character.isWhitespace(c)) {
                space = i;
                break;
            }
        }
        return space < 0 ? e : e.substring(space + 1);
    }

    private static String single(List<String> args, String type) {
        if (args.size() != 1) {
            throw new IllegalArgumentException("'" + type + "' takes one type argument");
        }
        return args.get(0);
    }

    private static int intArgument(List<String> args, int i, String type) {
        try {
            return Integer.parseInt(args.get(i).strip());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("'" + type + "': argument " + (i + 1) + " is not a number", e);
        }
    }

    /** Splits {@code inner} at top-level commas, outside parentheses and quoted strings. */
    static List<String> arguments(String inner, String type) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        boolean quoted = false;
        int from = 0;
        for (int i = 0; i < inner.length(); i++) {
            char c = inner.charAt(i);
            if (quoted) {
                if (c == '\\') {
                    i++;
                } else if (c == '\'') {
                    quoted = false;
                }
            } else if (c == '\'') {
                quoted = true;
            } else if (c == '(') {
                depth++;
            } else if (c == ')') {
                if (--depth < 0) {
                    throw new IllegalArgumentException("'" + type + "' is not a type name: unbalanced parentheses");
                }
            } else if (c == ',' && depth == 0) {
                out.add(inner.substring(from, i));
                from = i + 1;
            }
        }
        if (depth != 0 || quoted) {
            throw new IllegalArgumentException("'" + type + "' is not a type name: unbalanced parentheses or quotes");
        }
        if (!inner.isBlank() || !out.isEmpty()) {
            out.add(inner.substring(from));
        }
        return out;
    }
}
