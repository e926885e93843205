package dev.etl.transcode;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A parsed ClickHouse column type, as far as the transcoder writes it: the integer, float, Bool,
 * String, FixedString, Date/Date32, DateTime/DateTime64 (time zone accepted and ignored: it does not
 * change the encoding), Decimal (and its DecimalN aliases), UUID, Enum8/Enum16 types, and
 * {@code Nullable}, {@code Array}, {@code LowCardinality} around them. Immutable.
 */
final class ColumnType {
    enum Kind {
        INT8,
        INT16,
        INT32,
        INT64,
        UINT8,
        UINT16,
        UINT32,
        UINT64,
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
        ENUM8,
        ENUM16,
        NULLABLE,
        ARRAY
    }

    final Kind kind;
    /** The type as declared. */
    final String name;
    /** Nullable's and Array's inner type, else null. */
    final ColumnType inner;
    /** FixedString's n; DateTime64's precision; Decimal's precision. */
    final int size;
    /** Decimal's scale. */
    final int scale;
    /** Enum8/Enum16 names to codes, in declaration order. */
    final Map<String, Integer> enumValues;

    private ColumnType(Kind kind, String name, ColumnType inner, int size, int scale, Map<String, Integer> enumValues) {
        this.kind = kind;
        this.name = name;
        this.inner = inner;
        this.size = size;
        this.scale = scale;
        this.enumValues = enumValues;
    }

    /** Width in bytes of a fixed-width integer kind (Int*, UInt*, Date, Date32, DateTime, DateTime64, Enum*). */
    int width() {
        return switch (kind) {
            case INT8, UINT8, BOOL, ENUM8 -> 1;
            case INT16, UINT16, DATE, ENUM16 -> 2;
            case INT32, UINT32, DATE32, DATE_TIME, FLOAT32 -> 4;
            case INT64, UINT64, DATE_TIME64, FLOAT64 -> 8;
            case DECIMAL -> size <= 9 ? 4 : size <= 18 ? 8 : size <= 38 ? 16 : 32;
            default -> throw new IllegalStateException(kind + " has no fixed width");
        };
    }

    @Override
    public String toString() {
        return name;
    }

