package dev.etl.clickhouse.sharding;

/**
 * Encodes a {@link CharSequence} into a per-thread scratch array, exactly as
 * {@link dev.etl.sink.RowBuffer#writeString} and {@link String#getBytes} with UTF-8 do (an unpaired
 * surrogate becomes {@code '?'}), so a String key is hashed as the bytes the column stores. The array
 * grows to the longest key a thread has seen and is then reused: no allocation per call in the
 * steady state.
 */
final class Utf8Scratch {
    private static final ThreadLocal<byte[]> SCRATCH = ThreadLocal.withInitial(() -> new byte[256]);

    private Utf8Scratch() {}

    /** The sharding function's value of {@code text}'s UTF-8 bytes. */
    static long hash(ShardingFunction function, CharSequence text) {
        int chars = text.length();
        byte[] buf = SCRATCH.get();
        if (chars * 3 > buf.length) {
            int needed = utf8Length(text, chars);
            if (needed > buf.length) {
                buf = new byte[Math.max(needed, buf.length * 2)];
                SCRATCH.set(buf);
            }
        }
        int length = encode(text, chars, buf);
        return function.ofBytes(buf, 0, length);
    }

    static int encode(CharSequence text, int chars, byte[] out) {
        int p = 0;
        for (int i = 0; i < chars; i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                out[p++] = (byte) c;
            } else if (c < 0x800) {
                out[p++] = (byte) (0xC0 | (c >> 6));
                out[p++] = (byte) (0x80 | (c & 0x3F));
            } else if (Character.isHighSurrogate(c) && i + 1 < chars && Character.isLowSurrogate(text.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, text.charAt(++i));
                out[p++] = (byte) (0xF0 | (cp >> 18));
                out[p++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                out[p++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                out[p++] = (byte) (0x80 | (cp & 0x3F));
            } else if (Character.isSurrogate(c)) {
                out[p++] = '?';
            } else {
                out[p++] = (byte) (0xE0 | (c >> 12));
                out[p++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                out[p++] = (byte) (0x80 | (c & 0x3F));
            }
        }
        return p;
    }

    static int utf8Length(CharSequence text, int chars) {
        int n = 0;
        for (int i = 0; i < chars; i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                n += 1;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < chars && Character.isLowSurrogate(text.charAt(i + 1))) {
                n += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                n += 1;
            } else {
                n += 3;
            }
        }
        return n;
    }
}
