package dev.etl.clickhouse;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Normalises ClickHouse type strings so that spellings of the same wire type compare equal:
 * whitespace outside quotes is dropped, {@code DecimalN(S)} becomes {@code Decimal(P,S)}, the time
 * zone argument of {@code DateTime}/{@code DateTime64} is dropped (it does not change the encoding),
 * and enum values are sorted by code (servers print them sorted).
 */
final class ClickHouseTypeNames {
    private static final Pattern DECIMAL_ALIAS = Pattern.compile("Decimal(32|64|128|256)\\((\\d+)\\)");
    private static final Pattern DATETIME_TZ = Pattern.compile("DateTime\\('(?:[^'\\\\]|\\\\.)*'\\)");
    private static final Pattern DATETIME64_TZ = Pattern.compile("DateTime64\\((\\d+),'(?:[^'\\\\]|\\\\.)*'\\)");

    private ClickHouseTypeNames() {}

    static String normalise(String type) {
        String t = stripWhitespace(type.strip());
        Matcher m = DECIMAL_ALIAS.matcher(t);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            String precision = switch (m.group(1)) {
                case "32" -> "9";
                case "64" -> "18";
                case "128" -> "38";
                default -> "76";
            };
            m.appendReplacement(sb, "Decimal(" + precision + "," + m.group(2) + ")");
        }
        m.appendTail(sb);
        t = DATETIME_TZ.matcher(sb.toString()).replaceAll("DateTime");
        t = DATETIME64_TZ.matcher(t).replaceAll("DateTime64($1)");
        return sortEnums(t);
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

    /** Sorts the {@code 'name'=code} items of every Enum8/Enum16 by code. Input has no whitespace. */
    private static String sortEnums(String t) {
        int from = 0;
        StringBuilder out = new StringBuilder();
        while (true) {
            int at = indexOfEnum(t, from);
            if (at < 0) {
                return out.append(t, from, t.length()).toString();
            }
            int open = t.indexOf('(', at);
            int close = closingParen(t, open);
            if (close < 0) {
                return out.append(t, from, t.length()).toString();
            }
            List<String> items = splitTopLevel(t.substring(open + 1, close));
            items.sort((a, b) -> Long.compare(code(a), code(b)));
            out.append(t, from, open + 1).append(String.join(",", items)).append(')');
            from = close + 1;
        }
    }

    private static int indexOfEnum(String t, int from) {
        int a = t.indexOf("Enum8(", from);
        int b = t.indexOf("Enum16(", from);
        return a < 0 ? b : b < 0 ? a : Math.min(a, b);
    }

    private static int closingParen(String t, int open) {
        boolean quoted = false;
        for (int i = open + 1; i < t.length(); i++) {
            char c = t.charAt(i);
            if (quoted) {
                if (c == '\\') {
                    i++;
                } else if (c == '\'') {
                    quoted = false;
                }
            } else if (c == '\'') {
                quoted = true;
            } else if (c == ')') {
                return i;
            }
        }
        return -1;
    }

    private static List<String> splitTopLevel(String s) {
        List<String> items = new ArrayList<>();
        boolean quoted = false;
        int start = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (quoted) {
                if (c == '\\') {
                    i++;
                } else if (c == '\'') {
                    quoted = false;
                }
            } else if (c == '\'') {
                quoted = true;
            } else if (c == ',') {
                items.add(s.substring(start, i));
                start = i + 1;
            }
        }
        items.add(s.substring(start));
        return items;
    }

    private static long code(String item) {
        int eq = item.lastIndexOf('=');
        try {
            return Long.parseLong(item.substring(eq + 1));
        } catch (RuntimeException e) {
            return Long.MAX_VALUE;
        }
    }

    /** Undoes TabSeparated escaping ({@code \'}, {@code \\}, {@code \t}, {@code \n}). */
    static String unescapeTsv(String s) {
        if (s.indexOf('\\') < 0) {
            return s;
        }
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length()) {
                char n = s.charAt(++i);
                sb.append(
                        switch (n) {
                            case 't' -> '\t';
                            case 'n' -> '\n';
                            case 'r' -> '\r';
                            case '0' -> '\0';
                            default -> n;
                        });
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
