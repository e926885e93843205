package dev.etl.avro.clickhouse;

import dev.etl.clickhouse.ColumnType;
import java.util.List;

/**
 * ClickHouse's {@code Variant(T1, …, Tn)} (a type {@link ColumnType} reads as {@link ColumnType.Kind#OTHER}):
 * in RowBinary a value is a UInt8 discriminator, then the value as its type writes it; the discriminator is the
 * index of the value's type among the Variant's types <em>sorted by name</em>, and 255 is NULL (see
 * https://clickhouse.com/docs/en/sql-reference/data-types/variant and the Variant section of
 * https://clickhouse.com/docs/en/interfaces/formats#rowbinary).
 */
final class VariantTypes {
    /** The discriminator of NULL. */
    static final int NULL_DISCRIMINATOR = 255;

    private VariantTypes() {}

    static boolean isVariant(ColumnType t) {
        return t.kind() == ColumnType.Kind.OTHER && t.canonical().startsWith("Variant(");
    }

    /**
     * Per type in declaration order, its discriminator: its index among the types sorted by their names as
     * ClickHouse prints them ({@link #serverName}). {@code system.columns} prints a Variant's types sorted
     * already; a mapping derived from it declares them in that order.
     */
    static int[] discriminators(ColumnType variant) {
        List<ColumnType> types = variant.arguments();
        int n = types.size();
        String[] names = new String[n];
        for (int i = 0; i < n; i++) {
            names[i] = serverName(types.get(i).name());
        }
        int[] discriminators = new int[n];
        for (int i = 0; i < n; i++) {
            int below = 0;
            for (int j = 0; j < n; j++) {
                int c = names[j].compareTo(names[i]);
                if (c < 0 || c == 0 && j < i) {
                    below++;
                }
            }
            discriminators[i] = below;
        }
        return discriminators;
    }

    /**
     * A type name spelled as ClickHouse prints it ({@code system.columns}, {@code toTypeName}): one space after
     * {@code ,} and around {@code =}, none elsewhere outside quotes; {@code Decimal32/64/128/256(S)} and
     * {@code Decimal(P)} as {@code Decimal(P, S)}; an enum's items sorted by value (ClickHouse keeps them so, whatever
     * the declared order: {@code Enum8('b' = 2, 'a' = 1)} prints as {@code Enum8('a' = 1, 'b' = 2)}); a time zone
     * as declared. A name that does not parse is only re-spaced.
     */
    static String serverName(String declared) {
        ColumnType t;
        try {
            t = ColumnType.parse(declared);
        } catch (IllegalArgumentException e) {
            return spaced(declared);
        }
        return serverName(t);
    }

    private static String serverName(ColumnType t) {
        return switch (t.kind()) {
            case FIXED_STRING -> "FixedString(" + t.length() + ")";
            case DECIMAL -> "Decimal(" + t.precision() + ", " + t.scale() + ")";
            case DATE_TIME -> t.timeZone() == null ? "DateTime" : "DateTime(" + quoted(t.timeZone()) + ")";
            case DATE_TIME64 ->
                "DateTime64(" + t.precision() + (t.timeZone() == null ? "" : ", " + quoted(t.timeZone())) + ")";
            case ENUM8, ENUM16 -> {
                List<java.util.Map.Entry<String, Integer>> items =
                        new java.util.ArrayList<>(t.enumValues().entrySet());
                items.sort(java.util.Map.Entry.comparingByValue());
                StringBuilder sb = new StringBuilder(t.kind() == ColumnType.Kind.ENUM8 ? "Enum8(" : "Enum16(");
                for (int i = 0; i < items.size(); i++) {
                    sb.append(i == 0 ? "" : ", ")
                            .append(quoted(items.get(i).getKey()))
                            .append(" = ")
                            .append(items.get(i).getValue());
                }
                yield sb.append(')').toString();
            }
            case NULLABLE, LOW_CARDINALITY, ARRAY, MAP, TUPLE -> {
                String kind = switch (t.kind()) {
                    case NULLABLE -> "Nullable(";
                    case LOW_CARDINALITY -> "LowCardinality(";
                    case ARRAY -> "Array(";
                    case MAP -> "Map(";
                    default -> "Tuple(";
                };
                StringBuilder sb = new StringBuilder(kind);
                List<ColumnType> arguments = t.arguments();
                for (int i = 0; i < arguments.size(); i++) {
                    String element =
                            t.elementNames().isEmpty() ? null : t.elementNames().get(i);
                    sb.append(i == 0 ? "" : ", ")
                            .append(element == null ? "" : element + " ")
                            .append(serverName(arguments.get(i)));
                }
                yield sb.append(')').toString();
            }
            case INT8 -> "Int8";
            case INT16 -> "Int16";
            case INT32 -> "Int32";
            case INT64 -> "Int64";
            case INT128 -> "Int128";
            case INT256 -> "Int256";
            case UINT8 -> "UInt8";
            case UINT16 -> "UInt16";
            case UINT32 -> "UInt32";
            case UINT64 -> "UInt64";
            case UINT128 -> "UInt128";
            case UINT256 -> "UInt256";
            case FLOAT32 -> "Float32";
            case FLOAT64 -> "Float64";
            case BOOL -> "Bool";
            case STRING -> "String";
            case UUID -> "UUID";
            case IPV4 -> "IPv4";
            case IPV6 -> "IPv6";
            case DATE -> "Date";
            case DATE32 -> "Date32";
            default -> spaced(t.name());
        };
    }

    /** A string literal as ClickHouse quotes it: in single quotes, a quote or backslash escaped by a backslash. */
    private static String quoted(String s) {
        return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }

    /**
     * A type name re-spaced: whitespace outside quotes collapsed, none after {@code (} or before {@code )} and
     * {@code ,}, one after {@code ,} and around {@code =}.
     */
    private static String spaced(String declared) {
        StringBuilder sb = new StringBuilder(declared.length() + 8);
        boolean quoted = false;
        boolean space = false;
        for (int i = 0; i < declared.length(); i++) {
            char c = declared.charAt(i);
            if (quoted) {
                sb.append(c);
                if (c == '\\' && i + 1 < declared.length()) {
                    sb.append(declared.charAt(++i));
                } else if (c == '\'') {
                    quoted = false;
                }
                continue;
            }
            if (Character.isWhitespace(c)) {
                space = true;
                continue;
            }
            char last = sb.length() == 0 ? '(' : sb.charAt(sb.length() - 1);
            if (c == ')' || c == ',' || c == '=') {
                // no space before these (a space before '=' is added with it)
            } else if (space && last != '(' && last != ' ') {
                sb.append(' ');
            }
            space = false;
            if (c == '=') {
                if (sb.charAt(sb.length() - 1) != ' ') {
                    sb.append(' ');
                }
                sb.append("= ");
            } else if (c == ',') {
                sb.append(", ");
            } else {
                if (c == '\'') {
                    quoted = true;
                }
                sb.append(c);
            }
        }
        return sb.toString().strip();
    }
}
