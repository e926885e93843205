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
     * A type name spelled as ClickHouse prints it: whitespace outside quotes collapsed, none after {@code (} or
     * before {@code )} and {@code ,}, one after {@code ,} and around {@code =} ({@code Decimal(18, 2)},
     * {@code Map(String, UInt64)}, {@code Enum8('a' = 1)}, {@code Tuple(a String, b UInt8)}).
     */
    static String serverName(String declared) {
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