    /**
     * Parses {@code type}.
     *
     * @throws IllegalArgumentException naming the type when it is not one the transcoder writes
     */
    static ColumnType parse(String type) {
        Parser p = new Parser(type);
        ColumnType parsed = p.type();
        p.skipSpaces();
        if (p.at < type.length()) {
            throw p.error("unexpected '" + type.substring(p.at) + "'");
        }
        return parsed;
    }

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
            ColumnType t = switch (word) {
                case "Int8" -> simple(Kind.INT8, from);
                case "Int16" -> simple(Kind.INT16, from);
                case "Int32" -> simple(Kind.INT32, from);
                case "Int64" -> simple(Kind.INT64, from);
                case "UInt8" -> simple(Kind.UINT8, from);
                case "UInt16" -> simple(Kind.UINT16, from);
                case "UInt32" -> simple(Kind.UINT32, from);
                case "UInt64" -> simple(Kind.UINT64, from);
                case "Float32" -> simple(Kind.FLOAT32, from);
                case "Float64" -> simple(Kind.FLOAT64, from);
                case "Bool" -> simple(Kind.BOOL, from);
                case "String" -> simple(Kind.STRING, from);
                case "UUID" -> simple(Kind.UUID, from);
                case "Date" -> simple(Kind.DATE, from);
                case "Date32" -> simple(Kind.DATE32, from);
                case "FixedString" -> {
                    open();
                    int n = number();
                    close();
                    if (n < 1) {
                        throw error("FixedString needs n >= 1");
                    }
                    yield new ColumnType(Kind.FIXED_STRING, s.substring(from, at), null, n, 0, null);
                }
                case "DateTime" -> {
                    if (peek('(')) {
                        open();
                        quoted();
                        close();
                    }
                    yield new ColumnType(Kind.DATE_TIME, s.substring(from, at), null, 0, 0, null);
                }
                case "DateTime64" -> {
                    open();
                    int precision = number();
                    if (peek(',')) {
                        at++;
                        quoted();
                    }
                    close();
                    if (precision > 9) {
                        throw error("DateTime64 precision must be in [0, 9]");
                    }
                    yield new ColumnType(Kind.DATE_TIME64, s.substring(from, at), null, precision, 0, null);
                }
                case "Decimal" -> {
                    open();
                    int precision = number();
                    expect(',');
                    int scale = number();
                    close();
                    yield decimal(precision, scale, from);
                }
                case "Decimal32", "Decimal64", "Decimal128", "Decimal256" -> {
                    open();
                    int scale = number();
                    close();
                    int precision = switch (word) {
                        case "Decimal32" -> 9;
                        case "Decimal64" -> 18;
                        case "Decimal128" -> 38;
                        default -> 76;
                    };
                    yield decimal(precision, scale, from);
                }
                case "Enum8", "Enum16" -> enumType(word.equals("Enum8") ? Kind.ENUM8 : Kind.ENUM16, from);
                case "Nullable", "Array", "LowCardinality" -> {
                    open();
                    ColumnType inner = type();
                    close();
                    if (word.equals("LowCardinality")) {
                        // The same bytes as the inner type on the RowBinary wire; only the name differs.
                        yield new ColumnType(
                                inner.kind,
                                s.substring(from, at),
                                inner.inner,
                                inner.size,
                                inner.scale,
                                inner.enumValues);
                    }
                    Kind kind = word.equals("Nullable") ? Kind.NULLABLE : Kind.ARRAY;
                    if (kind == Kind.NULLABLE && inner.kind == Kind.NULLABLE) {
                        throw error("Nullable(Nullable(...)) is not a type");
                    }
                    yield new ColumnType(kind, s.substring(from, at), inner, 0, 0, null);
                }
                default -> throw error("type '" + word + "' is not supported by the Avro transcoder");
            };
            return t;
        }

        private ColumnType simple(Kind kind, int from) {
            return new ColumnType(kind, s.substring(from, at), null, 0, 0, null);
        }

        private ColumnType decimal(int precision, int scale, int from) {
            if (precision < 1 || precision > 76 || scale < 0 || scale > precision) {
                throw error("Decimal(" + precision + ", " + scale + ") is out of range");
            }
            return new ColumnType(Kind.DECIMAL, s.substring(from, at), null, precision, scale, null);
        }

        private ColumnType enumType(Kind kind, int from) {
            open();
            Map<String, Integer> values = new LinkedHashMap<>();
            do {
                skipSpaces();
                String name = quoted();
                expect('=');
                skipSpaces();
                boolean negative = peek('-');
                if (negative) {
                    at++;
                }
                int code = negative ? -number() : number();
                int min = kind == Kind.ENUM8 ? Byte.MIN_VALUE : Short.MIN_VALUE;
                int max = kind == Kind.ENUM8 ? Byte.MAX_VALUE : Short.MAX_VALUE;
                if (code < min || code > max || values.put(name, code) != null) {
                    throw error("enum value '" + name + "' = " + code + " is out of range or repeated");
                }
                skipSpaces();
            } while (peek(',') && at++ >= 0);
            close();
            return new ColumnType(kind, s.substring(from, at), null, 0, 0, Map.copyOf(values));
        }

        private String identifier() {
            int from = at;
            while (at < s.length() && Character.isLetterOrDigit(s.charAt(at))) {
                at++;
            }
            if (from == at) {
                throw error("expected a type name");
            }
            return s.substring(from, at);
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
            int n = Integer.parseInt(s.substring(from, at));
            skipSpaces();
            return n;
        }

        private String quoted() {
            skipSpaces();
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
            skipSpaces();
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
            while (at < s.length() && s.charAt(at) == ' ') {
                at++;
            }
        }

        IllegalArgumentException error(String problem) {
            return new IllegalArgumentException("ClickHouse type '" + s + "': " + problem + " at character " + at);
        }
    }
}
