package dev.etl.error;

import java.util.Collection;
import org.jspecify.annotations.Nullable;

/**
 * The closest of some valid names to a name that is not one of them (edit distance), for error
 * messages that say "did you mean ...". Not for hot paths.
 */
public final class Suggestion {
    private Suggestion() {}

    /**
     * The candidate with the smallest edit distance to {@code name} (case-insensitive; the first of
     * equals), or {@code null} when there are no candidates.
     */
    public static @Nullable String closest(String name, Collection<String> candidates) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : candidates) {
            int d = distance(name, candidate);
            if (d < bestDistance) {
                best = candidate;
                bestDistance = d;
            }
        }
        return best;
    }

    /** Levenshtein distance (insertions, deletions, substitutions), case-insensitive. */
    public static int distance(String a, String b) {
        String x = a.toLowerCase(java.util.Locale.ROOT);
        String y = b.toLowerCase(java.util.Locale.ROOT);
        int[] previous = new int[y.length() + 1];
        int[] current = new int[y.length() + 1];
        for (int j = 0; j <= y.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= x.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= y.length(); j++) {
                int substitute = previous[j - 1] + (x.charAt(i - 1) == y.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitute, Math.min(previous[j] + 1, current[j - 1] + 1));
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[y.length()];
    }
}
