package dev.etl.bench;

import java.util.HashMap;
import java.util.Map;

/** {@code --key value} command-line arguments of the benchmark programs, and their logging default. */
public final class BenchArgs {
    private final Map<String, String> values = new HashMap<>();
    private final String usage;

    public BenchArgs(String usage, String[] args) {
        this.usage = usage;
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException(usage + "; got " + String.join(" ", args));
            }
            values.put(args[i].substring(2), args[++i]);
        }
    }

    /** Logs with the logback configuration {@code resource} unless logback.configurationFile is set. */
    public static void defaultLogging(String resource) {
        if (System.getProperty("logback.configurationFile") == null) {
            System.setProperty("logback.configurationFile", resource);
        }
    }

    public String get(String key) {
        String value = values.get(key);
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("--" + key + " is required; " + usage);
        }
        return value;
    }

    public String get(String key, String orElse) {
        return values.getOrDefault(key, orElse);
    }

    public long getLong(String key, long orElse) {
        String value = values.get(key);
        if (value == null) {
            return orElse;
        }
        try {
            long parsed = Long.parseLong(value);
            if (parsed <= 0) {
                throw new NumberFormatException();
            }
            return parsed;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + key + " must be a positive integer, got '" + value + "'");
        }
    }
}
