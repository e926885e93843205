package dev.etl.clickhouse;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The column check of {@link ClickHouseSchemaValidator}: whether the encoder's columns match the
 * table's under a {@link ValidationMode} (names and order; with {@code FULL} also the types, compared
 * after {@link ClickHouseTypeNames#normalise}), and the column-by-column diff the startup error shows
 * when they do not. Stateless.
 */
final class ClickHouseColumnDiff {

    private ClickHouseColumnDiff() {}

    /**
     * A column-by-column diff, or null when the columns match under {@code mode}. Types are compared
     * after {@link ClickHouseTypeNames#normalise}.
     */
    static String diff(List<ClickHouseColumn> expected, List<ClickHouseColumn> actual, ValidationMode mode) {
        if (mode == ValidationMode.OFF) {
            return null;
        }
        boolean same = expected.size() == actual.size();
        for (int i = 0; same && i < expected.size(); i++) {
            same = columnMatches(expected.get(i), actual.get(i), mode);
        }
        if (same) {
            return null;
        }
        int nameWidth = 6;
        int typeWidth = 8;
        for (ClickHouseColumn c : expected) {
            nameWidth = Math.max(nameWidth, c.name().length());
            typeWidth = Math.max(typeWidth, c.type().length());
        }
        for (ClickHouseColumn c : actual) {
            nameWidth = Math.max(nameWidth, c.name().length());
        }
        String format = "  %-3s %-" + nameWidth + "s %-" + typeWidth + "s | %-" + nameWidth + "s %s%s%n";
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(format, "#", "encoder", "", "table", "", ""));
        int rows = Math.max(expected.size(), actual.size());
        for (int i = 0; i < rows; i++) {
            ClickHouseColumn e = i < expected.size() ? expected.get(i) : null;
            ClickHouseColumn a = i < actual.size() ? actual.get(i) : null;
            String note;
            if (e == null) {
                note = "   <- extra column in the table";
            } else if (a == null) {
                note = "   <- the table has no column here";
            } else if (!e.name().equals(a.name())) {
                note = "   <- name differs";
            } else if (mode == ValidationMode.FULL && !typesMatch(e.type(), a.type())) {
                note = "   <- type differs";
            } else {
                note = "";
            }
            sb.append(String.format(
                    format,
                    i + 1,
                    e == null ? "-" : e.name(),
                    e == null ? "" : e.type(),
                    a == null ? "-" : a.name(),
                    a == null ? "" : a.type(),
                    note));
        }
        Set<String> expectedNames = new HashSet<>();
        expected.forEach(c -> expectedNames.add(c.name()));
        Set<String> actualNames = new HashSet<>();
        actual.forEach(c -> actualNames.add(c.name()));
        List<String> missing = expected.stream()
                .map(ClickHouseColumn::name)
                .filter(n -> !actualNames.contains(n))
                .toList();
        List<String> extra = actual.stream()
                .map(ClickHouseColumn::name)
                .filter(n -> !expectedNames.contains(n))
                .toList();
        if (!missing.isEmpty()) {
            sb.append("  missing in the table: ").append(missing).append('\n');
        }
        if (!extra.isEmpty()) {
            sb.append("  not written by the encoder: ").append(extra).append('\n');
        }
        if (missing.isEmpty() && extra.isEmpty() && expected.size() == actual.size()) {
            boolean orderOnly = false;
            for (int i = 0; i < expected.size(); i++) {
                orderOnly |= !expected.get(i).name().equals(actual.get(i).name());
            }
            if (orderOnly) {
                sb.append("  same columns in a different order: RowBinary is positional, the order must match\n");
            }
        }
        return sb.toString();
    }

    private static boolean columnMatches(ClickHouseColumn e, ClickHouseColumn a, ValidationMode mode) {
        return e.name().equals(a.name()) && (mode != ValidationMode.FULL || typesMatch(e.type(), a.type()));
    }

    static boolean typesMatch(String expected, String actual) {
        return ClickHouseTypeNames.normalise(expected).equals(ClickHouseTypeNames.normalise(actual));
    }
}
