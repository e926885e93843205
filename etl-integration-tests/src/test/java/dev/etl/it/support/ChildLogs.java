package dev.etl.it.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Reading the logs of child pipelines (child JVMs of the process ITs) that print {@code IN <records>
 * replayed <blocks>} progress lines every 100 ms: the last counts, and the tail without progress lines.
 * A line being written when read (torn) is skipped.
 */
public final class ChildLogs {
    private ChildLogs() {}

    /** The records count of the last {@code IN <n> ...} progress line, or 0. */
    public static long recordsIn(Path log) throws IOException {
        long in = 0;
        if (Files.exists(log)) {
            for (String line : Files.readAllLines(log)) {
                if (line.startsWith("IN ")) {
                    try {
                        in = Long.parseLong(line.substring(3).split(" ")[0].strip());
                    } catch (NumberFormatException torn) {
                        // a line being written
                    }
                }
            }
        }
        return in;
    }

    /** The replayed-blocks count of the last {@code IN <n> replayed <m>} progress line, or 0. */
    public static long replayedIn(Path log) throws IOException {
        double replayed = 0;
        if (Files.exists(log)) {
            for (String line : Files.readAllLines(log)) {
                String[] parts = line.split(" ");
                if (parts.length == 4 && parts[0].equals("IN") && parts[2].equals("replayed")) {
                    try {
                        replayed = Double.parseDouble(parts[3]);
                    } catch (NumberFormatException torn) {
                        // a line being written
                    }
                }
            }
        }
        return (long) replayed;
    }

    /** The last 40 lines of the log that are not progress lines (for assertion messages). */
    public static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log).stream()
                    .filter(l -> !l.startsWith("IN "))
                    .toList();
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }
}
