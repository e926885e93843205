package dev.etl.clickhouse.sharding;

/**
 * The function a Distributed table's sharding expression applies to its key column, computed
 * exactly as ClickHouse 18.16 computes it (verified against the server: {@code ClickHouseHashParityIT}).
 */
public enum ShardingFunction {
    /**
     * {@code cityHash64(column)}. Strings: CityHash v1.0.2 of the UTF-8 bytes ({@code CityHash64}).
     * Integers: {@code IntHash64#ofBits} of the value's bytes zero-extended to 64 bits, so
     * {@code cityHash64(toInt32(-1)) = cityHash64(toUInt32(4294967295))}, and the width does not matter
     * otherwise ({@code cityHash64(toUInt8(1)) = cityHash64(toUInt64(1))}).
     */
    CITY_HASH_64("cityHash64"),
    /**
     * {@code murmurHash3_64(column)}: MurmurHash3_x64_128 of the bytes, halves XORed
     * ({@code MurmurHash3}). Integers are hashed as their little-endian bytes in the column's width.
     */
    MURMUR_HASH3_64("murmurHash3_64"),
    /**
     * {@code intHash64(column)}, integers only: {@code IntHash64#ofValue} of the value converted by
     * value (negative values of signed types sign-extended).
     */
    INT_HASH_64("intHash64"),
    /**
     * The raw integer column as the sharding key ({@code Distributed(…, order_id)}): Distributed takes
     * the remainder of the value cast to the unsigned type of the same width ({@link KeyType#bits}).
     */
    IDENTITY("");

    private final String sqlName;

    ShardingFunction(String sqlName) {
        this.sqlName = sqlName;
    }

    /** The SQL function name ({@code cityHash64}, …), empty for {@link #IDENTITY}. */
    public String sqlName() {
        return sqlName;
    }

    /** Whether the function accepts a String column (only the two byte hashes do). */
    public boolean acceptsStrings() {
        return this == CITY_HASH_64 || this == MURMUR_HASH3_64;
    }

    /** The sharding expression over {@code column}, e.g. {@code cityHash64(order_id)} or {@code order_id}. */
    public String expression(String column) {
        return this == IDENTITY ? column : sqlName + "(" + column + ")";
    }

    /**
     * The expression's value for an integer key of column type {@code type}, as the unsigned 64-bit
     * number Distributed takes the remainder of. Allocation-free.
     */
    public long ofInteger(long key, KeyType type) {
        return switch (this) {
            case CITY_HASH_64 -> IntHash64.ofBits(type.bits(key));
            case MURMUR_HASH3_64 -> MurmurHash3.hashInteger(key, type.widthBytes());
            case INT_HASH_64 -> IntHash64.ofValue(type.value(key));
            case IDENTITY -> type.bits(key);
        };
    }

    /**
     * The expression's value for a String key given as its bytes (UTF-8 for text).
     *
     * @throws IllegalStateException for {@link #INT_HASH_64} and {@link #IDENTITY}, which ClickHouse
     *                               does not accept on strings
     */
    public long ofBytes(byte[] bytes, int offset, int length) {
        return switch (this) {
            case CITY_HASH_64 -> CityHash64.hash(bytes, offset, length);
            case MURMUR_HASH3_64 -> MurmurHash3.hash64(bytes, offset, length);
            case INT_HASH_64, IDENTITY -> throw new IllegalStateException(this + " does not apply to strings");
        };
    }

    /** The function named {@code sqlName} (case-sensitive, as ClickHouse's are), or null. */
    static ShardingFunction ofSqlName(String sqlName) {
        for (ShardingFunction f : values()) {
            if (f != IDENTITY && f.sqlName.equals(sqlName)) {
                return f;
            }
        }
        return null;
    }
}
