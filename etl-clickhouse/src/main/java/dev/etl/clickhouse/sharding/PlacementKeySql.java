package dev.etl.clickhouse.sharding;

import java.util.HexFormat;
import java.util.List;

/**
 * The sample keys of a {@link DistributedPlacementCheck} as SQL: bound to the key column in batched
 * {@code SELECT}s the server evaluates the sharding expression over, and shown in mismatch reports.
 */
final class PlacementKeySql {
    static final int KEYS_PER_QUERY = 500;
    static final int MAX_SQL_CHARS = 100_000;

    private PlacementKeySql() {}

    /**
     * One past the last key of the batch starting at {@code from}: at most {@link #KEYS_PER_QUERY} keys
     * and about {@link #MAX_SQL_CHARS} characters of literals (the server's {@code max_query_size} is
     * 256 KiB by default).
     */
    static int batchEnd(List<?> keys, int from, String columnType, KeyType keyType) {
        int chars = 0;
        int to = from;
        while (to < keys.size() && to - from < KEYS_PER_QUERY && chars < MAX_SQL_CHARS) {
            chars += literal(keys.get(to), columnType, keyType).length() + 2;
            to++;
        }
        return to;
    }

    /** {@code SELECT idx, <select> FROM} the keys bound to {@code column}, in order. */
    static String bound(String column, String columnType, KeyType keyType, List<?> keys, String select) {
        StringBuilder sb = new StringBuilder(64 + keys.size() * 32);
        sb.append("SELECT idx, ")
                .append(select)
                .append(" FROM (SELECT arrayJoin(arrayEnumerate(keys)) AS idx, ")
                .append("keys[idx] AS ")
                .append(Sql.identifier(column))
                .append(" FROM (SELECT [");
        for (int i = 0; i < keys.size(); i++) {
            sb.append(i == 0 ? "" : ", ").append(literal(keys.get(i), columnType, keyType));
        }
        return sb.append("] AS keys)) ORDER BY idx FORMAT TabSeparated").toString();
    }

    private static String literal(Object key, String columnType, KeyType keyType) {
        if (keyType == KeyType.STRING) {
            return "unhex('" + HexFormat.of().formatHex(bytes(key)) + "')";
        }
        long k = integer(key);
        String stored = keyType.isSigned() ? Long.toString(keyType.value(k)) : Long.toUnsignedString(keyType.bits(k));
        String typed = "CAST('" + stored + "' AS " + keyType.clickHouseName() + ")";
        return columnType.equals(keyType.clickHouseName()) ? typed : "CAST(" + typed + " AS " + columnType + ")";
    }

    static String display(Object key, KeyType keyType) {
        if (keyType != KeyType.STRING) {
            long k = integer(key);
            return keyType.isSigned() ? Long.toString(keyType.value(k)) : Long.toUnsignedString(keyType.bits(k));
        }
        return key instanceof byte[] b ? "unhex('" + HexFormat.of().formatHex(b) + "')" : Sql.literal(key.toString());
    }

    private static long integer(Object key) {
        if (key instanceof Number n) {
            return n.longValue();
        }
        throw new IllegalArgumentException("an integer key column needs Number keys, got " + describe(key));
    }

    static byte[] bytes(Object key) {
        if (key instanceof byte[] b) {
            return b;
        }
        if (key instanceof CharSequence cs) {
            byte[] buf = new byte[Utf8Scratch.utf8Length(cs, cs.length())];
            Utf8Scratch.encode(cs, cs.length(), buf);
            return buf;
        }
        throw new IllegalArgumentException(
                "a String key column needs CharSequence or byte[] keys, got " + describe(key));
    }

    private static String describe(Object key) {
        return key == null ? "null" : key.getClass().getName();
    }
}
