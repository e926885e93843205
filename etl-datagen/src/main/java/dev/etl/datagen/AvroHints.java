package dev.etl.datagen;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A field's {@code "datagen"} object: what narrows its random values. Parsed once when a schema is
 * compiled; every hint must be known and must apply to the field's type, or compiling fails naming the
 * field (a typo must not silently generate the wrong data).
 */
final class AvroHints {
    static final Set<String> KNOWN =
            Set.of("min", "max", "length", "min-length", "max-length", "values", "null-probability", "kind");
    static final AvroHints NONE = new AvroHints(Map.of(), "");

    private final Map<String, Object> hints;
    final String path;

    private AvroHints(Map<String, Object> hints, String path) {
        this.hints = hints;
        this.path = path;
    }

    @SuppressWarnings("unchecked")
    static AvroHints of(Object prop, String path) {
        if (prop == null) {
            return new AvroHints(Map.of(), path);
        }
        if (!(prop instanceof Map)) {
            throw new IllegalArgumentException("datagen hints of " + path + " must be a JSON object, got " + prop);
        }
        Map<String, Object> map = (Map<String, Object>) prop;
        for (String key : map.keySet()) {
            if (!KNOWN.contains(key)) {
                throw new IllegalArgumentException("unknown datagen hint '" + key + "' on " + path + " (known: "
                        + new java.util.TreeSet<>(KNOWN) + ")");
            }
        }
        return new AvroHints(map, path);
    }

    /** The same hints without {@code key}, for the branches of a union. */
    AvroHints without(String key) {
        if (!hints.containsKey(key)) {
            return this;
        }
        Map<String, Object> rest = new java.util.LinkedHashMap<>(hints);
        rest.remove(key);
        return new AvroHints(rest, path);
    }

    boolean isEmpty() {
        return hints.isEmpty();
    }

    boolean has(String key) {
        return hints.containsKey(key);
    }

    /** Fails unless every hint present is one of {@code allowed}, for a field of {@code type}. */
    void allowOnly(String type, String... allowed) {
        Set<String> ok = Set.of(allowed);
        for (String key : hints.keySet()) {
            if (!ok.contains(key)) {
                throw new IllegalArgumentException("datagen hint '" + key + "' does not apply to " + path + " (type "
                        + type + ")" + (allowed.length == 0 ? "" : "; it takes " + new java.util.TreeSet<>(ok)));
            }
        }
    }

    Number number(String key, Number fallback) {
        Object value = hints.get(key);
        if (value == null) {
            return fallback;
        }
        if (!(value instanceof Number)) {
            throw new IllegalArgumentException(
                    "datagen hint '" + key + "' of " + path + " must be a number, got " + value);
        }
        return (Number) value;
    }

    long longValue(String key, long fallback) {
        Number n = number(key, fallback);
        if (n instanceof Double || n instanceof Float) {
            if (n.doubleValue() != Math.rint(n.doubleValue())) {
                throw new IllegalArgumentException(
                        "datagen hint '" + key + "' of " + path + " must be a whole number, got " + n);
            }
        }
        return n.longValue();
    }

    String string(String key) {
        Object value = hints.get(key);
        if (value != null && !(value instanceof String)) {
            throw new IllegalArgumentException(
                    "datagen hint '" + key + "' of " + path + " must be a string, got " + value);
        }
        return (String) value;
    }

    List<?> values() {
        Object value = hints.get("values");
        if (value == null) {
            return null;
        }
        if (!(value instanceof List) || ((List<?>) value).isEmpty()) {
            throw new IllegalArgumentException(
                    "datagen hint 'values' of " + path + " must be a non-empty list, got " + value);
        }
        return (List<?>) value;
    }

    /** {@code [min, max]} of a length: {@code length} alone, or {@code min-length}/{@code max-length}. */
    int[] lengths(int defaultMin, int defaultMax) {
        if (has("length") && (has("min-length") || has("max-length"))) {
            throw new IllegalArgumentException(
                    "datagen hints of " + path + ": set either 'length' or 'min-length'/'max-length', not both");
        }
        int min;
        int max;
        if (has("length")) {
            min = max = (int) longValue("length", 0);
        } else {
            min = (int) longValue("min-length", defaultMin);
            max = (int) longValue("max-length", Math.max(defaultMax, min));
        }
        if (min < 0 || max < min) {
            throw new IllegalArgumentException("datagen lengths of " + path
                    + " must satisfy 0 <= min-length <= max-length, " + "got " + min + ".." + max);
        }
        return new int[] {min, max};
    }
}
