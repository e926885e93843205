package dev.etl.s3;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/**
 * The backfill formats a process knows, by name and by object key: the built-in {@code avro}
 * ({@link AvroContainerFormat}) and {@code ndjson} ({@link NdjsonFormat}), then those found by
 * {@link ServiceLoader} ({@code etl-s3-parquet} adds {@code parquet} through
 * {@code META-INF/services/dev.etl.s3.BackfillFormat}). Names are unique and compared without case; a
 * key goes to the first format, in that order, whose {@link BackfillFormat#matches} accepts it.
 * Immutable and thread-safe.
 */
public final class BackfillFormats {
    private final Map<String, BackfillFormat> byName;

    private BackfillFormats(Map<String, BackfillFormat> byName) {
        this.byName = byName;
    }

    /** The built-in formats and those on the class path of this class's loader. */
    public static BackfillFormats discover() {
        return discover(BackfillFormats.class.getClassLoader());
    }

    /**
     * The built-in formats and those {@link ServiceLoader} finds through {@code loader}.
     *
     * @throws IllegalStateException when a listed format cannot be loaded, or two share a name
     */
    public static BackfillFormats discover(ClassLoader loader) {
        List<BackfillFormat> formats = new ArrayList<>(List.of(new AvroContainerFormat(), new NdjsonFormat()));
        try {
            for (BackfillFormat format : ServiceLoader.load(BackfillFormat.class, loader)) {
                // A built-in listed as a service too is the same format, not a clash.
                if (format.getClass() != AvroContainerFormat.class && format.getClass() != NdjsonFormat.class) {
                    formats.add(format);
                }
            }
        } catch (ServiceConfigurationError e) {
            throw new IllegalStateException(
                    "a backfill format listed in META-INF/services/" + BackfillFormat.class.getName()
                            + " cannot be loaded: " + e.getMessage(),
                    e);
        }
        return of(formats);
    }

    /**
     * Exactly these formats, in this order (no service loading).
     *
     * @throws IllegalStateException when two share a name
     */
    public static BackfillFormats of(List<? extends BackfillFormat> formats) {
        Map<String, BackfillFormat> byName = new LinkedHashMap<>();
        for (BackfillFormat format : formats) {
            String name = normalize(format.name());
            BackfillFormat clash = byName.putIfAbsent(name, format);
            if (clash != null) {
                throw new IllegalStateException("two backfill formats are named '" + name + "': "
                        + clash.getClass().getName() + " and "
                        + format.getClass().getName());
            }
        }
        return new BackfillFormats(Collections.unmodifiableMap(byName));
    }

    /** The formats, built-ins first. */
    public List<BackfillFormat> formats() {
        return List.copyOf(byName.values());
    }

    /** The formats' names, built-ins first. */
    public List<String> names() {
        return List.copyOf(byName.keySet());
    }

    /** The format with this name (any case), if known. */
    public Optional<BackfillFormat> find(String name) {
        return Optional.ofNullable(byName.get(normalize(name)));
    }

    /**
     * The format with this name (any case).
     *
     * @throws IllegalArgumentException naming the known formats, when none has this name
     */
    public BackfillFormat named(String name) {
        BackfillFormat format = byName.get(normalize(name));
        if (format == null) {
            throw new IllegalArgumentException(
                    "unknown backfill format '" + name + "'; known formats: " + String.join(", ", byName.keySet())
                            + (name.equalsIgnoreCase("parquet") ? " (parquet needs dev.etl:etl-s3-parquet)" : ""));
        }
        return format;
    }

    /** The first format that reads objects with this key by default, if any. */
    public Optional<BackfillFormat> findForKey(String key) {
        for (BackfillFormat format : byName.values()) {
            if (format.matches(key)) {
                return Optional.of(format);
            }
        }
        return Optional.empty();
    }

    /**
     * The first format that reads objects with this key by default.
     *
     * @throws IllegalArgumentException naming the key and the known formats, when none matches
     */
    public BackfillFormat forKey(String key) {
        return findForKey(key)
                .orElseThrow(() -> new IllegalArgumentException("no backfill format reads the object key '" + key
                        + "' by its extension; known formats: " + String.join(", ", byName.keySet())
                        + " (name the format explicitly for keys without a known extension)"));
    }

    @Override
    public String toString() {
        return "BackfillFormats" + byName.keySet();
    }

    private static String normalize(String name) {
        return name.trim().toLowerCase(Locale.ROOT);
    }
}
