package dev.etl.avro.clickhouse;

import dev.etl.clickhouse.ColumnType;
import dev.etl.sink.RowBuffer;

/**
 * Writes a computed number (a {@code long} or a {@code double}) as one value of its column: Int8…Int64 and
 * UInt8…UInt64 range-checked, Float32/Float64, Decimal(P ≤ 18, s) as the unscaled value (the int → Decimal rule of
 * {@link ConversionCompiler}), each optionally under Nullable (written not null). A {@code double} goes to
 * Float32/Float64 only. Immutable.
 */
final class NumberColumn {
    private static final int INT = 0;
    private static final int FLOAT32 = 1;
    private static final int FLOAT64 = 2;

    private final int write;
    private final int width;
    private final long min;
    private final long max;
    private final boolean nullable;
    private final String columnType;

    private NumberColumn(int write, int width, long min, long max, boolean nullable, String columnType) {
        this.write = write;
        this.width = width;
        this.min = min;
        this.max = max;
        this.nullable = nullable;
        this.columnType = columnType;
    }

    /**
     * The writer of {@code type} for a long ({@code floating} false) or double result.
     *
     * @throws IllegalArgumentException saying which column types take the result
     */
    static NumberColumn of(ColumnType type, boolean floating) {
        boolean nullable = type.kind() == ColumnType.Kind.NULLABLE;
        ColumnType t = nullable ? type.inner() : type;
        String name = type.name();
        switch (t.kind()) {
            case FLOAT32:
                return new NumberColumn(FLOAT32, 4, 0, 0, nullable, name);
            case FLOAT64:
                return new NumberColumn(FLOAT64, 8, 0, 0, nullable, name);
            default:
                break;
        }
        if (floating) {
            throw new IllegalArgumentException("a floating-point result is written to Float32 or Float64 columns only");
        }
        switch (t.kind()) {
            case INT8:
                return ints(1, Byte.MIN_VALUE, Byte.MAX_VALUE, nullable, name);
            case INT16:
                return ints(2, Short.MIN_VALUE, Short.MAX_VALUE, nullable, name);
            case INT32:
                return ints(4, Integer.MIN_VALUE, Integer.MAX_VALUE, nullable, name);
            case INT64:
                return ints(8, Long.MIN_VALUE, Long.MAX_VALUE, nullable, name);
            case UINT8:
                return ints(1, 0, 0xFF, nullable, name);
            case UINT16:
                return ints(2, 0, 0xFFFF, nullable, name);
            case UINT32:
                return ints(4, 0, 0xFFFF_FFFFL, nullable, name);
            case UINT64:
                return ints(8, 0, Long.MAX_VALUE, nullable, name);
            case DECIMAL: {
                if (t.precision() > 18) {
                    throw new IllegalArgumentException(
                            "an integer result is the unscaled value of a Decimal of at most 18 digits");
                }
                long bound = Decimals.pow10(t.precision()) - 1;
                return ints(t.fixedWidth(), -bound, bound, nullable, name);
            }
            default:
                throw new IllegalArgumentException("an integer result is written to Int8…Int64, UInt8…UInt64, "
                        + "Float32, Float64 or Decimal(P ≤ 18, s) columns only");
        }
    }

    /** A DateTime ({@code width} 4: seconds, unsigned 32 bits) or DateTime64 ({@code width} 8) of {@code type}. */
    static NumberColumn time(ColumnType type, int width) {
        boolean nullable = type.kind() == ColumnType.Kind.NULLABLE;
        return width == 4
                ? ints(4, 0, 0xFFFF_FFFFL, nullable, type.name())
                : ints(8, Long.MIN_VALUE, Long.MAX_VALUE, nullable, type.name());
    }

    private static NumberColumn ints(int width, long min, long max, boolean nullable, String name) {
        return new NumberColumn(INT, width, min, max, nullable, name);
    }

    /** Writes an integer result (converted to the column's float type when it is one). */
    void writeLong(long value, RowBuffer out) {
        if (nullable) {
            out.writeByte(0);
        }
        switch (write) {
            case FLOAT32:
                out.writeFloatLE((float) value);
                return;
            case FLOAT64:
                out.writeDoubleLE((double) value);
                return;
            default:
                break;
        }
        if (value < min || value > max) {
            throw new ValueRejected(
                    "value " + value + " out of range for " + columnType + " [" + min + ", " + max + "]");
        }
        switch (width) {
            case 1:
                out.writeByte((int) value);
                return;
            case 2:
                out.writeShortLE((int) value);
                return;
            case 4:
                out.writeIntLE((int) value);
                return;
            default:
                out.writeLongLE(value);
        }
    }

    /** Writes a floating-point result (the column is Float32 or Float64). */
    void writeDouble(double value, RowBuffer out) {
        if (nullable) {
            out.writeByte(0);
        }
        if (write == FLOAT32) {
            out.writeFloatLE((float) value);
        } else {
            out.writeDoubleLE(value);
        }
    }

    /** The bytes of {@code value} in this column, at compile time (a folded constant). */
    byte[] bytesOf(long value) {
        RowBuffer out = new RowBuffer(16);
        writeLong(value, out);
        return out.toByteArray();
    }

    /** The bytes of {@code value} in this column, at compile time. */
    byte[] bytesOf(double value) {
        RowBuffer out = new RowBuffer(16);
        writeDouble(value, out);
        return out.toByteArray();
    }
}
