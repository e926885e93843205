package dev.etl.json.clickhouse;

import dev.etl.sink.RowBuffer;
import org.jspecify.annotations.Nullable;

/**
 * The byte level of JSON (RFC 8259) over one message: skipping and validating values, and decoding
 * strings into UTF-8. Positions are indexes into {@link #bytes}; errors report them relative to the
 * message's first byte ({@link #base}). Holds no state beyond the wrapped message, so one instance
 * serves a lane for every message; nothing here allocates except to report an error.
 *
 * <p>What it accepts is RFC 8259's grammar, nothing more (no comments, no single quotes, no trailing
 * commas, no NaN literals, no leading zeros); strings' bytes are not checked to be UTF-8 (ClickHouse's
 * {@code String} holds bytes), but control characters below 0x20 must be escaped, as the RFC says.
 */
final class JsonScanner {
    /** Deeper nesting than this fails the message (a hostile payload cannot overflow the lane's stack). */
    static final int MAX_DEPTH = 256;

    byte[] bytes = new byte[0];
    /** The message's first byte: positions in errors are relative to it. */
    int base;
    /** One past the message's last byte. */
    int limit;
    /** Where {@link #decodeToScratch} puts an escaped name; grows to the longest, then is reused. */
    byte[] scratch = new byte[64];

    void wrap(byte[] array, int offset, int length) {
        this.bytes = array;
        this.base = offset;
        this.limit = offset + length;
    }

