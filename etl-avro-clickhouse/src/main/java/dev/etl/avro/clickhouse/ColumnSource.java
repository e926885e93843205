package dev.etl.avro.clickhouse;

import java.math.BigDecimal;

/**
 * Where a column's value comes from: the third argument of {@link AvroRowMapping.Builder#column(String, String,
 * String)}, parsed. Avro names are {@code [A-Za-z_][A-Za-z0-9_]*}, so a source containing {@code (}, {@code *} or
 * {@code '}, or starting with a digit or {@code -}, is an expression, never a path. The grammar (spaces allowed
 * between tokens):
 *
 * <pre>
 * source   := path | 'length(' path ')' | 'sum(' path ')' | 'sum(' path '*' path ')'
 *           | operand '*' operand | number | string | 'now()'
 * operand  := path | number
 * path     := name ('.' name)*
 * number   := '-'? digit+ ('.' digit+)?
 * string   := "'" (any character but "'" | "''")* "'"
 * </pre>
 */
sealed interface ColumnSource {
    /** A field path (today's meaning), also through an unexploded array of records (a projection). */
    record Path(String path) implements ColumnSource {}

    /** {@code length(path)}: the number of elements of an array or map. */
    record Length(String path) implements ColumnSource {}

    /** {@code sum(path)} ({@code factor} null) or {@code sum(path * factor)} over an array's elements. */
    record Sum(String path, String factor) implements ColumnSource {}

    /** {@code a * b}: the product of two numeric fields of the row (or a field and a number). */
    record Product(Operand a, Operand b) implements ColumnSource {}

    /** A number literal: an integer when {@code value} has no fraction digits. */
    record Number(BigDecimal value, String text) implements ColumnSource {
        boolean integral() {
            return value.scale() <= 0;
        }
    }

    /** A single-quoted string literal, unescaped. */
    record Text(String value) implements ColumnSource {}

    /** {@code now()}: the time the record is encoded. */
    record Now() implements ColumnSource {}

    /**
     * A value the chain sets through {@link AvroView#set(AvroView.Slot, long)} (declared by
     * {@link AvroRowMapping.Builder#computed(String, String)}, never parsed from a string).
     */
    record Slot() implements ColumnSource {}

    /** A product's operand: a field path, or a number ({@code path} null). */
    record Operand(String path, Number number) {
        @Override
        public String toString() {
            return path != null ? path : number.text();
        }
    }

    /** Whether {@code source} is an expression rather than a field path. */
    static boolean isExpression(String source) {
        String s = source.strip();
        if (s.isEmpty()) {
            return false;
        }
        char first = s.charAt(0);
        return s.indexOf('(') >= 0
                || s.indexOf('*') >= 0
                || s.indexOf('\'') >= 0
                || first == '-'
                || (first >= '0' && first <= '9');
    }

    /**
     * Parses {@code source}: a {@link Path} unless {@link #isExpression}.
     *
     * @throws IllegalArgumentException naming the position (from 0) and what was expected there
     */
    static ColumnSource parse(String source) {
        if (!isExpression(source)) {
            return new Path(source);
        }
        return new Parser(source).source();
    }

    /** A recursive-descent parser over the grammar above. */
    final class Parser {
        private final String s;
        private int pos;

        private Parser(String s) {
            this.s = s;
        }

        ColumnSource source() {
            space();
            ColumnSource result;
            if (peek() == '\'') {
                result = new Text(string());
            } else if (peek() == '-' || digit(peek())) {
                Number n = number();
                space();
                result = peek() == '*' ? product(new Operand(null, n)) : n;
            } else {
                int start = pos;
                String name = name();
                space();
                if (peek() == '(') {
                    pos++;
                    space();
                    result = function(name, start);
                } else {
                    String path = pathAfter(name);
                    space();
                    if (peek() != '*') {
                        throw error("'*', '(' or the end", "an expression");
                    }
                    result = product(new Operand(path, null));
                }
            }
            space();
            if (pos < s.length()) {
                throw error("the end", "'" + s.substring(pos) + "'");
            }
            return result;
        }

        private ColumnSource function(String name, int start) {
            switch (name) {
                case "now": {
                    expect(')');
                    return new Now();
                }
                case "length": {
                    String path = path();
                    space();
                    expect(')');
                    return new Length(path);
                }
                case "sum": {
                    String path = path();
                    space();
                    String factor = null;
                    if (peek() == '*') {
                        pos++;
                        space();
                        factor = path();
                        space();
                    }
                    expect(')');
                    return new Sum(path, factor);
                }
                default:
                    pos = start;
                    throw error("length(...), sum(...) or now()", "'" + name + "(...)'");
            }
        }

        private Product product(Operand a) {
            expect('*');
            space();
            Operand b;
            if (peek() == '-' || digit(peek())) {
                b = new Operand(null, number());
            } else {
                b = new Operand(path(), null);
            }
            return new Product(a, b);
        }

        private String path() {
            return pathAfter(name());
        }

        private String pathAfter(String first) {
            StringBuilder path = new StringBuilder(first);
            while (peek() == '.') {
                pos++;
                path.append('.').append(name());
            }
            return path.toString();
        }

        private String name() {
            int start = pos;
            if (pos < s.length() && (letter(s.charAt(pos)))) {
                pos++;
                while (pos < s.length() && (letter(s.charAt(pos)) || digit(s.charAt(pos)))) {
                    pos++;
                }
                return s.substring(start, pos);
            }
            throw error("a field name", found());
        }

        private Number number() {
            int start = pos;
            if (peek() == '-') {
                pos++;
            }
            digits();
            if (peek() == '.') {
                pos++;
                digits();
            }
            String text = s.substring(start, pos);
            return new Number(new BigDecimal(text), text);
        }

        private void digits() {
            if (!digit(peek())) {
                throw error("a digit", found());
            }
            while (digit(peek())) {
                pos++;
            }
        }

        private String string() {
            pos++; // the opening quote
            StringBuilder value = new StringBuilder();
            while (true) {
                if (pos >= s.length()) {
                    throw error("a closing quote (')", "the end");
                }
                char c = s.charAt(pos++);
                if (c == '\'') {
                    if (peek() == '\'') {
                        pos++;
                        value.append('\'');
                    } else {
                        return value.toString();
                    }
                } else {
                    value.append(c);
                }
            }
        }

        private void expect(char c) {
            if (peek() != c) {
                throw error("'" + c + "'", found());
            }
            pos++;
        }

        private void space() {
            while (pos < s.length() && Character.isWhitespace(s.charAt(pos))) {
                pos++;
            }
        }

        private char peek() {
            return pos < s.length() ? s.charAt(pos) : 0;
        }

        private String found() {
            return pos < s.length() ? "'" + s.charAt(pos) + "'" : "the end";
        }

        private IllegalArgumentException error(String expected, String found) {
            return new IllegalArgumentException(
                    "syntax error at position " + pos + " of \"" + s + "\": expected " + expected + ", found " + found);
        }

        private static boolean letter(char c) {
            return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        }

        private static boolean digit(char c) {
            return c >= '0' && c <= '9';
        }
    }
}
