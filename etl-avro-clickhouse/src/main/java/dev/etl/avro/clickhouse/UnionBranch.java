package dev.etl.avro.clickhouse;

import java.util.List;
import org.apache.avro.Schema;

/**
 * The branch suffix of a field path: {@code amount[long]} is the field {@code amount} (a union of several
 * non-null types) read as its {@code long} branch only, {@code amount[com.acme.Money]} (or
 * {@code amount[Money]}) as a named type's branch. Such a column is {@code Nullable(T)}: a value of another
 * branch, or null, writes NULL. A branch is named by its type's name ({@code int}, {@code long},
 * {@code string}, {@code bytes}, {@code array}, {@code map}, …) or, for a record, enum or fixed, by its full
 * or simple name.
 */
final class UnionBranch {
    private UnionBranch() {}

    /** The field path without a branch suffix. */
    static String fieldPath(String path) {
        int open = branchStart(path);
        return open < 0 ? path : path.substring(0, open);
    }

    /** The branch named by the path's suffix, or null when it has none. */
    static String selector(String path) {
        int open = branchStart(path);
        return open < 0 ? null : path.substring(open + 1, path.length() - 1).strip();
    }

    private static int branchStart(String path) {
        if (path == null || !path.endsWith("]")) {
            return -1;
        }
        return path.lastIndexOf('[');
    }

    /** The branch of {@code union} that {@code selector} names, or null. */
    static Schema find(Schema union, String selector) {
        List<Schema> types = union.getTypes();
        for (Schema branch : types) {
            if (matches(branch, selector)) {
                return branch;
            }
        }
        return null;
    }

    static boolean matches(Schema branch, String selector) {
        return switch (branch.getType()) {
            case RECORD, ENUM, FIXED ->
                branch.getFullName().equals(selector) || branch.getName().equals(selector);
            default -> branch.getType().getName().equals(selector);
        };
    }
}