    /** The first position at or after {@code p} that is not JSON whitespace. */
    int skipWhitespace(int p) {
        byte[] b = bytes;
        int end = limit;
        while (p < end) {
            byte c = b[p];
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                return p;
            }
            p++;
        }
        return p;
    }

    /** The byte at {@code p}, or fails naming what was expected when the message ends there. */
    int at(int p, String expected) {
        if (p >= limit) {
            throw malformed(p, "the message ends where " + expected + " was expected");
        }
        return bytes[p];
    }

    /**
     * Skips the value starting at {@code p} (no whitespace before it), checking its syntax.
     *
     * @return the position just after the value
     */
    int skipValue(int p, int depth) {
        int c = at(p, "a value");
        switch (c) {
            case '"':
                return skipString(p);
            case '{':
                return skipObject(p, depth + 1);
            case '[':
                return skipArray(p, depth + 1);
            case 't':
                return literal(p, "true");
            case 'f':
                return literal(p, "false");
            case 'n':
                return literal(p, "null");
            default:
                if (c == '-' || (c >= '0' && c <= '9')) {
                    return skipNumber(p);
                }
                throw malformed(p, "a value cannot start with " + describe(c));
        }
    }

    private int skipObject(int p, int depth) {
        checkDepth(p, depth);
        p = skipWhitespace(p + 1);
        if (at(p, "'\"' or '}'") == '}') {
            return p + 1;
        }
        while (true) {
            if (at(p, "a field name") != '"') {
                throw malformed(p, "expected a field name, found " + describe(bytes[p]));
            }
            p = skipWhitespace(skipString(p));
            p = skipWhitespace(colon(p) + 1);
            p = skipWhitespace(skipValue(p, depth));
            int c = at(p, "',' or '}'");
            if (c == '}') {
                return p + 1;
            }
            if (c != ',') {
                throw malformed(p, "expected ',' or '}' in an object, found " + describe(c));
            }
            p = skipWhitespace(p + 1);
        }
    }

    private int skipArray(int p, int depth) {
        checkDepth(p, depth);
        p = skipWhitespace(p + 1);
        if (at(p, "a value or ']'") == ']') {
            return p + 1;
        }
        while (true) {
            p = skipWhitespace(skipValue(p, depth));
            int c = at(p, "',' or ']'");
            if (c == ']') {
                return p + 1;
            }
            if (c != ',') {
                throw malformed(p, "expected ',' or ']' in an array, found " + describe(c));
            }
            p = skipWhitespace(p + 1);
        }
    }

    /** {@code p} at the ':' after a field name (whitespace skipped), or fails. */
    int colon(int p) {
        int c = at(p, "':'");
        if (c != ':') {
            throw malformed(p, "expected ':' after a field name, found " + describe(c));
        }
        return p;
    }

    void checkDepth(int p, int depth) {
        if (depth > MAX_DEPTH) {
            throw malformed(p, "nested deeper than " + MAX_DEPTH + " objects and arrays");
        }
    }

    private int literal(int p, String word) {
        int n = word.length();
        if (p + n > limit) {
            throw malformed(p, "expected '" + word + "', the message ends first");
        }
        for (int i = 0; i < n; i++) {
            if (bytes[p + i] != word.charAt(i)) {
                throw malformed(p, "expected '" + word + "'");
            }
        }
        return p + n;
    }

    /**
     * Skips the string starting at {@code p} (at its opening quote), checking its escapes.
     *
     * @return the position just after the closing quote
     */
    int skipString(int p) {
        byte[] b = bytes;
        int end = limit;
        int i = p + 1;
        while (i < end) {
            int c = b[i];
            if (c == '"') {
                return i + 1;
            }
            if (c == '\\') {
                i = skipEscape(i);
            } else if (c >= 0 && c < 0x20) {
                throw malformed(i, "control character " + describe(c) + " in a string must be escaped");
            } else {
                i++;
            }
        }
        throw malformed(p, "the string starting here is not closed");
    }

    /** {@code i} at a backslash: the position after its escape. */
    private int skipEscape(int i) {
        int c = at(i + 1, "an escape");
        switch (c) {
            case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
                return i + 2;
            case 'u':
                hex4(i);
                return i + 6;
            default:
                throw malformed(i, "invalid escape '\\" + (char) (c & 0xFF) + "'");
        }
    }

    /** The code unit of the {@code \\uXXXX} escape at {@code i} (its backslash). */
    int hex4(int i) {
        if (i + 6 > limit) {
            throw malformed(i, "incomplete \\u escape");
        }
        int v = 0;
        for (int k = i + 2; k < i + 6; k++) {
            int d = hexDigit(bytes[k]);
            if (d < 0) {
                throw malformed(i, "invalid \\u escape: " + describe(bytes[k]) + " is not a hex digit");
            }
            v = (v << 4) | d;
        }
        return v;
    }

    static int hexDigit(int c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }

    /**
     * Skips the number starting at {@code p}: {@code -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?}.
     *
     * @return the position just after it
     */
    int skipNumber(int p) {
        byte[] b = bytes;
        int end = limit;
        int i = p;
        if (b[i] == '-') {
            i++;
        }
        if (i >= end || !digit(b[i])) {
            throw malformed(p, "a number needs a digit after '-'");
        }
        if (b[i] == '0') {
            i++;
            if (i < end && digit(b[i])) {
                throw malformed(p, "a number cannot have a leading zero");
            }
        } else {
            while (i < end && digit(b[i])) {
                i++;
            }
        }
        if (i < end && b[i] == '.') {
            i++;
            if (i >= end || !digit(b[i])) {
                throw malformed(p, "a number needs a digit after '.'");
            }
            while (i < end && digit(b[i])) {
                i++;
            }
        }
        if (i < end && (b[i] == 'e' || b[i] == 'E')) {
            i++;
            if (i < end && (b[i] == '+' || b[i] == '-')) {
                i++;
            }
            if (i >= end || !digit(b[i])) {
                throw malformed(p, "a number needs a digit in its exponent");
            }
            while (i < end && digit(b[i])) {
                i++;
            }
        }
        return i;
    }

    static boolean digit(int c) {
        return c >= '0' && c <= '9';
    }

    /** Whether the string token {@code [start, end)} (quotes included) has an escape. */
    boolean hasEscape(int start, int end) {
        byte[] b = bytes;
        for (int i = start + 1; i < end - 1; i++) {
            if (b[i] == '\\') {
                return true;
            }
        }
        return false;
    }

    /**
     * The UTF-8 length of the string token {@code [start, end)} (quotes included, already validated by
     * {@link #skipString}) once its escapes are decoded. A {@code \\uXXXX} pair of surrogates is one
     * 4-byte character; a lone surrogate becomes {@code '?'}, as Java's encoders (and so the reference,
     * {@link RowBuffer#writeString}) write it.
     */
    int decodedLength(int start, int end) {
        byte[] b = bytes;
        int n = 0;
        int i = start + 1;
        int last = end - 1;
        while (i < last) {
            if (b[i] != '\\') {
                n++;
                i++;
                continue;
            }
            if (b[i + 1] != 'u') {
                n++;
                i += 2;
                continue;
            }
            int u = hex4(i);
            i += 6;
            if (u < 0x80) {
                n += 1;
            } else if (u < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate((char) u) && lowSurrogateAt(i, last)) {
                n += 4;
                i += 6;
            } else if (Character.isSurrogate((char) u)) {
                n += 1;
            } else {
                n += 3;
            }
        }
        return n;
    }

    private boolean lowSurrogateAt(int i, int last) {
        return i + 6 <= last && bytes[i] == '\\' && bytes[i + 1] == 'u' && Character.isLowSurrogate((char) hex4(i));
    }

    /**
     * Decodes the string token {@code [start, end)} (quotes included) into {@code dst} at {@code d},
     * which has room for {@link #decodedLength} bytes.
     *
     * @return the position after the decoded bytes in {@code dst}
     */
    int decode(int start, int end, byte[] dst, int d) {
        byte[] b = bytes;
        int i = start + 1;
        int last = end - 1;
        while (i < last) {
            byte c = b[i];
            if (c != '\\') {
                dst[d++] = c;
                i++;
                continue;
            }
            byte e = b[i + 1];
            if (e != 'u') {
                dst[d++] = unescape(e);
                i += 2;
                continue;
            }
            int u = hex4(i);
            i += 6;
            if (u < 0x80) {
                dst[d++] = (byte) u;
            } else if (u < 0x800) {
                dst[d++] = (byte) (0xC0 | (u >> 6));
                dst[d++] = (byte) (0x80 | (u & 0x3F));
            } else if (Character.isHighSurrogate((char) u) && lowSurrogateAt(i, last)) {
                int cp = Character.toCodePoint((char) u, (char) hex4(i));
                i += 6;
                dst[d++] = (byte) (0xF0 | (cp >> 18));
                dst[d++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                dst[d++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                dst[d++] = (byte) (0x80 | (cp & 0x3F));
            } else if (Character.isSurrogate((char) u)) {
                dst[d++] = '?';
            } else {
                dst[d++] = (byte) (0xE0 | (u >> 12));
                dst[d++] = (byte) (0x80 | ((u >> 6) & 0x3F));
                dst[d++] = (byte) (0x80 | (u & 0x3F));
            }
        }
        return d;
    }

    private static byte unescape(byte e) {
        return switch (e) {
            case 'b' -> '\b';
            case 'f' -> '\f';
            case 'n' -> '\n';
            case 'r' -> '\r';
            case 't' -> '\t';
            default -> e; // '"', '\\', '/'
        };
    }

    /** Appends the string token {@code [start, end)} decoded, as a ClickHouse String (length, bytes). */
    void writeString(int start, int end, RowBuffer out) {
        if (!hasEscape(start, end)) {
            out.writeStringBytes(bytes, start + 1, end - start - 2);
            return;
        }
        int n = decodedLength(start, end);
        out.writeVarUInt(n);
        out.ensureRemaining(n);
        int at = out.length();
        out.advanceTo(decode(start, end, out.array(), at));
    }

    /** The entry of {@code names} named by the string token {@code [start, end)}, escapes decoded; or null. */
    FieldNames.@Nullable Entry find(FieldNames names, int start, int end) {
        if (!hasEscape(start, end)) {
            return names.find(bytes, start + 1, end - 1);
        }
        int n = decodeToScratch(start, end);
        return names.find(scratch, 0, n);
    }

    /** Decodes the string token {@code [start, end)} into {@link #scratch}; returns its length there. */
    int decodeToScratch(int start, int end) {
        int n = decodedLength(start, end);
        if (n > scratch.length) {
            scratch = new byte[Math.max(n, scratch.length * 2)];
        }
        return decode(start, end, scratch, 0);
    }

    /** The position {@code p} relative to the message's first byte. */
    int offsetOf(int p) {
        return p - base;
    }

    Malformed malformed(int p, String problem) {
        return new Malformed(offsetOf(p), problem);
    }

    static String describe(int c) {
        int u = c & 0xFF;
        if (u >= 0x21 && u < 0x7F) {
            return "'" + (char) u + "'";
        }
        return String.format("byte 0x%02X", u);
    }

    /** The message is not JSON: where ({@link #offset}, from the message's first byte) and why. */
    static final class Malformed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        final int offset;

        Malformed(int offset, String problem) {
            super(problem + " at byte " + offset, null, false, false);
            this.offset = offset;
        }
    }
}
