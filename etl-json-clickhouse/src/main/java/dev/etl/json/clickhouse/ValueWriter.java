package dev.etl.json.clickhouse;

import dev.etl.clickhouse.ColumnType;
import dev.etl.sink.RowBuffer;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * How one ClickHouse type is written from one JSON value: compiled once per column from its
 * {@link ColumnType}, immutable, shared by the lanes (each lane's state is its {@link JsonScanner}).
 * {@link #write} gets the value's extent {@code [start, end)} in the scanner's bytes (a value the scan
 * already validated) and appends its RowBinary; a value the type cannot take throws {@link ValueRejected}.
 */
abstract class ValueWriter {
    /** The type as the table spells it, for messages. */
    final String type;

    ValueWriter(String type) {
        this.type = type;
    }

    abstract void write(JsonScanner in, int start, int end, RowBuffer out);

    /** Whether a missing field or a JSON null is written as NULL. */
    boolean nullable() {
        return false;
    }

    /**
     * The writer of {@code type}, or null when the JSON transcoder does not write it (the caller names
     * the column). {@code LowCardinality(T)} is written as {@code T}, which is its RowBinary.
     */
    static @Nullable ValueWriter of(ColumnType type) {
        ColumnType t = type.withoutLowCardinality();
        String name = type.name();
        return switch (t.kind()) {
            case INT8 -> new IntegerWriter(name, 1, Byte.MIN_VALUE, Byte.MAX_VALUE, false);
            case INT16 -> new IntegerWriter(name, 2, Short.MIN_VALUE, Short.MAX_VALUE, false);
            case INT32 -> new IntegerWriter(name, 4, Integer.MIN_VALUE, Integer.MAX_VALUE, false);
            case INT64 -> new IntegerWriter(name, 8, Long.MIN_VALUE, Long.MAX_VALUE, false);
            case UINT8 -> new IntegerWriter(name, 1, 0, 0xFF, true);
            case UINT16 -> new IntegerWriter(name, 2, 0, 0xFFFF, true);
            case UINT32 -> new IntegerWriter(name, 4, 0, 0xFFFF_FFFFL, false);
            case UINT64 -> new UInt64Writer(name);
            case INT128 -> new BigIntegerWriter(name, 16, false);
            case INT256 -> new BigIntegerWriter(name, 32, false);
            case UINT128 -> new BigIntegerWriter(name, 16, true);
            case UINT256 -> new BigIntegerWriter(name, 32, true);
            case FLOAT32 -> new FloatWriter(name, false);
            case FLOAT64 -> new FloatWriter(name, true);
            case DECIMAL -> new DecimalWriter(name, t.precision(), t.scale(), t.fixedWidth());
            case BOOL -> new BoolWriter(name);
            case STRING -> new StringWriter(name);
            case FIXED_STRING -> new FixedStringWriter(name, t.length());
            case DATE -> new DateWriter(name, 0, 0xFFFF, 2);
            case DATE32 -> new DateWriter(name, -25_567, 120_529, 4);
            case DATE_TIME -> new DateTimeWriter(name);
            case DATE_TIME64 -> new DateTime64Writer(name, t.precision());
            case UUID -> new UuidWriter(name);
            case IPV4 -> new Ipv4Writer(name);
            case ENUM8 -> new EnumWriter(name, t.enumValues(), 1);
            case ENUM16 -> new EnumWriter(name, t.enumValues(), 2);
            case NULLABLE -> {
                ValueWriter inner = of(t.inner());
                yield inner == null ? null : new NullableWriter(name, inner);
            }
            case ARRAY -> {
                ValueWriter inner = of(t.inner());
                yield inner == null ? null : new ArrayWriter(name, inner);
            }
            case MAP -> {
                ColumnType key = t.arguments().get(0).withoutLowCardinality();
                ValueWriter value = of(t.arguments().get(1));
                yield key.kind() != ColumnType.Kind.STRING || value == null ? null : new MapWriter(name, value);
            }
            default -> null; // IPv6, Tuple, LowCardinality handled above, OTHER
        };
    }

    /** The types {@link #of} writes, for the error that names an unsupported one. */
    static final String SUPPORTED = "Int8..Int256, UInt8..UInt256, Float32/64, Decimal, Bool, String, FixedString, "
            + "Date, Date32, DateTime, DateTime64, UUID, IPv4, Enum8/16, and Nullable, LowCardinality, Array and "
            + "Map(String, V) of those";

    static ValueRejected kindRejected(JsonScanner in, int start, String expected, String type) {
        int c = in.bytes[start];
        String found = switch (c) {
            case '"' -> "a string";
            case '{' -> "an object";
            case '[' -> "an array";
            case 't', 'f' -> "a boolean";
            case 'n' -> "null";
            default -> "a number";
        };
        if (c == 'n') {
            return new ValueRejected("null for non-Nullable " + type);
        }
        return new ValueRejected("expected " + expected + " for " + type + ", found " + found);
    }

    static boolean isNumberStart(int c) {
        return c == '-' || (c >= '0' && c <= '9');
    }

    /**
     * The content of a number token, or of a string token holding an unescaped number, as
     * {@code [from, to)} packed in a long (from in the high half); else fails.
     */
    static long numberText(JsonScanner in, int start, int end, String type, String expected) {
        byte[] b = in.bytes;
        int c = b[start];
        if (isNumberStart(c)) {
            return ((long) start << 32) | end;
        }
        if (c == '"' && !in.hasEscape(start, end)) {
            return ((long) (start + 1) << 32) | (end - 1);
        }
        throw kindRejected(in, start, expected, type);
    }

    /** Integers: from a number, or a string holding one (as JSON writes 64-bit integers for JavaScript). */
    static final class IntegerWriter extends ValueWriter {
        private final int width;
        private final long min;
        private final long max;
        private final boolean fromBoolean;

        IntegerWriter(String type, int width, long min, long max, boolean fromBoolean) {
            super(type);
            this.width = width;
            this.min = min;
            this.max = max;
            this.fromBoolean = fromBoolean && width == 1;
        }

        @Override
        void write(JsonScanner in, int start, int end, RowBuffer out) {
            long v;
            int c = in.bytes[start];
            if (fromBoolean && (c == 't' || c == 'f')) {
                v = c == 't' ? 1 : 0;
            } else {
                long text = numberText(in, start, end, type, "an integer");
                int from = (int) (text >>> 32);
                int to = (int) text;
                v = JsonNumbers.signed(in.bytes, from, to);
                if (v < min || v > max) {
                    throw new ValueRejected("value " + v + " out of range for " + type + " [" + min + ", " + max + "]");
                }
            }
            switch (width) {
                case 1 -> out.writeByte((int) v);
                case 2 -> out.writeShortLE((int) v);
                case 4 -> out.writeIntLE((int) v);
                default -> out.writeLongLE(v);
            }
        }
    }

    /** UInt64: the full range, up to 18446744073709551615. */
    static final class UInt64Writer extends ValueWriter {
        UInt64Writer(String type) {
            super(type);
        }

        @Override
        void write(JsonScanner in, int start, int end, RowBuffer out) {
            long text = numberText(in, start, end, type, "an integer");
            out.writeLongLE(JsonNumbers.unsigned(in.bytes, (int) (text >>> 32), (int) text, type));
        }
    }

    /** Int128/256, UInt128/256: through a BigInteger (allocates per value). */
    static final class BigIntegerWriter extends ValueWriter {
        private final int width;
        private final boolean unsigned;

        BigIntegerWriter(String type, int width, boolean unsigned) {
            super(type);
            this.width = width;
            this.unsigned = unsigned;
        }

        @Override
        void write(JsonScanner in, int start, int end, RowBuffer out) {
            long text = numberText(in, start, end, type, "an integer");
            java.math.BigInteger v = JsonNumbers.big(in.bytes, (int) (text >>> 32), (int) text);
            int bits = width * 8;
            boolean fits = unsigned ? v.signum() >= 0 && v.bitLength() <= bits : v.bitLength() <= bits - 1;
            if (!fits) {
                throw new ValueRejected("value " + v + " out of range for " + type);
            }
            JsonNumbers.littleEndian(v, width, out);
        }
    }

    /** Float32/64: from a number, or a string holding one or NaN, Infinity, -Infinity. */
    static final class FloatWriter extends ValueWriter {
        private final boolean doubleWidth;

        FloatWriter(String type, boolean doubleWidth) {
            super(type);
            this.doubleWidth = doubleWidth;
        }

        @Override
        void write(JsonScanner in, int start, int end, RowBuffer out) {
            byte[] b = in.bytes;
            int from;
            int to;
            if (isNumberStart(b[start])) {
                from = start;
                to = end;
            } else if (b[start] == '"') {
                from = start + 1;
                to = end - 1;
                double special = special(b, from, to);
                if (!Double.isFinite(special)) {
                    writeValue(special, out);
                    return;
                }
                if (!JsonNumbers.isNumber(b, from, to)) {
                    throw new ValueRejected("'" + JsonNumbers.ascii(b, from, to) + "' is not a number");
                }
            } else {
                throw kindRejected(in, start, "a number", type);
            }
            if (doubleWidth) {
                out.writeDoubleLE(JsonNumbers.toDouble(b, from, to));
            } else {
                out.writeFloatLE(JsonNumbers.toFloat(b, from, to));
            }
        }

        private void writeValue(double v, RowBuffer out) {
            if (doubleWidth) {
                out.writeDoubleLE(v);
            } else {
                out.writeFloatLE((float) v);
            }
        }

        /** NaN or ±Infinity for their names, else 0 (finite: not special). */
        private static double special(byte[] b, int from, int to) {
            if (equalsAscii(b, from, to, "NaN")) {
                return Double.NaN;
            }
            if (equalsAscii(b, from, to, "Infinity") || equalsAscii(b, from, to, "+Infinity")) {
                return Double.POSITIVE_INFINITY;
            }
            if (equalsAscii(b, from, to, "-Infinity")) {
                return Double.NEGATIVE_INFINITY;
            }
            return 0;
        }
    }

    static boolean equalsAscii(byte[] b, int from, int to, String s) {
        if (to - from != s.length()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (b[from + i] != s.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** Decimal(P, S): exactly from a number's digits (or a string holding a number), never through a double. */
    static final class DecimalWriter extends ValueWriter {
        private final int precision;
        private final int scale;
        private final int width;

        DecimalWriter(String type, int precision, int scale, int width) {
            super(type);
            this.precision = precision;
            this.scale = scale;
            this.width = width;
        }

        @Override
        void write(JsonScanner in, int start, int end, RowBuffer out) {
            long text = numberText(in, start, end, type, "a number");
            int from = (int) (text >>> 32);
            int to = (int) text;
            if (in.bytes[start] == '"' && !JsonNumbers.isNumber(in.bytes, from, to)) {
                throw new ValueRejected("'" + JsonNumbers.ascii(in.bytes, from, to) + "' is not a number");
            }
            JsonNumbers.decimal(in.bytes, from, to, precision, scale, width, out);
        }
    }

    /** Bool: true or false. */
    static final class BoolWriter extends ValueWriter {
        BoolWriter(String type) {
            super(type);
        }

        @Override
        void write(JsonScanner in, int start, int end, RowBuffer out) {
            int c = in.bytes[start];
            if (c == 't' || c == 'f') {
                out.writeByte(c == 't' ? 1 : 0);
            } else {
                throw kindRejected(in, start, "true or false", type);
            }
        }
    }

    /** String: a string decoded to UTF-8; a number, true or false as its JSON text. */
    static final class StringWriter extends ValueWriter {
        StringWriter(String type) {
            super(type);
        }

        @Override
        void write(JsonScanner in, int start, int end, RowBuffer out) {
            int c = in.bytes[start];
            if (c == '"') {
                in.writeString(start, end, out);
            } else if (c == 't' || c == 'f' || isNumberStart(c)) {
                out.writeStringBytes(in.bytes, start, end - start);
            } else {
                throw kindRejected(in, start, "a string", type);
            }
        }
    }

    /** FixedString(N): a string's UTF-8 bytes, zero-padded to N; longer fails. */
    static final class FixedStringWriter extends ValueWriter {
        private final int n;

        FixedStringWriter(String type, int n) {
            super(type);
            this.n = n;
        }

        @Override
        void write(JsonScanner in, int start, int end, RowBuffer out) {
            if (in.bytes[start] != '"') {
                throw kindRejected(in, start, "a string", type);
            }
            int length = in.decodedLength(start, end);
            if (length > n) {
                throw new ValueRejected(length + " bytes do not fit " + type);
            }
            out.ensureRemaining(n);
            int at = out.length();
            byte[] dst = out.array();
            int d = in.decode(start, end, dst, at);
            java.util.Arrays.fill(dst, d, at + n, (byte) 0);
            out.advanceTo(at + n);
        }
    }

    /** The content of a string token without escapes, packed as {@link #numberText} packs; else fails. */
    static long stringContent(JsonScanner in, int start, int end, String type, String expected) {
        if (in.bytes[start] != '"') {
            throw kindRejected(in, start, expected, type);
        }
        if (in.hasEscape(start, end)) {
            throw new ValueRejected("an escape in " + JsonNumbers.ascii(in.bytes, start, end) + " for " + type);
        }
        return ((long) (start + 1) << 32) | (end - 1);
    }

    /** Date, Date32: "YYYY-MM-DD", or a number of days since 1970-01-01. */
    static final class DateWriter extends ValueWriter {
        private final long min;
        private final long max;
        private final int width;

        DateWriter(String type, long min, long max, int width) {
            super(type);
            this.min = min;
            this.max = max;
            this.width = width;
        }

        @Override
        void write(JsonScanner in, int start, int end, RowBuffer out) {
            byte[] b = in.bytes;
            long day;
            if (isNumberStart(b[start])) {
                day = JsonNumbers.signed(b, start, end);
            } else {
                long text = stringContent(in, start, end, type, "a date string or a number of days");
                day = JsonTimes.epochDay(b, (int) (text >>> 32), (int) text);
            }
            if (day < min || day > max) {
                throw new ValueRejected("day " + day + " out of range for " + type + " [" + min + ", " + max + "]");
            }
            if (width == 2) {
                out.writeShortLE((int) day);
            } else {
                out.writeIntLE((int) day);
            }
        }
    }

    /** DateTime: an ISO-8601 string (UTC without an offset), or a number of seconds since the epoch. */
    static final class DateTimeWriter extends ValueWriter {
        DateTimeWriter(String type) {
            super(type);
        }

        @Override
        void write(JsonScanner in, int start, int end, RowBuffer out) {
            byte[] b = in.bytes;
            long seconds;
            if (isNumberStart(b[start])) {
                seconds = JsonNumbers.signed(b, start, end);
            } else {
                long text = stringContent(in, start, end, type, "a date-time string or a number of seconds");
                seconds = JsonTimes.ticks(b, (int) (text >>> 32), (int) text, 0);
            }
            if (seconds < 0 || seconds > 0xFFFF_FFFFL) {
                throw new ValueRejected("second " + seconds + " out of range for " + type + " [0, 4294967295]");
            }
            out.writeIntLE((int) seconds);
        }
    }

    /** DateTime64(p): an ISO-8601 string, or an integer number of ticks (10^-p seconds) since the epoch. */
    static final class DateTime64Writer extends ValueWriter {
        private final int precision;

        DateTime64Writer(String type, int precision) {
            super(type);
            this.precision = precision;
        }

        @Override
        void write(JsonScanner in, int start, int end, RowBuffer out) {
            byte[] b = in.bytes;
            if (isNumberStart(b[start])) {
                out.writeLongLE(JsonNumbers.signed(b, start, end));
            } else {
                long text = stringContent(in, start, end, type, "a date-time string or a number of ticks");
                out.writeLongLE(JsonTimes.ticks(b, (int) (text >>> 32), (int) text, precision));
            }
        }
    }

    /** UUID: its 36-character text; written as ClickHouse does (two little-endian halves). */
    static final class UuidWriter extends ValueWriter {
        UuidWriter(String type) {
            super(type);
        }

        @Override
        void write(JsonScanner in, int start, int end, RowBuffer out) {
            long text = stringContent(in, start, end, type, "a UUID string");
            int from = (int) (text >>> 32);
            int to = (int) text;
            byte[] b = in.bytes;
            if (to - from != 36
                    || b[from + 8] != '-'
                    || b[from + 13] != '-'
                    || b[from + 18] != '-'
                    || b[from + 23] != '-') {
                throw new ValueRejected("'" + JsonNumbers.ascii(b, from, to) + "' is not a UUID");
            }
            long high = hex(b, from, from + 8, 0, from, to);
            high = hex(b, from + 9, from + 13, high, from, to);
            high = hex(b, from + 14, from + 18, high, from, to);
            long low = hex(b, from + 19, from + 23, 0, from, to);
            low = hex(b, from + 24, from + 36, low, from, to);
            out.writeLongLE(high);
            out.writeLongLE(low);
        }

        private static long hex(byte[] b, int i, int until, long acc, int from, int to) {
            for (; i < until; i++) {
                int d = JsonScanner.hexDigit(b[i]);
                if (d < 0) {
                    throw new ValueRejected("'" + JsonNumbers.ascii(b, from, to) + "' is not a UUID");
                }
                acc = (acc << 4) | d;
            }
            return acc;
        }
    }

    /** IPv4: dotted-quad text. */
    static final class Ipv4Writer extends ValueWriter {
        Ipv4Writer(String type) {
            super(type);
        }

        @Override
        void write(JsonScanner in, int start, int end, RowBuffer out) {
            long text = stringContent(in, start, end, type, "an IPv4 address string");
            int from = (int) (text >>> 32);
            int to = (int) text;
            byte[] b = in.bytes;
            int address = 0;
            int i = from;
            for (int part = 0; part < 4; part++) {
                int p = i;
                int v = 0;
                while (i < to && JsonScanner.digit(b[i]) && i - p < 3) {
                    v = v * 10 + (b[i++] - '0');
                }
                boolean separator = part < 3 ? i < to && b[i] == '.' : i == to;
                if (i == p || v > 255 || !separator) {
                    throw new ValueRejected("'" + JsonNumbers.ascii(b, from, to) + "' is not an IPv4 address");
                }
                address = (address << 8) | v;
                i++;
            }
            out.writeIntLE(address);
        }
    }

    /** Enum8/16: the symbol's string, matched by its bytes. */
    static final class EnumWriter extends ValueWriter {
        private final FieldNames symbols = new FieldNames();
        private final int width;

        EnumWriter(String type, Map<String, Integer> values, int width) {
            super(type);
            this.width = width;
            values.forEach((name, code) -> symbols.entry(name).slot = code);
        }

        @Override
        void write(JsonScanner in, int start, int end, RowBuffer out) {
            if (in.bytes[start] != '"') {
                throw kindRejected(in, start, "an enum symbol string", type);
            }
            FieldNames.Entry e = in.find(symbols, start, end);
            if (e == null) {
                throw new ValueRejected(JsonNumbers.ascii(in.bytes, start, end) + " is not a symbol of " + type);
            }
            if (width == 1) {
                out.writeByte(e.slot);
            } else {
                out.writeShortLE(e.slot);
            }
        }
    }

    /** Nullable(T): JSON null (and a missing field) as NULL. */
    static final class NullableWriter extends ValueWriter {
        private final ValueWriter inner;

        NullableWriter(String type, ValueWriter inner) {
            super(type);
            this.inner = inner;
        }

        @Override
        boolean nullable() {
            return true;
        }

        @Override
        void write(JsonScanner in, int start, int end, RowBuffer out) {
            if (in.bytes[start] == 'n') {
                out.writeByte(1);
            } else {
                out.writeByte(0);
                inner.write(in, start, end, out);
            }
        }
    }

    /** Array(T): a JSON array, element by element. */
    static final class ArrayWriter extends ValueWriter {
        private final ValueWriter element;

        ArrayWriter(String type, ValueWriter element) {
            super(type);
            this.element = element;
        }

        @Override
        void write(JsonScanner in, int start, int end, RowBuffer out) {
            if (in.bytes[start] != '[') {
                throw kindRejected(in, start, "an array", type);
            }
            int count = 0;
            for (int p = in.skipWhitespace(start + 1); in.bytes[p] != ']'; count++) {
                p = next(in, in.skipValue(p, 0));
            }
            out.writeVarUInt(count);
            for (int p = in.skipWhitespace(start + 1); in.bytes[p] != ']'; ) {
                int valueEnd = in.skipValue(p, 0);
                element.write(in, p, valueEnd, out);
                p = next(in, valueEnd);
            }
        }

        /** After an element: the next element's start, or the position of the closing ']'. */
        private static int next(JsonScanner in, int p) {
            p = in.skipWhitespace(p);
            return in.bytes[p] == ',' ? in.skipWhitespace(p + 1) : p;
        }
    }

    /** Map(String, V): a JSON object, its fields in message order. */
    static final class MapWriter extends ValueWriter {
        private final ValueWriter value;

        MapWriter(String type, ValueWriter value) {
            super(type);
            this.value = value;
        }

        @Override
        void write(JsonScanner in, int start, int end, RowBuffer out) {
            if (in.bytes[start] != '{') {
                throw kindRejected(in, start, "an object", type);
            }
            int count = 0;
            for (int p = in.skipWhitespace(start + 1); in.bytes[p] != '}'; count++) {
                int v = in.skipWhitespace(in.colon(in.skipWhitespace(in.skipString(p))) + 1);
                p = next(in, in.skipValue(v, 0));
            }
            out.writeVarUInt(count);
            for (int p = in.skipWhitespace(start + 1); in.bytes[p] != '}'; ) {
                int keyEnd = in.skipString(p);
                in.writeString(p, keyEnd, out);
                int v = in.skipWhitespace(in.colon(in.skipWhitespace(keyEnd)) + 1);
                int valueEnd = in.skipValue(v, 0);
                value.write(in, v, valueEnd, out);
                p = next(in, valueEnd);
            }
        }

        private static int next(JsonScanner in, int p) {
            p = in.skipWhitespace(p);
            return in.bytes[p] == ',' ? in.skipWhitespace(p + 1) : p;
        }
    }
}
