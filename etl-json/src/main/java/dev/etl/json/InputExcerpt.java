package dev.etl.json;

import java.nio.charset.StandardCharsets;

/**
 * A short, printable excerpt of the input around an error, for messages and logs: at most
 * {@value #CONTEXT_CHARS} characters before the error position and as many from it, {@value #MARK}
 * at the position, {@code ...} where the input was cut, control characters (and U+2028/U+2029, which
 * break log lines too) escaped as {@code \n}, {@code \r}, {@code \t} or {@code \}{@code uXXXX}. Invalid
 * UTF-8 shows as U+FFFD. Failure path only (allocates).
 */
final class InputExcerpt {
    /** Characters of input shown on each side of the error position. */
    static final int CONTEXT_CHARS = 32;
    /** Inserted at the error position. */
    static final String MARK = ">>>";
    /** A UTF-8 character is at most 4 bytes: enough bytes for {@link #CONTEXT_CHARS} characters. */
    private static final int CONTEXT_BYTES = CONTEXT_CHARS * 4;

    private InputExcerpt() {}

    /**
     * The excerpt of {@code data[from, to)} around {@code errorAt} (an index into {@code data}, clamped
     * to the range).
     */
    static String around(byte[] data, int from, int to, long errorAt) {
        int at = (int) Math.max(from, Math.min(to, errorAt));
        at = characterStart(data, from, at);
        int start = characterStart(data, from, Math.max(from, at - CONTEXT_BYTES));
        int limit = Math.min(to, at + CONTEXT_BYTES);
        int stop = limit == to ? to : characterStart(data, at, limit);
        String before = new String(data, start, at - start, StandardCharsets.UTF_8);
        String after = new String(data, at, stop - at, StandardCharsets.UTF_8);
        boolean cutBefore = start > from;
        boolean cutAfter = stop < to;
        int beforeChars = before.codePointCount(0, before.length());
        if (beforeChars > CONTEXT_CHARS) {
            before = before.substring(before.offsetByCodePoints(0, beforeChars - CONTEXT_CHARS));
            cutBefore = true;
        }
        int afterChars = after.codePointCount(0, after.length());
        if (afterChars > CONTEXT_CHARS) {
            after = after.substring(0, after.offsetByCodePoints(0, CONTEXT_CHARS));
            cutAfter = true;
        }
        StringBuilder sb = new StringBuilder(before.length() + after.length() + 16);
        if (cutBefore) {
            sb.append("...");
        }
        escape(before, sb);
        sb.append(MARK);
        escape(after, sb);
        if (cutAfter) {
            sb.append("...");
        }
        return sb.toString();
    }

    /** {@code text} with control characters escaped, cut to {@code maxChars} (with "...") if longer. */
    static String printable(String text, int maxChars) {
        String cut = text.length() > maxChars ? text.substring(0, maxChars) + "..." : text;
        StringBuilder sb = new StringBuilder(cut.length() + 8);
        escape(cut, sb);
        return sb.toString();
    }

    /** Moves {@code index} back to the first byte of the UTF-8 sequence it is in (not before {@code floor}). */
    private static int characterStart(byte[] data, int floor, int index) {
        int i = index;
        // A continuation byte is 10xxxxxx; at most 3 of them follow a lead byte.
        for (int n = 0; n < 3 && i > floor && i < data.length && (data[i] & 0xC0) == 0x80; n++) {
            i--;
        }
        return i;
    }

    private static void escape(String s, StringBuilder sb) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == '\u2028' || c == '\u2029') {
                        sb.append("\\u").append(String.format("%04X", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
    }
}
