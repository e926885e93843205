package dev.etl.clickhouse.sharding;

import dev.etl.clickhouse.ColumnType;

/**
 * The ClickHouse type of a sharding-key column, which decides how a Java key becomes the bytes or
 * number a ClickHouse hash sees. Integer keys are passed as a Java {@code long} holding the value the
 * encoder writes: the low {@code 8 * widthBytes()} bits are what the column stores (RowBinary writes
 * exactly those bytes), so {@code -1L} for a {@code UInt32} column is stored, hashed and placed as
 * {@code 4294967295}.
 */
public enum KeyType {
    /** {@code UInt8}. */
    UINT8("UInt8", 1, false),
    /** {@code UInt16}; also {@code Date} (days since epoch). */
    UINT16("UInt16", 2, false),
    /** {@code UInt32}; also {@code DateTime} (seconds since epoch). */
    UINT32("UInt32", 4, false),
    /** {@code UInt64}: a Java long read as unsigned. */
    UINT64("UInt64", 8, false),
    /** {@code Int8}; also {@code Enum8} (its codes). */
    INT8("Int8", 1, true),
    /** {@code Int16}; also {@code Enum16}. */
    INT16("Int16", 2, true),
    /** {@code Int32}. */
    INT32("Int32", 4, true),
    /** {@code Int64}. */
    INT64("Int64", 8, true),
    /** {@code String} (or {@code LowCardinality(String)}): hashed as its UTF-8 bytes. */
    STRING("String", 0, false);

    private final String clickHouseName;
    private final int widthBytes;
    private final boolean signed;

    KeyType(String clickHouseName, int widthBytes, boolean signed) {
        this.clickHouseName = clickHouseName;
        this.widthBytes = widthBytes;
        this.signed = signed;
    }

    /** The ClickHouse type name, e.g. {@code UInt64}. */
    public String clickHouseName() {
        return clickHouseName;
    }

    /** Bytes of the column's native width (1, 2, 4 or 8); 0 for {@link #STRING}. */
    public int widthBytes() {
        return widthBytes;
    }

    /** Whether this is an integer type (everything but {@link #STRING}). */
    public boolean isInteger() {
        return widthBytes > 0;
    }

    /** Whether this is a signed integer type. */
    public boolean isSigned() {
        return signed;
    }

    /**
     * The stored bits of {@code key}, zero-extended to 64: the column's bytes read as an unsigned
     * number. What {@code cityHash64} hashes, and what Distributed takes the remainder of for a raw
     * integer sharding key (it casts signed keys to the unsigned type of the same width).
     */
    public long bits(long key) {
        return widthBytes == 8 ? key : key & ((1L << (widthBytes << 3)) - 1);
    }

    /**
     * The stored value of {@code key} converted to UInt64 by value, as C++ converts integers:
     * sign-extended for signed types, zero-extended for unsigned ones. What {@code intHash64} hashes.
     */
    public long value(long key) {
        if (!signed || widthBytes == 8) {
            return bits(key);
        }
        int shift = 64 - (widthBytes << 3);
        return (key << shift) >> shift;
    }

    /**
     * The key type of a ClickHouse column type as {@code system.columns} prints it.
     *
     * @throws IllegalArgumentException for a type that cannot be a supported sharding key
     *                                  (Nullable, floats, FixedString, arrays, …)
     */
    public static KeyType of(String clickHouseType) {
        ColumnType t;
        try {
            t = ColumnType.parse(clickHouseType);
        } catch (IllegalArgumentException e) {
            throw unsupported(clickHouseType);
        }
        if (t.kind() == ColumnType.Kind.LOW_CARDINALITY && t.inner().kind() == ColumnType.Kind.STRING) {
            return STRING;
        }
        return switch (t.kind()) {
            case UINT8 -> UINT8;
            case UINT16, DATE -> UINT16;
            case UINT32, DATE_TIME -> UINT32;
            case UINT64 -> UINT64;
            case INT8, ENUM8 -> INT8;
            case INT16, ENUM16 -> INT16;
            case INT32 -> INT32;
            case INT64 -> INT64;
            case STRING -> STRING;
            default -> throw unsupported(clickHouseType);
        };
    }

    private static IllegalArgumentException unsupported(String clickHouseType) {
        return new IllegalArgumentException(
                "ClickHouse type '" + clickHouseType + "' is not a supported sharding key "
                        + "column type (supported: UInt8-64, Int8-64, Date, DateTime, Enum8/16, String, LowCardinality(String))");
    }

    @Override
    public String toString() {
        return clickHouseName;
    }
}
