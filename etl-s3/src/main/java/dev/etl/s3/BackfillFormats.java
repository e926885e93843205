package dev.etl.s3;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/** The formats a backfill knows, by name and by key: those on the class path ({@link java.util.ServiceLoader}). */
public final class BackfillFormats {
    private final Map<String, BackfillFormat> byName = new LinkedHashMap<>();

    private BackfillFormats(List<BackfillFormat> formats) {
        for (BackfillFormat f : formats) {
            byName.putIfAbsent(f.name(), f);
        }
    }

    /** Every format registered in {@code META-INF/services/dev.etl.s3.BackfillFormat} on the class path. */
    public static BackfillFormats discover() {
        List<BackfillFormat> found = new ArrayList<>();
        ServiceLoader.load(BackfillFormat.class, BackfillFormats.class.getClassLoader())
                .forEach(found::add);
        return new BackfillFormats(found);
    }

    /** Exactly these formats. */
    public static BackfillFormats of(BackfillFormat... formats) {
        return new BackfillFormats(List.of(formats));
    }

    /**
     * The format named {@code name}.
     *
     * @throws IllegalArgumentException naming the known formats
     */
    public BackfillFormat byName(String name) {
        BackfillFormat f = byName.get(name);
        if (f == null) {
            throw new IllegalArgumentException(
                    "no backfill format '" + name + "' on the class path (known: " + byName.keySet()
                            + (name.equals("parquet") ? "; Parquet needs the etl-s3-parquet module" : "") + ")");
        }
        return f;
    }

    /**
     * The format that reads {@code key} by its extension.
     *
     * @throws IllegalArgumentException when none does, naming the known formats
     */
    public BackfillFormat forKey(String key) {
        for (BackfillFormat f : byName.values()) {
            if (f.matches(key)) {
                return f;
            }
        }
        throw new IllegalArgumentException("no backfill format reads '" + key + "' by its extension (known: "
                + byName.keySet() + "); set the format explicitly");
    }

    /** Whether some format reads {@code key} by its extension. */
    public boolean matchesAny(String key) {
        for (BackfillFormat f : byName.values()) {
            if (f.matches(key)) {
                return true;
            }
        }
        return false;
    }

    /** The names, in discovery order. */
    public List<String> names() {
        return List.copyOf(byName.keySet());
    }
}
