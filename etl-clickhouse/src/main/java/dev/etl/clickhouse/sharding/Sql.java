package dev.etl.clickhouse.sharding;

/** SQL text helpers for the placement queries. */
final class Sql {
    private Sql() {}

    /** A ClickHouse string literal: backslash and quote escaped, other bytes as they are. */
    static String literal(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2).append('\'');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\\' -> sb.append("\\\\");
                case '\'' -> sb.append("\\'");
                case '\0' -> sb.append("\\0");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> sb.append(c);
            }
        }
        return sb.append('\'').toString();
    }

    /** A backquoted identifier. */
    static String identifier(String name) {
        return "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`";
    }

    /** Undoes TabSeparated escaping (backslash sequences for tab, newline, backslash, quote, …). */
    static String unescapeTsv(String s) {
        if (s.indexOf('\\') < 0) {
            return s;
        }
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '\\' || i + 1 == s.length()) {
                sb.append(c);
                continue;
            }
            char n = s.charAt(++i);
            switch (n) {
                case 't' -> sb.append('\t');
                case 'n' -> sb.append('\n');
                case 'r' -> sb.append('\r');
                case '0' -> sb.append('\0');
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                default -> sb.append(n);
            }
        }
        return sb.toString();
    }
}
