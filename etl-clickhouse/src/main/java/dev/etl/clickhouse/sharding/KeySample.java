package dev.etl.clickhouse.sharding;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Seeded sample keys for a key column type: the edges of the type (0, 1, -1, min, max), small
 * sequential ids, and uniformly random values; for Strings the empty string, ASCII and multi-byte
 * UTF-8 (2-, 3- and 4-byte sequences) at every length class CityHash distinguishes (0-16, 17-32,
 * 33-64, 65-128 and longer). The same seed gives the same keys.
 */
final class KeySample {
    private static final String[] ALPHABETS = {
        "abcdefghijklmnopqrstuvwxyz0123456789-_ ",
        "абвгдеёжзийклмнопрстуфхцчшщъыьэюя",
        "日本語中文한국어漢字かなカナ",
        "\uD83D\uDE00\uD83D\uDE80\uD83C\uDF89\uD834\uDD1E",
        "a\u00e9\u00fc\u00df\u20ac\u00a9'\\\"\t\n\0",
    };
    private static final int[] LENGTHS = {0, 1, 3, 4, 8, 9, 16, 17, 31, 32, 33, 63, 64, 65, 100, 128, 129, 300};

    private KeySample() {}

    /** {@code count} integer keys valid for {@code type} (as the values the encoder writes). */
    static List<Long> integers(KeyType type, int count, long seed) {
        if (!type.isInteger()) {
            throw new IllegalArgumentException(type + " is not an integer type");
        }
        SplittableRandom random = new SplittableRandom(seed);
        int bits = type.widthBytes() * 8;
        long min = type.isSigned() ? (bits == 64 ? Long.MIN_VALUE : -(1L << (bits - 1))) : 0;
        long max = type.isSigned()
                ? (bits == 64 ? Long.MAX_VALUE : (1L << (bits - 1)) - 1)
                : (bits == 64 ? -1L : (1L << bits) - 1);
        List<Long> keys = new ArrayList<>(count);
        long[] edges = {0, 1, 2, 3, type.isSigned() ? -1 : max, min, max, type.isSigned() ? -2 : max - 1};
        for (int i = 0; i < count; i++) {
            long k;
            if (i < edges.length) {
                k = edges[i];
            } else if (i % 3 == 0) {
                k = i; // sequential ids, the common case
            } else {
                k = random.nextLong();
            }
            keys.add(type.isSigned() ? type.value(k) : type.bits(k));
        }
        return keys;
    }

    /** {@code count} String keys, starting with the empty string. */
    static List<String> strings(int count, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<String> keys = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int length = i < LENGTHS.length ? LENGTHS[i] : random.nextInt(i % 10 == 0 ? 400 : 40);
            String alphabet = ALPHABETS[i < LENGTHS.length ? 0 : random.nextInt(ALPHABETS.length)];
            StringBuilder sb = new StringBuilder(length);
            while (sb.length() < length) {
                int cp = alphabet.codePointAt(
                        alphabet.offsetByCodePoints(0, random.nextInt(alphabet.codePointCount(0, alphabet.length()))));
                sb.appendCodePoint(cp);
            }
            keys.add(sb.toString());
        }
        return keys;
    }
}
