package dev.etl.clickhouse.sharding;

import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Distributed sharding expression over one key column, in one of the forms ClickHouse computes and
 * this class reproduces bit for bit: {@code cityHash64(col)}, {@code murmurHash3_64(col)},
 * {@code intHash64(col)} or the raw integer column {@code col}. Its {@code valueOf} methods return the
 * expression's value as the unsigned 64-bit number Distributed takes the remainder of (read the Java
 * {@code long} as unsigned).
 *
 * <p>Immutable and thread-safe. The integer and byte-range paths allocate nothing; the
 * {@link CharSequence} path encodes into a per-thread scratch array.
 *
 * @param function what the expression applies to the column
 * @param column   the key column's name, as in the expression
 * @param type     the key column's ClickHouse type (it changes the hash of integers and the remainder
 *                 of raw signed keys)
 */
public record ShardingKey(ShardingFunction function, String column, KeyType type) {
    private static final String IDENT = "([A-Za-z_][A-Za-z0-9_]*|`(?:[^`\\\\]|\\\\.)+`)";
    private static final Pattern CALL =
            Pattern.compile("\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*\\(\\s*" + IDENT + "\\s*\\)\\s*");
    private static final Pattern BARE = Pattern.compile("\\s*" + IDENT + "\\s*");

    public ShardingKey {
        Objects.requireNonNull(function, "function");
        Objects.requireNonNull(type, "type");
        if (column == null || column.isBlank()) {
            throw new IllegalArgumentException("sharding key column must be set");
        }
        if (!type.isInteger() && !function.acceptsStrings()) {
            throw new IllegalArgumentException(function.expression(column) + " over a " + type + " column is not a "
                    + "Distributed sharding key ClickHouse accepts: "
                    + (function == ShardingFunction.IDENTITY
                            ? "a raw key must be an integer"
                            : function.sqlName() + " takes integers only"));
        }
    }

    /** {@code cityHash64(column)}. */
    public static ShardingKey cityHash64(String column, KeyType type) {
        return new ShardingKey(ShardingFunction.CITY_HASH_64, column, type);
    }

    /** {@code murmurHash3_64(column)}. */
    public static ShardingKey murmurHash3_64(String column, KeyType type) {
        return new ShardingKey(ShardingFunction.MURMUR_HASH3_64, column, type);
    }

    /** {@code intHash64(column)} (integer columns only). */
    public static ShardingKey intHash64(String column, KeyType type) {
        return new ShardingKey(ShardingFunction.INT_HASH_64, column, type);
    }

    /** The raw integer column as the sharding key. */
    public static ShardingKey raw(String column, KeyType type) {
        return new ShardingKey(ShardingFunction.IDENTITY, column, type);
    }

    /**
     * Parses a sharding expression as {@code system.tables.engine_full} prints it, looking the key
     * column's ClickHouse type up with {@code columnTypes} (e.g. from {@code system.columns}).
     *
     * @throws IllegalArgumentException when the expression is not one of the supported forms (the
     *                                  message names them; build the key explicitly and let
     *                                  {@link DistributedPlacementCheck} compare it with the server), or
     *                                  the column is unknown or of an unsupported type
     */
    public static ShardingKey parse(String expression, Function<String, String> columnTypes) {
        ShardingFunction function;
        String column;
        Matcher call = CALL.matcher(expression);
        Matcher bare = BARE.matcher(expression);
        if (call.matches()) {
            function = ShardingFunction.ofSqlName(call.group(1));
            column = unquote(call.group(2));
            if (function == null) {
                throw unsupported(expression);
            }
        } else if (bare.matches()) {
            function = ShardingFunction.IDENTITY;
            column = unquote(bare.group(1));
        } else {
            throw unsupported(expression);
        }
        String typeName = columnTypes.apply(column);
        if (typeName == null) {
            throw new IllegalArgumentException("sharding expression " + expression + " uses column '" + column
                    + "', which the table does not have");
        }
        return new ShardingKey(function, column, KeyType.of(typeName));
    }

    private static IllegalArgumentException unsupported(String expression) {
        return new IllegalArgumentException("sharding expression '" + expression + "' is not one this router "
                + "reproduces: cityHash64(col), murmurHash3_64(col), intHash64(col) or a raw integer col");
    }

    private static String unquote(String identifier) {
        if (identifier.startsWith("`")) {
            return identifier.substring(1, identifier.length() - 1).replaceAll("\\\\(.)", "$1");
        }
        return identifier;
    }

    /** The expression as ClickHouse would print it, e.g. {@code cityHash64(order_id)}. */
    public String expression() {
        return function.expression(column);
    }

    /**
     * The expression's value for an integer key (the value the encoder writes to the column).
     *
     * @throws IllegalStateException when the key column is a String
     */
    public long valueOf(long key) {
        if (type == KeyType.STRING) {
            throw new IllegalStateException(expression() + " has a String key column; pass the key as text or bytes");
        }
        return function.ofInteger(key, type);
    }

    /**
     * The expression's value for a String key given as its stored bytes.
     *
     * @throws IllegalStateException when the key column is an integer
     */
    public long valueOf(byte[] bytes, int offset, int length) {
        requireString();
        return function.ofBytes(bytes, offset, length);
    }

    /** The expression's value for a String key, hashed as its UTF-8 bytes (as the sink stores it). */
    public long valueOf(CharSequence text) {
        requireString();
        return Utf8Scratch.hash(function, text);
    }

    private void requireString() {
        if (type != KeyType.STRING) {
            throw new IllegalStateException(expression() + " has a " + type + " key column; pass the key as a long");
        }
    }

    @Override
    public String toString() {
        return expression() + " [" + column + " " + type + "]";
    }
}
